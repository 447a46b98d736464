import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Fanout } from './bus/fanout.js';
import type { Database } from './db/open.js';
import type { StorageWatch } from './db/storage-watch.js';
import { jobsStore } from './jobs/store.js';
import type { LiveGauges, MetricSources } from './lib/metrics.js';
import type { SessionHub } from './modules/live/hub.js';
import { within } from './lib/time.js';

/**
 * The readiness check (`GET /ready`): why this process cannot take work now, or null. In order:
 * draining, storage replaced or removed, the database, Redis when configured, and whether
 * `DATA_DIR` takes a write (a full or read-only disk fails here before a real write does).
 */
export function readiness(deps: {
  dataDir: string;
  database: Pick<Database, 'ping'>;
  storage: StorageWatch;
  /** null without REDIS_URL */
  redis: Pick<Fanout, 'ping'> | null;
  draining: () => boolean;
}): () => Promise<string | null> {
  const probe = join(deps.dataDir, '.ready');
  return async () => {
    if (deps.draining()) return 'draining';
    const problem = deps.storage.problem();
    if (problem) return problem;
    try {
      await within(deps.database.ping(), 2000);
    } catch {
      return 'database unavailable';
    }
    if (deps.redis)
      try {
        await within(deps.redis.ping(), 2000);
      } catch {
        return 'redis unavailable';
      }
    try {
      await within(writeFile(probe, String(Date.now())), 2000);
    } catch (err) {
      return `storage not writable: ${(err as Error).message.split(deps.dataDir).join('DATA_DIR')}`;
    }
    return null;
  };
}

/** Where the metrics read the hub's running counts and the job queue's depth, at each scrape. */
export function metricSources(hub: SessionHub, database: Database, nodeId: string): MetricSources {
  const jobs = jobsStore(database.db, database.engine, nodeId);
  return {
    live: () => ({
      sessions: hub.sessionCount,
      participants: hub.connectionCount,
      // Reduced layers are received too, relayed rather than recorded.
      framesReceived: hub.stats.published + hub.stats.relayed,
      bytesReceived: hub.stats.publishedBytes + hub.stats.relayedBytes,
      framesDelivered: hub.stats.delivered,
      bytesDelivered: hub.stats.deliveredBytes,
      framesDropped: hub.stats.dropped,
      publisherPauses: hub.stats.pauses,
      framesRelayed: hub.stats.relayed,
      layerSwitches: hub.stats.layerSwitches,
      keyframeSkips: hub.stats.keyframeSkips,
      keyframeRequests: { ...hub.keyframes.counts },
      ...receiverLayers(hub),
    }),
    jobs: async () => {
      const at = Date.now();
      return (await jobs.depth(at)).map((r) => ({
        kind: r.kind,
        queued: r.queued,
        oldestDueAgeS: r.oldest_due === null ? 0 : Math.max(0, at - r.oldest_due) / 1000,
      }));
    },
  };
}

/** Receivers' video tracks by layer, and their estimated link rates, read off their pacers. */
function receiverLayers(hub: SessionHub): Pick<LiveGauges, 'tracksByLayer' | 'receiverRates'> {
  const tracksByLayer = { '0': 0, '1': 0, '2': 0, stalled: 0 };
  const receiverRates: number[] = [];
  for (const conn of hub.connections()) {
    if (!conn.pacer) continue;
    receiverRates.push(conn.pacer.link.rateBps);
    for (const layer of conn.pacer.chooser.layers()) tracksByLayer[layer === null ? 'stalled' : layer] += 1;
  }
  return { tracksByLayer, receiverRates };
}
