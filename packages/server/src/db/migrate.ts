import { sql, type Migration } from 'kysely';
import type { Db, Engine, Trx } from './types.js';

/**
 * The table recording which migrations ran: Kysely's Migrator's own name and columns, so that a
 * database it migrated goes on where it stopped.
 */
const TABLE = 'kysely_migration';
/** The PostgreSQL advisory lock Kysely's Migrator takes: a server of an earlier release migrating
 * the same database at the same moment waits for this one, and the reverse. */
const LOCK = 3853314791062309107n;

/**
 * Brings the database up to date: runs, in name order and in one transaction, the migrations it
 * has not run yet, and records each. A server whose schema is current reads one table and takes
 * no lock; otherwise the servers starting at once take turns, and the first migrates.
 *
 * Written here rather than through Kysely's Migrator: its checks read the catalog of every schema
 * of the database and fail ("schema … does not exist") whenever another schema is dropped while
 * they read, so a server could not start beside a database whose other tenants come and go. This
 * reads nothing outside its own schema.
 *
 * Refuses a database that ran a migration this release does not know (a newer release migrated
 * it), or whose record skips one of ours, naming the migration; then nothing is changed. A
 * migration that fails leaves nothing of the run behind, and its name is in the error.
 */
export async function migrateToLatest(
  db: Db,
  engine: Engine,
  migrations: Readonly<Record<string, Migration>>,
): Promise<void> {
  const names = Object.keys(migrations).sort();
  if (pendingOf(names, await applied(db, engine)).length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(LOCK)})`.execute(trx);
    await sql`create table if not exists ${sql.table(TABLE)} (
      name varchar(255) not null primary key,
      timestamp varchar(255) not null
    )`.execute(trx);
    for (const name of pendingOf(names, await applied(trx, engine))) {
      try {
        await migrations[name]!.up(trx);
      } catch (error) {
        throw new Error(`database migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      await sql`insert into ${sql.table(TABLE)} (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
        trx,
      );
    }
  });
}

/** The migrations the database ran, in name order; none when it has no record yet. */
async function applied(db: Db | Trx, engine: Engine): Promise<string[]> {
  // Looked up in the schema in use only (PostgreSQL resolves the name along search_path).
  const exists =
    engine === 'postgres'
      ? (await sql<{ t: string | null }>`select to_regclass(${TABLE})::text as t`.execute(db)).rows[0]?.t
      : (
          await sql<{
            t: string;
          }>`select name as t from sqlite_master where type = 'table' and name = ${TABLE}`.execute(db)
        ).rows[0]?.t;
  if (!exists) return [];
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(TABLE)} order by name`.execute(
    db,
  );
  return rows.map((r) => r.name);
}

/** Those of `names` still to run, after checking that `done` is a beginning of them. */
function pendingOf(names: readonly string[], done: readonly string[]): string[] {
  const unknown = done.find((name) => !names.includes(name));
  if (unknown) {
    throw new Error(
      `database migration ${unknown} is not one of this release's: the database was migrated by a newer release`,
    );
  }
  const skipped = names.slice(0, done.length).find((name, i) => done[i] !== name);
  if (skipped) throw new Error(`database migration ${skipped} was skipped: migrations after it already ran`);
  return names.slice(done.length);
}
