import type { Core } from '../../core.js';
import type { Fanout } from '../../bus/fanout.js';
import type { ProjectsService } from '../projects/service.js';
import { keysService, type KeysService, type Revocations } from './service.js';
import { keysStore } from './store.js';

/** The keys module over the core: its store and service, revocations told to every process. */
export function keysModule(core: Core, peers: { projects: ProjectsService }): KeysService {
  return keysService({
    ...core,
    store: keysStore(core.db),
    projects: peers.projects,
    revocations: keyRevocations(core.fanout),
  });
}

/** Key revocations travel on the fan-out's system channel: every process evicts its cached key. */
function keyRevocations(fanout: Fanout): Revocations {
  return {
    publish: (keyId) => fanout.notify({ name: 'key.revoked', keyId }),
    subscribe: (handler) =>
      void fanout.onNotice((n) => {
        if (n.name === 'key.revoked') handler(n.keyId);
      }),
  };
}
