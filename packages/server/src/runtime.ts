import { EventBus } from './bus/events.js';
import type { Config } from './config.js';
import type { Counters } from './counters/counter.js';
import { memoryCounters } from './counters/memory.js';
import { redisCounters } from './counters/redis.js';
import { openDatabase, type Database } from './db/open.js';
import { Idempotency } from './http/idempotency.js';
import { accountsService } from './modules/accounts/service.js';
import { accountsStore } from './modules/accounts/store.js';
import { openGate, type UsageGate } from './modules/billing/gate.js';
import type { Services } from './modules/deps.js';
import { invitationsService } from './modules/invitations/service.js';
import { invitationsStore } from './modules/invitations/store.js';
import { keysService } from './modules/keys/service.js';
import { keysStore } from './modules/keys/store.js';
import { membersService } from './modules/members/service.js';
import { membersStore } from './modules/members/store.js';
import { projectsService } from './modules/projects/service.js';
import { projectsStore } from './modules/projects/store.js';
import { sessionsService } from './modules/sessions/service.js';
import { sessionsStore } from './modules/sessions/store.js';

/** Everything a server process holds open: storage, counters, the bus and the services over them. */
export interface Runtime {
  config: Config;
  database: Database;
  counters: Counters;
  bus: EventBus;
  idempotency: Idempotency;
  services: Services;
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
  const bus = new EventBus();
  const idempotency = new Idempotency(db, database.engine, config.keys.tokens);

  const accountsSql = accountsStore(db);
  const projects = projectsService({ store: projectsStore(db) });
  const services: Services = {
    projects,
    accounts: accountsService({ config, db, store: accountsSql, counters, projects }),
    members: membersService({ store: membersStore(db, database.engine) }),
    keys: keysService({ config, store: keysStore(db), projects }),
    sessions: sessionsService({
      db,
      store: sessionsStore(db),
      projects,
      bus,
      gate: options.gate ?? openGate,
    }),
    invitations: invitationsService({
      config,
      db,
      engine: database.engine,
      store: invitationsStore(db),
      accounts: accountsSql,
      projects,
    }),
  };

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
    async close() {
      clearInterval(sweep);
      await counters.close();
      await database.close();
    },
  };
}
