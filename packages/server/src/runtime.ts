import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { DestinationStream } from 'pino';
import { EventBus } from './bus/events.js';
import { memoryFanout, redisFanout, type Fanout } from './bus/fanout.js';
import type { Config } from './config.js';
import type { Counters } from './counters/counter.js';
import { memoryCounters } from './counters/memory.js';
import { redisCounters } from './counters/redis.js';
import { openDatabase, type Database } from './db/open.js';
import { StorageWatch } from './db/storage-watch.js';
import { Idempotency } from './http/idempotency.js';
import { openLogger, type ProcessLogger } from './lib/logger.js';
import { Metrics, serveMetrics } from './lib/metrics.js';
import { metricSources, readiness } from './operations.js';
import type { Core } from './core.js';
import type { SessionHub } from './modules/live/hub.js';
import { diskBlobStore } from './blobs/disk.js';
import { s3BlobStore } from './blobs/s3.js';
import { postgresStreamStore } from './streams/postgres.js';
import { sqliteStreamStore } from './streams/sqlite.js';
import type { StreamStore } from './streams/store.js';
import { StreamWriter } from './streams/writer.js';
import { JobQueue } from './jobs/queue.js';
import type { AccountsService } from './modules/accounts/service.js';
import { accountsModule } from './modules/accounts/module.js';
import type { AgentsService } from './modules/agents/service.js';
import type { OAuthService } from './modules/agents/oauth.js';
import { agentsModule } from './modules/agents/module.js';
import type { BillingService } from './modules/billing/service.js';
import { billingModule } from './modules/billing/module.js';
import type { AutoExportService } from './modules/exports/auto-export.js';
import type { ExportsService } from './modules/exports/service.js';
import type { StoryboardsService } from './modules/exports/storyboard-jobs.js';
import { exportsModule } from './modules/exports/module.js';
import type { GuestsService } from './modules/guests/service.js';
import { guestsModule } from './modules/guests/module.js';
import type { InvitationsService } from './modules/invitations/service.js';
import { invitationsModule } from './modules/invitations/module.js';
import type { KeysService } from './modules/keys/service.js';
import { keysModule } from './modules/keys/module.js';
import type { LiveService } from './modules/live/service.js';
import { liveModule } from './modules/live/module.js';
import type { MembersService } from './modules/members/service.js';
import { membersModule } from './modules/members/module.js';
import type { ProjectsService } from './modules/projects/service.js';
import { projectsModule } from './modules/projects/module.js';
import type { RecordingsService } from './modules/recordings/service.js';
import { recordingsModule } from './modules/recordings/module.js';
import type { SessionsService } from './modules/sessions/service.js';
import { sessionsModule } from './modules/sessions/module.js';
import type { WebhooksService } from './modules/webhooks/service.js';
import { webhooksModule } from './modules/webhooks/module.js';
import { MINUTE_MS } from './lib/time.js';

/** Every capability's service, built once per app in dependency order (app.ts). */
export interface Services {
  accounts: AccountsService;
  members: MembersService;
  projects: ProjectsService;
  keys: KeysService;
  sessions: SessionsService;
  invitations: InvitationsService;
  live: LiveService;
  guests: GuestsService;
  recordings: RecordingsService;
  webhooks: WebhooksService;
  exports: ExportsService;
  autoExport: AutoExportService;
  storyboards: StoryboardsService;
  billing: BillingService;
  agents: AgentsService;
  oauth: OAuthService;
}

/** Everything a server process holds open: storage, counters, the bus and the services over them. */
export interface Runtime {
  config: Config;
  database: Database;
  /** whether the data directory and database files are still the ones opened */
  storage: StorageWatch;
  counters: Counters;
  bus: EventBus;
  idempotency: Idempotency;
  services: Services;
  logger: FastifyBaseLogger;
  /** the logger's destination, for lines built by hand (the access log) */
  log: ProcessLogger;
  /** this process's id among the processes sharing storage (live fan-out, presence) */
  nodeId: string;
  streams: StreamStore;
  writer: StreamWriter;
  fanout: Fanout;
  hub: SessionHub;
  jobs: JobQueue;
  /** the Prometheus metrics, kept only when METRICS_PORT is set */
  metrics: Metrics | null;
  /** the port `/metrics` is served on (METRICS_PORT, or the one chosen for 0); null without metrics */
  metricsPort: number | null;
  /**
   * Why this process cannot take work now (`draining`, `database unavailable`, `redis
   * unavailable`, `storage unavailable: …`, `storage not writable: …`), or null when it can.
   */
  unready(): Promise<string | null>;
  /**
   * A graceful stop's first part: readiness fails at once; live participants are sent to another
   * server once what they published is acknowledged or refused; running jobs finish, or are
   * released to another worker, by `deadline` (epoch ms). The HTTP server keeps answering
   * meanwhile; close it, then close().
   */
  drain(deadline: number): Promise<void>;
  /** Stops timers and closes connections; the HTTP server must already be closed. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** PostgreSQL schema (tests give each app its own) */
  pgSchema?: string;
  /** how often the job worker looks for due jobs enqueued elsewhere (default 1 s) */
  jobPollMs?: number;
  /** where log lines go (default: standard output); tests read them from here */
  logDestination?: DestinationStream;
}

const SWEEP_INTERVAL_MS = 10 * MINUTE_MS;

/** Opens storage (migrating it), connects counters and wires the services in dependency order. */
export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgSchema: options.pgSchema,
  });
  const { db } = database;
  const log = openLogger(config.logLevel, options.logDestination, config.logFormat);
  const metrics = config.metricsPort === null ? null : new Metrics();
  const logger: FastifyBaseLogger = log.logger;
  const nodeId = randomBytes(6).toString('hex');
  // Rate limits outlive a Redis outage, counted in this process; said once a minute while it lasts.
  let warnedAt = 0;
  const counters = config.redisUrl
    ? redisCounters(config.redisUrl, config.redisKeyPrefix, (reason) => {
        metrics?.rateLimitLocal.inc();
        if (Date.now() - warnedAt < MINUTE_MS) return;
        warnedAt = Date.now();
        logger.warn(
          { reason },
          'redis unavailable: rate limits are counted in this process alone until it is back',
        );
      })
    : memoryCounters();
  // Object storage, when configured: sealed recordings and export files, shared by every process.
  const bucket = config.s3 ? s3BlobStore(config.s3) : null;
  const streams = database.pgPool
    ? postgresStreamStore(
        database.pgPool,
        bucket && { objects: bucket, cacheDir: join(config.dataDir, 'segments') },
      )
    : sqliteStreamStore(config.dataDir, { objects: bucket });
  // DATA_DIR and what in it the next start needs: the SQLite files, and the kept root secret.
  const storage = new StorageWatch(
    config.dataDir,
    [...database.files, ...streams.files, ...(config.secretFile ? [config.secretFile] : [])],
    logger,
  );
  const writer = new StreamWriter(streams, () => storage.assertWritable(), metrics);
  const fanout = config.redisUrl
    ? redisFanout(config.redisUrl, config.redisKeyPrefix, nodeId)
    : memoryFanout();
  const bus = new EventBus();
  const idempotency = new Idempotency(db, database.engine, config.keys.tokens);
  const jobs = new JobQueue({
    db,
    engine: database.engine,
    owner: nodeId,
    log: logger,
    pollMs: options.jobPollMs,
    metrics,
    // With Redis, a process that enqueues wakes the workers of the others at once.
    announce: config.redisUrl ? () => fanout.notify({ name: 'jobs.queued' }) : undefined,
  });
  if (config.redisUrl)
    void fanout.onNotice((n) => {
      if (n.name === 'jobs.queued') jobs.wake();
    });

  const blobs = bucket ?? diskBlobStore(config.dataDir);
  const core: Core = {
    ...{ config, db, engine: database.engine, reads: database.reads, bus, fanout, jobs, streams, writer },
    ...{ blobs, counters, log: logger, metrics, nodeId },
  };

  // Each module builds itself over the core, given the services of those it depends on: in this
  // order, so that a dependency always exists before its dependants (it never runs back).
  const projects = projectsModule(core);
  const billing = billingModule(core, { projects });
  const sessions = sessionsModule(core, { projects, billing });
  const { hub, live, close: closeLive } = liveModule(core, { sessions, billing });
  const accounts = accountsModule(core, { projects });
  const recordings = recordingsModule(core, { hub, sessions, billing });
  const services: Services = {
    ...{ projects, billing, sessions, live, accounts, recordings },
    members: membersModule(core),
    keys: keysModule(core, { projects }),
    invitations: invitationsModule(core, { accounts, projects }),
    guests: guestsModule(core, { sessions, live }),
    webhooks: webhooksModule(core, { projects }),
    ...exportsModule(core, { projects, sessions, hub, billing, recordings }),
    ...agentsModule(core, { projects }),
  };
  if (config.jobWorker) jobs.start();

  // Housekeeping: forget expired idempotency answers, login sessions, old webhook events and failed jobs.
  const sweep = setInterval(() => {
    void Promise.allSettled([
      idempotency.sweep(),
      services.accounts.sweep(),
      services.webhooks.sweep(),
      jobs.sweep(),
      services.billing.sweep(),
      services.oauth.sweep(),
    ]);
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  const metricsServer = metrics
    ? (Object.assign(metrics.sources, metricSources(hub, database, nodeId)),
      await serveMetrics(metrics, config.metricsPort!, config.host))
    : null;
  let draining = false;

  return {
    config,
    database,
    storage,
    counters,
    bus,
    idempotency,
    services,
    logger,
    log,
    nodeId,
    streams,
    writer,
    fanout,
    hub,
    jobs,
    metrics,
    metricsPort: metricsServer?.port ?? null,
    unready: readiness({
      dataDir: config.dataDir,
      database,
      storage,
      redis: config.redisUrl ? fanout : null,
      draining: () => draining,
    }),
    async drain(deadline) {
      draining = true;
      await hub.drain(deadline);
      // Jobs under way finish by the deadline, less a second to release the others and close.
      await jobs.stop(Math.max(0, deadline - Date.now() - 1000));
      await writer.flush();
    },
    async close() {
      clearInterval(sweep);
      await metricsServer?.close();
      storage.close();
      await hub.close();
      await jobs.stop();
      await writer.flush();
      // After the hub closed its connections and the last frames are written: their minutes and
      // bytes are recorded before storage closes.
      await billing.close();
      await Promise.allSettled([fanout.close(), closeLive(), counters.close()]);
      // On PostgreSQL the stream store shares the metadata pool: closing the database closes both.
      if (!database.pgPool) await streams.close();
      await database.close();
      await bucket?.close();
      await log.drain();
    },
  };
}
