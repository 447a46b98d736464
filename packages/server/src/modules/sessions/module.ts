import type { Core } from '../../core.js';
import type { BillingService } from '../billing/service.js';
import type { ProjectsService } from '../projects/service.js';
import { sessionsService, type SessionsService } from './service.js';
import { sessionsStore } from './store.js';

/** The sessions module over the core: its store and service (billing's gate refuses creates over the limits). */
export function sessionsModule(
  core: Core,
  peers: { projects: ProjectsService; billing: BillingService },
): SessionsService {
  return sessionsService({
    ...core,
    store: sessionsStore(core.db),
    projects: peers.projects,
    gate: peers.billing.gate,
  });
}
