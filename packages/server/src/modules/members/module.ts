import type { Core } from '../../core.js';
import { membersService, type MembersService } from './service.js';
import { membersStore } from './store.js';

/** The members module over the core: its store and service. */
export function membersModule(core: Core): MembersService {
  return membersService({ store: membersStore(core.db, core.engine) });
}
