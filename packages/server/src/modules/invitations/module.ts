import type { Core } from '../../core.js';
import type { AccountsService } from '../accounts/service.js';
import type { ProjectsService } from '../projects/service.js';
import { invitationsService, type InvitationsService } from './service.js';
import { invitationsStore } from './store.js';

/** The invitations module over the core: its store and service. */
export function invitationsModule(
  core: Core,
  peers: { accounts: AccountsService; projects: ProjectsService },
): InvitationsService {
  return invitationsService({ ...core, ...peers, store: invitationsStore(core.db) });
}
