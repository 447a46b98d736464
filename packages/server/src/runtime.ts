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
import type { Db, Trx } from './db/types.js';
import { StorageWatch } from './db/storage-watch.js';
import { Idempotency } from './http/idempotency.js';
import { openLogger, type ProcessLogger } from './lib/logger.js';
import { Metrics, serveMetrics } from './lib/metrics.js';
import { metricSources, readiness } from './operations.js';
import { SessionHub } from './modules/live/hub.js';
import { memorySequencer, redisSequencer } from './modules/live/sequencer.js';
import { guestsService, type GuestsService } from './modules/guests/service.js';
import { guestsStore } from './modules/guests/store.js';
import { liveService, type LiveService } from './modules/live/service.js';
import { recordingsService, type RecordingsService } from './modules/recordings/service.js';
import { recordingsStore } from './modules/recordings/store.js';
import { recordingsJobs } from './modules/recordings/jobs.js';
import { connectionTokens } from './modules/live/token.js';
import { diskBlobStore } from './blobs/disk.js';
import { s3BlobStore } from './blobs/s3.js';
import { postgresStreamStore } from './streams/postgres.js';
import { sqliteStreamStore } from './streams/sqlite.js';
import type { StreamStore } from './streams/store.js';
import { StreamWriter } from './streams/writer.js';
import { accountsService, type AccountsService } from './modules/accounts/service.js';
import { accountsStore } from './modules/accounts/store.js';
import { billingService, type BillingService } from './modules/billing/service.js';
import { agentsService, type AgentsService } from './modules/agents/service.js';
import { agentsStore } from './modules/agents/store.js';
import { oauthService, type OAuthService } from './modules/agents/oauth.js';
import { oauthStore } from './modules/agents/oauth-store.js';
import { billingProvider } from './modules/billing/provider.js';
import { invitationsService, type InvitationsService } from './modules/invitations/service.js';
import { invitationsStore } from './modules/invitations/store.js';
import { keysService, type Revocations, type KeysService } from './modules/keys/service.js';
import { keysStore } from './modules/keys/store.js';
import { membersService, type MembersService } from './modules/members/service.js';
import { membersStore } from './modules/members/store.js';
import { projectsService, type ProjectsService } from './modules/projects/service.js';
import { projectsStore } from './modules/projects/store.js';
import { sessionsService, type SessionsService } from './modules/sessions/service.js';
import { sessionsStore } from './modules/sessions/store.js';
import { webhooksService, type WebhooksService } from './modules/webhooks/service.js';
import { webhooksStore } from './modules/webhooks/store.js';
import { deliveryJob } from './modules/webhooks/jobs.js';
import { JobQueue } from './jobs/queue.js';
import { findFfmpeg } from './modules/exports/ffmpeg.js';
import { exportFiles } from './modules/exports/files.js';
import { both } from './lib/both.js';
import { renderJob } from './modules/exports/jobs.js';
import { exportsService, type ExportsService } from './modules/exports/service.js';
import { autoExportService, type AutoExportService } from './modules/exports/auto-export.js';
import { exportsStore } from './modules/exports/store.js';
import { storyboardsService, type StoryboardsService } from './modules/exports/storyboard-jobs.js';

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

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Opens storage (migrating it), connects counters and wires the services in dependency order. */
export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgSchema: options.pgSchema,
  });
  const counters = config.redisUrl ? redisCounters(config.redisUrl) : memoryCounters();
  const { db } = database;
  const log = openLogger(config.logLevel, options.logDestination, config.logFormat);
  const metrics = config.metricsPort === null ? null : new Metrics();
  const logger: FastifyBaseLogger = log.logger;
  const nodeId = randomBytes(6).toString('hex');
  // Object storage, when configured: sealed recordings and export files, shared by every process.
  const bucket = config.s3 ? s3BlobStore(config.s3) : null;
  const streams = database.pgPool
    ? postgresStreamStore(
        database.pgPool,
        bucket && { objects: bucket, cacheDir: join(config.dataDir, 'segments') },
      )
    : sqliteStreamStore(config.dataDir, undefined, { objects: bucket });
  // DATA_DIR and what in it the next start needs: the SQLite files, and the kept root secret.
  const storage = new StorageWatch(
    config.dataDir,
    [...database.files, ...streams.files, ...(config.secretFile ? [config.secretFile] : [])],
    logger,
  );
  const writer = new StreamWriter(streams, () => storage.assertWritable(), metrics);
  const fanout = config.redisUrl ? redisFanout(config.redisUrl, nodeId) : memoryFanout();
  const sequencer = config.redisUrl ? redisSequencer(config.redisUrl, streams) : memorySequencer(streams);
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

  const projects = projectsService({ store: projectsStore(db), reads: database.reads });
  // Exports are built after billing, which asks them for their files' bytes.
  let exportBytes: (sessionId: string, q: Db | Trx) => Promise<number> = async () => 0;
  const billing = billingService({
    config,
    db,
    engine: database.engine,
    streams,
    exportBytes: (sessionId, q) => exportBytes(sessionId, q),
    projects,
    provider: billingProvider(config),
    bus,
    nodeId,
    log: logger,
    metrics,
  });
  const { gate } = billing;
  const hub = new SessionHub({
    db,
    bus,
    fanout,
    sequencer,
    writer,
    nodeId,
    departureTimeoutMs: config.sessionDepartureTimeoutS * 1000,
    ingestLimitBytes: config.liveIngestBufferBytes,
    clockSkewMs: config.liveClockSkewMs,
    storageAllowance: (orgId) => gate.storageAllowance(orgId),
    meter: billing.meter,
    log: logger,
    metrics,
  });
  const accountsSql = accountsStore(db);
  const sessions = sessionsService({
    db,
    reads: database.reads,
    store: sessionsStore(db),
    projects,
    bus,
    gate,
  });
  const exportSql = exportsStore(db);
  const blobs = bucket ?? diskBlobStore(config.dataDir);
  const files = exportFiles(config.dataDir, blobs);
  const ffmpeg = findFfmpeg(config, logger)?.path ?? null;
  const exports = exportsService({
    config,
    files,
    db,
    store: exportSql,
    streams,
    sessions,
    projects,
    bus,
    live: hub,
    jobs,
    gate,
    log: logger,
  });
  exportBytes = (sessionId, q) => exports.storedBytes(sessionId, q);
  const webhooks = webhooksStore(db);
  const live = liveService({ db, sessions, tokens: connectionTokens(config.keys.jwt), gate, hub });
  const accounts = accountsService({ config, db, store: accountsSql, counters, projects });
  const services: Services = {
    projects,
    sessions,
    accounts,
    members: membersService({ store: membersStore(db, database.engine) }),
    keys: keysService({
      config,
      store: keysStore(db),
      projects,
      reads: database.reads,
      revocations: keyRevocations(fanout),
    }),
    invitations: invitationsService({
      config,
      db,
      engine: database.engine,
      store: invitationsStore(db),
      accounts,
      projects,
    }),
    live,
    guests: guestsService({ config, db, store: guestsStore(db), sessions, live, counters }),
    recordings: recordingsService({
      config,
      db,
      bus,
      streams,
      store: recordingsStore(db),
      writer,
      live: hub,
      sessions,
      // A session's storyboard goes with its exports, and is made again when they are withdrawn:
      // the exports first (what still shows a redacted person must go), and both attempted.
      deleteExports: (id) =>
        both(exports.deleteOfSession(id), () => services.storyboards.deleteOfSession(id)),
      withdrawExports: (id, user) =>
        both(exports.withdrawAfterRedaction(id, user), () => services.storyboards.remake(id)),
      storageChanged: (sessionId) => billing.syncStorage(sessionId),
    }),
    webhooks: webhooksService({ config, db, store: webhooks, projects, bus, jobs }),
    exports,
    autoExport: autoExportService({ db, projects, exports, bus, gate, log: logger }),
    storyboards: storyboardsService({
      ...{ config, db, blobs, streams, bus, jobs, ffmpeg, sessions, log: logger },
      recordings: () => services.recordings,
    }),
    billing,
    agents: agentsService({ config, store: agentsStore(db), projects }),
    oauth: oauthService({ config, db, store: oauthStore(db), projects }),
  };
  // Each module declares its jobs; the queue runs them.
  for (const kind of recordingsJobs({ config, bus, jobs, writer, recordings: services.recordings }))
    jobs.register(kind);
  jobs.register(deliveryJob({ config, store: webhooks, metrics }));
  jobs.register(renderJob({ config, ffmpeg, store: exportSql, streams, files, bus, log: logger, metrics }));
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
      await Promise.allSettled([fanout.close(), sequencer.close(), counters.close()]);
      // On PostgreSQL the stream store shares the metadata pool: closing the database closes both.
      if (!database.pgPool) await streams.close();
      await database.close();
      await bucket?.close();
      await log.drain();
    },
  };
}
