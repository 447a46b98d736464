import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';
import { requestReads, type RequestReads } from './request-reads.js';
import { shareCommits } from './transaction.js';
import type { Db, Engine, Tables } from './types.js';

/** An open metadata database: the Kysely handle, its engine and how to check and close it. */
export interface Database {
  db: Db;
  engine: Engine;
  /** the PostgreSQL pool behind `db` (the stream store writes through it directly) */
  pgPool?: pg.Pool;
  /** The per-request lookups, prepared once (request-reads.ts). */
  reads: RequestReads;
  /** The files it keeps in DATA_DIR, whose loss loses it: the SQLite file; none on PostgreSQL. */
  files: readonly string[];
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** `postgres://…`, or null for the embedded SQLite file in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL schema to use (tests give each app its own); created when missing. */
  pgSchema?: string;
  /** SQLite file name inside dataDir. */
  sqliteFile?: string;
}

/** int8 (bigint) comes back as a JS number: every bigint we store is a millisecond timestamp or a count. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** Opens the metadata database of the configuration and brings its schema up to date. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  let database: Omit<Database, 'reads' | 'files'>;
  let files: string[] = [];
  if (options.databaseUrl) {
    const schema = options.pgSchema;
    if (schema) {
      const admin = new pg.Client({ connectionString: options.databaseUrl });
      await admin.connect();
      try {
        await admin.query(`create schema if not exists "${schema.replace(/"/g, '')}"`);
      } catch (error) {
        // Two opening the same new schema at once: "if not exists" does not keep the second from
        // failing on the catalog's unique name; the schema is there, which is all this asks.
        if ((error as { code?: string }).code !== '23505') throw error;
      } finally {
        await admin.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      types: pgTypes,
      ...(schema ? { options: `-c search_path="${schema.replace(/"/g, '')}"` } : {}),
    });
    // A client losing its server must not crash the process: an idle one is reported on the pool,
    // one in use on itself (its query fails on its own); the next query reconnects.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    database = {
      db,
      engine: 'postgres',
      pgPool: pool,
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      close: () => db.destroy(),
    };
  } else {
    const file = join(options.dataDir, options.sqliteFile ?? 'vss.sqlite');
    const sqlite = new SQLite(file);
    files = [file];
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // Deleted content is overwritten, so that redacted media is gone from the file, not merely unlinked.
    sqlite.pragma('secure_delete = ON');
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
    // One write connection: concurrent transactions share its commits.
    shareCommits(db);
    database = {
      db,
      engine: 'sqlite',
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      close: () => db.destroy(),
    };
  }
  try {
    await migrateToLatest(database.db, database.engine, migrations(database.engine));
  } catch (error) {
    await database.close();
    throw error;
  }
  // Opened after migrating: the SQLite read connection needs the file and its tables to exist.
  const reads = requestReads(
    database.engine,
    database.db,
    options.dataDir,
    options.sqliteFile ?? 'vss.sqlite',
  );
  const close = database.close;
  return {
    ...database,
    reads,
    files,
    close: async () => {
      reads.close();
      await close();
    },
  };
}

/**
 * better-sqlite3 behind Kysely, with prepared statements kept by SQL text: Kysely prepares every
 * query anew, which costs more than running it. Safe because Kysely's connection mutex never runs
 * two queries on the connection at once. Bounded: the statement texts of a build are finite.
 */
function cachingStatements(sqlite: SQLite.Database): {
  prepare(sql: string): SQLite.Statement;
  close(): void;
} {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(text) {
      let stmt = cache.get(text);
      if (!stmt) {
        if (cache.size >= 1000) cache.clear();
        stmt = sqlite.prepare(text);
        cache.set(text, stmt);
      }
      return stmt;
    },
    close: () => sqlite.close(),
  };
}

/** True when the error is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
