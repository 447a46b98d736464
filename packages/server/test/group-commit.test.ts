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

  it('commit nothing of a group whose commit fails, and fail every member', async () => {
    const told: number[] = [];
    const results = await Promise.allSettled([
      transaction(database.db, async (trx) => {
        await insert(trx, 300, 'v-300');
        onCommit(trx, () => told.push(300));
      }),
      // A foreign key checked only at commit: the whole group's commit is refused.
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
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(committed(300).n + committed(301).n).toBe(0);
    expect(told).toEqual([]);
    // The connection is usable afterwards.
    await transaction(database.db, (trx) => insert(trx, 302, 'v-302'));
    expect(committed(302).n).toBe(1);
  });
});
