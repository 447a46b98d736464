import type { Core } from '../../core.js';
import type { ProjectsService } from '../projects/service.js';
import { deliveryJob } from './jobs.js';
import { webhooksService, type WebhooksService } from './service.js';
import { webhooksStore } from './store.js';

/** The webhooks module over the core: registrations, the outbox listener and the delivery job. */
export function webhooksModule(core: Core, peers: { projects: ProjectsService }): WebhooksService {
  const store = webhooksStore(core.db);
  core.jobs.register(deliveryJob({ ...core, store }));
  return webhooksService({ ...core, store, projects: peers.projects });
}
