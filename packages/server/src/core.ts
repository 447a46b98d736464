import type { FastifyBaseLogger } from 'fastify';
import type { BlobStore } from './blobs/store.js';
import type { EventBus } from './bus/events.js';
import type { Fanout } from './bus/fanout.js';
import type { Config } from './config.js';
import type { Counters } from './counters/counter.js';
import type { RequestReads } from './db/request-reads.js';
import type { Db, Engine } from './db/types.js';
import type { JobQueue } from './jobs/queue.js';
import type { Metrics } from './lib/metrics.js';
import type { StreamStore } from './streams/store.js';
import type { StreamWriter } from './streams/writer.js';

/**
 * What a server process holds open before any module exists, and any module may use: storage,
 * the bus and the fan-out, the job queue, counters, the logger. `runtime.ts` opens it; each
 * module's `module.ts` builds the module over it (its stores, its service, its job kinds and
 * listeners), given the services of the modules it depends on.
 */
export interface Core {
  config: Config;
  db: Db;
  engine: Engine;
  /** the per-request lookups, prepared once */
  reads: RequestReads;
  bus: EventBus;
  fanout: Fanout;
  jobs: JobQueue;
  /** the recorded streams, and their batching writer */
  streams: StreamStore;
  writer: StreamWriter;
  /** where export files and storyboards are kept: the bucket when configured, else DATA_DIR */
  blobs: BlobStore;
  counters: Counters;
  log: FastifyBaseLogger;
  /** the Prometheus metrics, kept only when METRICS_PORT is set */
  metrics: Metrics | null;
  /** this process's id among the processes sharing storage */
  nodeId: string;
}
