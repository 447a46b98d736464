import type { Core } from '../../core.js';
import type { LiveService } from '../live/service.js';
import type { SessionsService } from '../sessions/service.js';
import { guestsService, type GuestsService } from './service.js';
import { guestsStore } from './store.js';

/** The guests module over the core: join links, redeemed for a guest token by the live module. */
export function guestsModule(
  core: Core,
  peers: { sessions: SessionsService; live: LiveService },
): GuestsService {
  return guestsService({ ...core, ...peers, store: guestsStore(core.db) });
}
