import type { Core } from '../../core.js';
import type { BillingService } from '../billing/service.js';
import type { LiveEvents } from '../live/service.js';
import type { SessionsService } from '../sessions/service.js';
import { recordingsJobs } from './jobs.js';
import { recordingsService, type RecordingsService } from './service.js';
import { recordingsStore } from './store.js';

/**
 * The recordings module over the core: its store, its service (billing told when a session's
 * stored bytes change) and its jobs (the announcement of `recording.ready`, the seal).
 */
export function recordingsModule(
  core: Core,
  peers: { hub: LiveEvents; sessions: SessionsService; billing: BillingService },
): RecordingsService {
  const recordings = recordingsService({
    ...core,
    store: recordingsStore(core.db),
    live: peers.hub,
    sessions: peers.sessions,
    storageChanged: (sessionId) => peers.billing.syncStorage(sessionId),
  });
  for (const kind of recordingsJobs({ ...core, recordings })) core.jobs.register(kind);
  return recordings;
}
