import type { Core } from '../../core.js';
import type { ProjectsService } from '../projects/service.js';
import { billingProvider } from './provider.js';
import { billingService, type BillingService } from './service.js';

/**
 * The billing module over the core: metering, the free tier's gate and the provider. Built
 * before the modules it meters, which are given its gate and meter; the exports module adds its
 * files' bytes to a session's stored total (`countStored`).
 */
export function billingModule(core: Core, peers: { projects: ProjectsService }): BillingService {
  return billingService({ ...core, projects: peers.projects, provider: billingProvider(core.config) });
}
