import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { openDatabase } from '../src/db/open.js';
import { ENGINE, PG_URL } from './support/app.js';
import { dropPgSchema, processStorage } from './support/process.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** Fresh storage of the engine under test, as a server is pointed at it (DATA_DIR, DATABASE_URL). */
async function freshStorage(): Promise<{ databaseUrl: string | null; dataDir: string }> {
  const env = await processStorage('mig', cleanups);
  return { databaseUrl: env.DATABASE_URL ?? null, dataDir: env.DATA_DIR! };
}

/** A bare Kysely handle on that storage, as an earlier release (or another tool) would open it. */
function bare(storage: { databaseUrl: string | null; dataDir: string }): Kysely<any> {
  if (!storage.databaseUrl) {
    return new Kysely({
      dialect: new SqliteDialect({ database: new SQLite(join(storage.dataDir, 'vss.sqlite')) }),
    });
  }
  return new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: storage.databaseUrl, max: 2 }) }),
  });
}

async function recorded(db: Kysely<any>): Promise<Array<{ name: string; timestamp: string }>> {
  return (
    await sql<{
      name: string;
      timestamp: string;
    }>`select name, timestamp from kysely_migration order by name`.execute(db)
  ).rows;
}

describe('migrations', () => {
  const all = migrations(ENGINE);
  const names = Object.keys(all).sort();

  it("go on where an earlier release, migrating with Kysely's Migrator, stopped", async () => {
    const storage = await freshStorage();
    const early = bare(storage);
    const firstTwelve = Object.fromEntries(names.slice(0, 12).map((n) => [n, all[n]!]));
    // As earlier releases ran it: on PostgreSQL with its tables in the schema in use.
    const migrationTableSchema = storage.databaseUrl
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(early)).rows[0]!.s
      : undefined;
    const migrator = new Migrator({
      db: early,
      provider: { getMigrations: async () => firstTwelve },
      ...(migrationTableSchema ? { migrationTableSchema } : {}),
    });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await early.insertInto('orgs').values({ id: 'o-early', name: 'Early', created_at: 1 }).execute();
    const before = await recorded(early);
    await early.destroy();

    const database = await openDatabase(storage);
    try {
      const after = await recorded(database.db as Kysely<any>);
      expect(after.map((r) => r.name)).toEqual(names);
      // What ran before is kept as it was recorded; only the two later ones ran now.
      expect(after.slice(0, 12)).toEqual(before);
      expect(
        await database.db.selectFrom('orgs').select('name').where('id', '=', 'o-early').execute(),
      ).toEqual([{ name: 'Early' }]);
    } finally {
      await database.close();
    }
  });

  it('refuse a database a newer release migrated, naming the migration, and change nothing', async () => {
    const storage = await freshStorage();
    const first = await openDatabase(storage);
    await sql`insert into kysely_migration (name, timestamp) values ('999-later', '2027-01-01T00:00:00.000Z')`.execute(
      first.db,
    );
    const before = await recorded(first.db as Kysely<any>);
    await first.close();

    await expect(openDatabase(storage)).rejects.toThrow(
      "database migration 999-later is not one of this release's: the database was migrated by a newer release",
    );
    const db = bare(storage);
    try {
      expect(await recorded(db)).toEqual(before);
    } finally {
      await db.destroy();
    }
  });

  it('leave nothing of a run behind when one fails, and name it', async () => {
    const db = bare(await freshStorage());
    const failing: Record<string, Migration> = {
      '001-first': { up: (d) => d.schema.createTable('first_table').addColumn('id', 'text').execute() },
      '002-second': {
        up: async (d) => {
          await d.schema.createTable('second_table').addColumn('id', 'text').execute();
          throw new Error('the disk is full');
        },
      },
    };
    try {
      await expect(migrateToLatest(db, ENGINE, failing)).rejects.toThrow(
        'database migration 002-second failed: the disk is full',
      );
      const tables =
        ENGINE === 'postgres'
          ? await sql<{
              t: string | null;
            }>`select to_regclass('first_table')::text as t union all select to_regclass('kysely_migration')::text`.execute(
              db,
            )
          : await sql<{
              t: string;
            }>`select name as t from sqlite_master where name in ('first_table', 'kysely_migration')`.execute(
              db,
            );
      expect(tables.rows.filter((r) => r.t)).toEqual([]);
      // Fixed, the run goes through.
      failing['002-second'] = {
        up: (d) => d.schema.createTable('second_table').addColumn('id', 'text').execute(),
      };
      await migrateToLatest(db, ENGINE, failing);
      expect((await recorded(db)).map((r) => r.name)).toEqual(['001-first', '002-second']);
    } finally {
      await db.destroy();
    }
  });
});

describe.runIf(ENGINE === 'postgres')('migrations on a PostgreSQL database shared with others', () => {
  it('start a server while other schemas of the database are made and dropped', async () => {
    // Another tenant of the database makes and drops schemas of many tables the whole time.
    const other = new pg.Client({ connectionString: PG_URL });
    await other.connect();
    const churnName = `churn_${Math.random().toString(36).slice(2, 8)}`;
    let starting = true;
    let cycles = 0;
    const churn = (async () => {
      while (starting) {
        const s = `${churnName}_${cycles++}`;
        const tables = Array.from(
          { length: 30 },
          (_, i) => `create table "${s}".t${i} (id serial primary key, a text);`,
        );
        await other.query(`create schema "${s}"; ${tables.join(' ')}`);
        await other.query(`drop schema "${s}" cascade`);
      }
    })();
    const failures: string[] = [];
    try {
      // Each start reads the catalog while schemas vanish; before, about one in five failed.
      for (let i = 0; i < 20; i++) {
        const storage = await freshStorage();
        try {
          const database = await openDatabase(storage);
          await database.close();
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    } finally {
      starting = false;
      await churn;
      await other.end();
    }
    expect(cycles).toBeGreaterThan(1);
    expect(failures).toEqual([]);
  });

  it('let two servers starting at once on a new schema migrate it once', async () => {
    // Through the option that also makes the schema (tests' apps use it), so that both race on that too.
    const pgSchema = `mig_${Math.random().toString(36).slice(2, 10)}`;
    cleanups.push(() => dropPgSchema(PG_URL, pgSchema));
    const options = { databaseUrl: PG_URL, dataDir: (await freshStorage()).dataDir, pgSchema };
    const [one, two] = await Promise.all([openDatabase(options), openDatabase(options)]);
    try {
      expect((await recorded(one.db as Kysely<any>)).map((r) => r.name)).toEqual(
        Object.keys(migrations('postgres')).sort(),
      );
    } finally {
      await one.close();
      await two.close();
    }
  });
});
