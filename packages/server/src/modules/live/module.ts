import type { Core } from '../../core.js';
import type { BillingService } from '../billing/service.js';
import type { SessionsService } from '../sessions/service.js';
import { SessionHub } from './hub.js';
import { memorySequencer, redisSequencer } from './sequencer.js';
import { liveService, type LiveService } from './service.js';
import { connectionTokens } from './token.js';

/** The live module, built: the hub of this process's live sessions and the service over it. */
export interface LiveModule {
  hub: SessionHub;
  live: LiveService;
  /** closes what the module opened itself (the sequencer's connection); after the hub closed */
  close(): Promise<void>;
}

/**
 * The live module over the core: the sequencer (in process, or Redis when several processes share
 * sessions), the hub (metered and limited by billing) and the live service (connection tokens).
 */
export function liveModule(
  core: Core,
  peers: { sessions: SessionsService; billing: BillingService },
): LiveModule {
  const { config, streams, billing } = { ...core, ...peers };
  const sequencer = config.redisUrl
    ? redisSequencer(config.redisUrl, config.redisKeyPrefix, streams)
    : memorySequencer(streams);
  const hub = new SessionHub({
    ...core,
    sequencer,
    departureTimeoutMs: config.sessionDepartureTimeoutS * 1000,
    ingestLimitBytes: config.liveIngestBufferBytes,
    clockSkewMs: config.liveClockSkewMs,
    textLimitBytes: config.liveTextBytesPerSession,
    storageAllowance: (orgId) => billing.gate.storageAllowance(orgId),
    meter: billing.meter,
  });
  const live = liveService({
    ...core,
    sessions: peers.sessions,
    tokens: connectionTokens(config.keys.jwt),
    gate: billing.gate,
    hub,
    sequencer,
  });
  return { hub, live, close: () => sequencer.close() };
}
