import type { Core } from '../../core.js';
import type { ProjectsService } from '../projects/service.js';
import { accountsService, type AccountsService } from './service.js';
import { accountsStore } from './store.js';

/** The accounts module over the core: its store and service. */
export function accountsModule(core: Core, peers: { projects: ProjectsService }): AccountsService {
  return accountsService({ ...core, store: accountsStore(core.db), projects: peers.projects });
}
