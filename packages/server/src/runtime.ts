import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { EventBus } from './bus/events.js';
import { memoryFanout, redisFanout, type Fanout } from './bus/fanout.js';
import type { Config } from './config.js';
import type { Counters } from './counters/counter.js';
import { memoryCounters } from './counters/memory.js';
import { redisCounters } from './counters/redis.js';
import { openDatabase, type Database } from './db/open.js';
import { Idempotency } from './http/idempotency.js';
import { loggerRedaction } from './http/logging.js';
import { SessionHub } from './modules/live/hub.js';
import { memorySequencer, redisSequencer } from './modules/live/sequencer.js';
import { liveService } from './modules/live/service.js';
import { recordingsService } from './modules/recordings/service.js';
import { connectionTokens } from './modules/live/token.js';
import { postgresStreamStore } from './streams/postgres.js';
import { sqliteStreamStore } from './streams/sqlite.js';
import type { StreamStore } from './streams/store.js';
import { StreamWriter } from './streams/writer.js';
import { accountsService } from './modules/accounts/service.js';
import { accountsStore } from './modules/accounts/store.js';
import { openGate, type UsageGate } from './modules/billing/gate.js';
import type { Services } from './modules/deps.js';
import { invitationsService } from './modules/invitations/service.js';
import { invitationsStore } from './modules/invitations/store.js';
import { keysService, type Revocations } from './modules/keys/service.js';
import { keysStore } from './modules/keys/store.js';
import { membersService } from './modules/members/service.js';
import { membersStore } from './modules/members/store.js';
import { projectsService } from './modules/projects/service.js';
import { projectsStore } from './modules/projects/store.js';
import { sessionsService } from './modules/sessions/service.js';
import { sessionsStore } from './modules/sessions/store.js';

/** Key revocations travel on the fan-out's `system` channel: every process evicts its cached key. */
function keyRevocations(fanout: Fanout): Revocations {
  return {
    publish: (keyId) =>
      fanout.publish('system', {
        kind: 'control',
        fromConn: '',
        event: 'key.revoked',
        data: { id: keyId },
        timestampMs: Date.now(),
      }),
    subscribe: (handler) =>
      void fanout.subscribe('system', (m) => {
        if (m.event === 'key.revoked' && typeof m.data?.id === 'string') handler(m.data.id);
      }),
  };
}

/** Everything a server process holds open: storage, counters, the bus and the services over them. */
export interface Runtime {
  config: Config;
  database: Database;
  counters: Counters;
  bus: EventBus;
  idempotency: Idempotency;
  services: Services;
  logger: FastifyBaseLogger;
  /** this process's id among the processes sharing storage (live fan-out, presence) */
  nodeId: string;
  streams: StreamStore;
  writer: StreamWriter;
  fanout: Fanout;
  hub: SessionHub;
  /** Stops timers and closes connections; the HTTP server must already be closed. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** PostgreSQL schema (tests give each app its own) */
  pgSchema?: string;
  gate?: UsageGate;
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
  const logger: FastifyBaseLogger = pino({ level: config.logLevel, redact: loggerRedaction });
  const nodeId = randomBytes(6).toString('hex');
  const streams = database.pgPool ? postgresStreamStore(database.pgPool) : sqliteStreamStore(config.dataDir);
  const writer = new StreamWriter(streams);
  const fanout = config.redisUrl ? redisFanout(config.redisUrl, nodeId) : memoryFanout();
  const sequencer = config.redisUrl ? redisSequencer(config.redisUrl, streams) : memorySequencer(streams);
  const gate = options.gate ?? openGate;
  const bus = new EventBus();
  const idempotency = new Idempotency(db, database.engine, config.keys.tokens);

  const hub = new SessionHub({
    db,
    bus,
    fanout,
    sequencer,
    writer,
    nodeId,
    departureTimeoutMs: config.sessionDepartureTimeoutS * 1000,
    log: logger,
  });
  const accountsSql = accountsStore(db);
  const projects = projectsService({ store: projectsStore(db), hot: database.hot });
  const sessions = sessionsService({ db, hot: database.hot, store: sessionsStore(db), projects, bus, gate });
  const services: Services = {
    projects,
    sessions,
    accounts: accountsService({ config, db, store: accountsSql, counters, projects }),
    members: membersService({ store: membersStore(db, database.engine) }),
    keys: keysService({
      config,
      store: keysStore(db),
      projects,
      hot: database.hot,
      revocations: keyRevocations(fanout),
    }),
    invitations: invitationsService({
      config,
      db,
      engine: database.engine,
      store: invitationsStore(db),
      accounts: accountsSql,
      projects,
    }),
    live: liveService({ db, sessions, tokens: connectionTokens(config.keys.jwt), gate }),
    recordings: recordingsService({ config, db, bus, store: streams, writer, hub, sessions }),
  };
  // Once a session has ended, its recording is announced (this process won the end, so it alone does).
  bus.on('session.ended', (e) => {
    void services.recordings
      .finalize(e.sessionId!, e.orgId, e.projectId)
      .catch((err) => logger.error({ err }, 'recording.ready failed'));
  });

  // Housekeeping: forget expired idempotency answers and login sessions.
  const sweep = setInterval(() => {
    void Promise.allSettled([idempotency.sweep(), services.accounts.sweep()]);
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  return {
    config,
    database,
    counters,
    bus,
    idempotency,
    services,
    logger,
    nodeId,
    streams,
    writer,
    fanout,
    hub,
    async close() {
      clearInterval(sweep);
      await hub.close();
      await writer.flush();
      await Promise.allSettled([fanout.close(), sequencer.close(), counters.close()]);
      // On PostgreSQL the stream store shares the metadata pool: closing the database closes both.
      if (!database.pgPool) await streams.close();
      await database.close();
    },
  };
}
