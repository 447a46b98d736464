import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/open.js';
import { commitStats, onCommit, transaction } from '../src/db/transaction.js';
import { ENGINE } from './support/app.js';

/**
 * The embedded database's transactions share commits. What callers must still get: an answer only
 * once their own writes are committed, a failure of their own that takes nothing else down, and
 * nothing committed of a group whose commit failed.
 */
describe.skipIf(ENGINE !== 'sqlite')('transactions on the embedded database', () => {
  let dir: string;
  let database: Database;
  /** A second connection, as another reader of the file sees it. */
  let reader: SQLite.Database;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vss-group-'));
    database = await openDatabase({ databaseUrl: null, dataDir: dir });
    await sql`create table grouped_rows (id integer primary key, v text unique)`.execute(database.db);
    reader = new SQLite(join(dir, 'vss.sqlite'), { readonly: true });
  });
  afterAll(async () => {
    reader.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const committed = (id: number) =>
    reader.prepare('select count(*) as n from grouped_rows where id = ?').get(id) as { n: number };
  const insert = (trx: Parameters<Parameters<typeof transaction>[1]>[0], id: number, v: string) =>
    sql`insert into grouped_rows (id, v) values (${id}, ${v})`.execute(trx);

  it('share commits when they arrive together, answer each after its rows are committed, and fail alone', async () => {
    const before = commitStats(database.db)!;
    const seenAtCommit = new Map<number, number>();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        transaction(database.db, async (trx) => {
          await insert(trx, 100 + i, i === 12 ? 'v-100' : `v-${100 + i}`);
          onCommit(trx, () => seenAtCommit.set(i, committed(100 + i).n));
          if (i === 7) throw new Error('member 7 gives up');
          return i;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i === 7 || i === 12 ? 'rejected' : 'fulfilled')),
    );
    expect((results[7] as PromiseRejectedResult).reason.message).toBe('member 7 gives up');
    expect(String((results[12] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect((results[3] as PromiseFulfilledResult<number>).value).toBe(3);

    for (let i = 0; i < 20; i++)
      expect(committed(100 + i).n, `row of member ${i}`).toBe(i === 7 || i === 12 ? 0 : 1);
    // Each success was told after its row was visible to another connection; failures were never told.
    expect([...seenAtCommit.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 7 && i !== 12),
    );
    expect([...seenAtCommit.values()].every((n) => n === 1)).toBe(true);

    const after = commitStats(database.db)!;
    expect(after.transactions - before.transactions).toBe(20);
    expect(after.commits - before.commits).toBeLessThan(5);
  });

  it('roll back everything a transaction alone wrote when it fails', async () => {
    await expect(
      transaction(database.db, async (trx) => {
        await insert(trx, 200, 'v-200');
        await insert(trx, 201, 'v-201');
        throw new Error('alone, undone');
      }),
    ).rejects.toThrow('alone, undone');
    expect(committed(200).n + committed(201).n).toBe(0);
  });

  it('when a group cannot commit, fail only the member that caused it: the others run again and commit', async () => {
    const told: number[] = [];
    const results = await Promise.allSettled([
      transaction(database.db, async (trx) => {
        await insert(trx, 300, 'v-300');
        onCommit(trx, () => told.push(300));
      }),
      // A foreign key checked only at commit: the group's commit is refused.
      transaction(database.db, async (trx) => {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await sql`insert into sessions (id, project_id, name, created_by, is_public, created_at)
                  values ('no-project', 'missing', 'x', 'api_key', 0, 0)`.execute(trx);
      }),
      transaction(database.db, async (trx) => {
        await insert(trx, 301, 'v-301');
        onCommit(trx, () => told.push(301));
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(committed(300).n + committed(301).n).toBe(2);
    expect(told.sort()).toEqual([300, 301]);
    expect(reader.prepare("select count(*) as n from sessions where id = 'no-project'").get()).toEqual({
      n: 0,
    });
  });

  it("when a member's error ends the whole SQLite transaction, fail that member with its own error and nobody else", async () => {
    await transaction(database.db, (trx) => insert(trx, 400, 'taken'));
    const results = await Promise.allSettled([
      transaction(database.db, (trx) => insert(trx, 401, 'v-401')),
      // OR ROLLBACK: SQLite ends the transaction itself, as it does on a full disk or an I/O error.
      transaction(database.db, (trx) =>
        sql`insert or rollback into grouped_rows (id, v) values (402, 'taken')`.execute(trx),
      ),
      transaction(database.db, (trx) => insert(trx, 403, 'v-403')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect([401, 402, 403].map((id) => committed(id).n)).toEqual([1, 0, 1]);
  });

  it('when an onCommit callback throws, fail its own caller after the commit, answer the others, and keep going', async () => {
    const results = await Promise.allSettled([
      transaction(database.db, async (trx) => {
        await insert(trx, 500, 'v-500');
        onCommit(trx, () => {
          throw new Error('callback broke');
        });
      }),
      transaction(database.db, (trx) => insert(trx, 501, 'v-501')),
      transaction(database.db, (trx) => insert(trx, 502, 'v-502')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('callback broke');
    expect([500, 501, 502].map((id) => committed(id).n)).toEqual([1, 1, 1]);
    // Later transactions still run.
    await transaction(database.db, (trx) => insert(trx, 503, 'v-503'));
    expect(committed(503).n).toBe(1);
  });
});
