import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/transaction.js';
import { JobQueue, type ClaimedJob, type JobKind } from '../src/jobs/queue.js';
import { startApp, type TestApp } from './support/app.js';
import { eventually } from './support/live.js';

let t: TestApp;
let queue: JobQueue;
const runs: Array<{ kind: string; payload: unknown; attempt: number }> = [];

/** A job kind of the test: it records each attempt and fails while `failUntil` says so. */
function kind(name: string, opts: Partial<JobKind> & { failUntil?: number } = {}): JobKind {
  return {
    kind: name,
    concurrency: 4,
    leaseMs: 2000,
    retryDelayMs: (attempt) => (attempt < 3 ? 50 : undefined),
    async run(job: ClaimedJob) {
      runs.push({ kind: name, payload: job.payload, attempt: job.attempt });
      return job.attempt <= (opts.failUntil ?? 0)
        ? { ok: false, error: `failed ${job.attempt}` }
        : { ok: true };
    },
    ...opts,
  };
}

beforeAll(async () => {
  t = await startApp();
  queue = new JobQueue({
    db: t.runtime.database.db,
    engine: t.runtime.database.engine,
    owner: 'test-worker',
    log: t.runtime.logger,
    pollMs: 50,
  });
  queue.register(kind('test.ok'));
  queue.register(kind('test.flaky', { failUntil: 2 }));
  queue.register(kind('test.dead', { failUntil: 99 }));
  queue.register(kind('test.fair', { concurrency: 1, fair: { running: 1 } }));
  queue.start();
});
afterAll(async () => {
  await queue.stop();
  await t.close();
});

const jobRow = (id: string) =>
  t.runtime.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();

describe('the job queue', () => {
  it('takes turns between the groups of a fair kind, whatever the order they were queued in', async () => {
    const db = t.runtime.database.db;
    // One group queues four jobs and another two, all at once: one worker runs them in turns.
    await transaction(db, async (trx) => {
      for (const n of ['a1', 'a2', 'a3', 'a4'])
        await queue.enqueue(trx, 'test.fair', { n }, { groupKey: 'a' });
      for (const n of ['b1', 'b2']) await queue.enqueue(trx, 'test.fair', { n }, { groupKey: 'b' });
    });
    const order = () => runs.filter((r) => r.kind === 'test.fair').map((r) => (r.payload as { n: string }).n);
    await eventually(() => order().length === 6, 10_000, 'every fair job to run');
    expect(order()).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('runs a job enqueued in a committed transaction, and never one whose transaction rolled back', async () => {
    const db = t.runtime.database.db;
    await expect(
      transaction(db, async (trx) => {
        await queue.enqueue(trx, 'test.ok', { n: 'rolled back' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const id = await transaction(db, (trx) => queue.enqueue(trx, 'test.ok', { n: 'committed' }));
    await eventually(() => runs.some((r) => (r.payload as { n: string }).n === 'committed'));
    await eventually(async () => !(await jobRow(id)), 5000, 'the finished job to be gone');
    expect(runs.filter((r) => (r.payload as { n: string }).n === 'rolled back')).toEqual([]);
  });

  it('retries a failing job on its schedule, and keeps one that failed for good with its error', async () => {
    await queue.enqueue(t.runtime.database.db, 'test.flaky', { n: 'flaky' });
    await eventually(() => runs.filter((r) => r.kind === 'test.flaky').length === 3);
    expect(runs.filter((r) => r.kind === 'test.flaky').map((r) => r.attempt)).toEqual([1, 2, 3]);

    const id = await queue.enqueue(t.runtime.database.db, 'test.dead', { n: 'dead' });
    const row = await eventually(async () => {
      const r = await jobRow(id);
      return r?.status === 'failed' && r;
    });
    expect(row).toMatchObject({ attempts: 3, last_error: 'failed 3', lease_owner: null });
    expect(runs.filter((r) => r.kind === 'test.dead').map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  it("takes up a job whose worker died when its lease runs out, counting the dead worker's attempt", async () => {
    const id = await queue.enqueue(
      t.runtime.database.db,
      'test.ok',
      { n: 'orphan' },
      { runAt: Date.now() + 60_000 },
    );
    // As a worker that claimed it and then died leaves it: running, its lease already over.
    await t.runtime.database.db
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        lease_owner: 'dead-worker',
        lease_until: Date.now() - 1,
        run_at: Date.now(),
      })
      .where('id', '=', id)
      .execute();
    // The reaper runs with the lease renewals; a restart of the queue runs it at once.
    await queue.stop();
    queue.start();
    await eventually(() => runs.find((r) => (r.payload as { n: string }).n === 'orphan'), 5000, 'the orphan');
    expect(runs.find((r) => (r.payload as { n: string }).n === 'orphan')!.attempt).toBe(2);
    await eventually(async () => !(await jobRow(id)));
  });
});
