import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { onCommit, transaction } from '../db/transaction.js';
import type { Db, Engine, JobsTable, Trx } from '../db/types.js';
import { newId } from '../lib/ids.js';

/** A job as its handler sees it, after this process claimed it. */
export interface ClaimedJob<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** 1 for the first attempt; a worker that died mid-attempt used one up */
  attempt: number;
  groupKey: string | null;
  createdAt: number;
}

/** What one attempt came to. `release` puts the job back untouched (this process is stopping). */
export interface Outcome {
  ok: boolean;
  error?: string;
  release?: boolean;
  /** a failure that another attempt would repeat (bad input): fail the job now, whatever the schedule */
  final?: boolean;
  /** anything the kind's `settle` wants to record (a response status, a duration) */
  detail?: unknown;
}

/** A kind of job: how to run it, how many at once, and when to try again. */
export interface JobKind<P = unknown> {
  kind: string;
  /** attempts of this kind running at once in one process */
  concurrency: number;
  /**
   * attempts of one group (e.g. one webhook) running at once in one process: a number, or a
   * function of the group (a webhook that keeps failing gets fewer, so a dead receiver cannot
   * hold the slots of healthy ones)
   */
  perGroup?: number | ((group: string) => number);
  /**
   * For a group that keeps failing: how long to put off its jobs that find no room, instead of
   * holding them here (undefined: hold them). Keeps a dead receiver's growing backlog from
   * sitting at the head of the queue, where every claim would have to step over it.
   */
  deferGroup?(group: string): number | undefined;
  /** how long a claim holds before another worker may take the job over; renewed while running */
  leaseMs: number;
  /** ms to wait after failed attempt `attempt` (1-based) before the next; undefined: give up */
  retryDelayMs(attempt: number): number | undefined;
  run(job: ClaimedJob<P>, signal: AbortSignal): Promise<Outcome>;
  /**
   * Records an attempt's outcome in the same transaction that settles the job, so that the
   * record and the job's new state commit together. Not called when the lease was lost.
   */
  settle?(trx: Trx, job: ClaimedJob<P>, outcome: Outcome, nextRunAt: number | null): Promise<void>;
}

interface Running {
  job: ClaimedJob;
  kind: JobKind;
  abort: AbortController;
  done: Promise<void>;
}

export interface QueueOptions {
  db: Db;
  engine: Engine;
  /** this process's id: the lease owner */
  owner: string;
  log: FastifyBaseLogger;
  /** fallback poll for jobs enqueued by other processes and for retries that came due */
  pollMs?: number;
  /** tells the other processes that jobs were enqueued (through Redis), so they need not wait for a poll */
  announce?: () => void;
}

const CLAIM_BATCH = 32;

/**
 * The durable job queue of ARCHITECTURE.md "Jobs": one `jobs` table, claimed with leases by a
 * single conditional `UPDATE … RETURNING` (with `FOR UPDATE SKIP LOCKED` on PostgreSQL), so
 * several processes share it and a crashed worker's job is taken up again when its lease runs out.
 * Enqueued inside the caller's transaction (the outbox); the worker is woken after commit and
 * polls as a fallback.
 */
export class JobQueue {
  private readonly kinds = new Map<string, JobKind>();
  private readonly running = new Map<string, Running>();
  /** attempts running per `kind\0group` */
  private readonly perGroupRunning = new Map<string, number>();
  /**
   * Jobs claimed beyond their group's limit, started here as the group's attempts finish (their
   * leases renewed meanwhile): one claim takes work for many groups, and a busy group never
   * costs a claim or a release per attempt.
   */
  private readonly held = new Map<string, { kind: JobKind; rows: JobsTable[] }>();
  private pumpQueued = false;
  private readonly pollMs: number;
  private started = false;
  private stopping = false;
  private pumping = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private nextWake = Infinity;
  private renewer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: QueueOptions) {
    this.pollMs = opts.pollMs ?? 1000;
  }

  register(kind: JobKind): void {
    this.kinds.set(kind.kind, kind);
  }

  /** Adds a job as part of `q`'s transaction; the worker hears of it once that commits. */
  async enqueue(
    q: Db | Trx,
    kind: string,
    payload: unknown,
    options: { groupKey?: string | null; runAt?: number; id?: string } = {},
  ): Promise<string> {
    const at = Date.now();
    const id = options.id ?? newId();
    await q
      .insertInto('jobs')
      .values({
        id,
        kind,
        payload: JSON.stringify(payload),
        group_key: options.groupKey ?? null,
        status: 'queued',
        run_at: options.runAt ?? at,
        attempts: 0,
        lease_owner: null,
        lease_until: null,
        last_error: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    onCommit(q, () => {
      this.wake();
      this.announceSoon();
    });
    return id;
  }

  /**
   * Removes jobs of `kind` by id as part of `q`'s transaction, whatever their state. A worker
   * running one of them loses its lease at the next renewal and stops (its `signal` aborts).
   */
  async cancel(q: Db | Trx, kind: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await q.deleteFrom('jobs').where('kind', '=', kind).where('id', 'in', ids).execute();
  }

  private announcing = false;

  /** One announcement per turn of the event loop, however many jobs it enqueued. */
  private announceSoon(): void {
    if (!this.opts.announce || this.announcing) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      this.opts.announce!();
    });
  }

  /** Starts claiming and running jobs of the registered kinds. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    void this.reap()
      .catch((err) => this.opts.log.warn({ err }, 'reaping expired job leases failed'))
      .finally(() => this.wake());
    const leases = [...this.kinds.values()].map((k) => k.leaseMs);
    const every = Math.max(250, Math.min(...leases, 60_000) / 3);
    this.renewer = setInterval(() => void this.renew(), every);
    this.renewer.unref();
  }

  /** True while this process runs jobs. */
  get active(): boolean {
    return this.started && !this.stopping;
  }

  /** Jobs claimed by this process and not yet settled. */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Stops claiming; waits up to `graceMs` for running attempts, then aborts the rest, which put
   * their jobs back for another worker (or this one after a restart).
   */
  async stop(graceMs = 6000): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.renewer) clearInterval(this.renewer);
    const all = () => Promise.allSettled([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    for (const r of this.running.values()) r.abort.abort(new Error('the worker is stopping'));
    await all();
    const held = [...this.held.values()].flatMap((h) => h.rows);
    this.held.clear();
    if (held.length) await this.release(held).catch(() => {});
    this.started = false;
  }

  /** Looks for due jobs now (after an enqueue, a finished attempt, or a timer). */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    // Wake-ups of one turn of the event loop (several attempts finishing) share one pump.
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      if (this.pumping) this.again = true;
      else void this.pump();
    });
  }

  private schedule(at: number): void {
    if (!this.started || this.stopping) return;
    const when = Math.min(at, Date.now() + this.pollMs);
    if (this.timer && when >= this.nextWake) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextWake = when;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.nextWake = Infinity;
        this.wake();
      },
      Math.max(0, when - Date.now()),
    );
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.again = false;
        for (const kind of this.kinds.values()) {
          // Claim in rounds until this kind is full or nothing more is due.
          for (;;) {
            if (this.stopping) return;
            const free = kind.concurrency - this.countRunning(kind.kind);
            if (free <= 0) break;
            const n = Math.min(free, CLAIM_BATCH);
            const jobs = await this.claim(kind, n);
            const back: JobsTable[] = [];
            const later: JobsTable[] = [];
            let deferMs = 0;
            for (const row of jobs) {
              if (this.stopping) back.push(row);
              else if (row.group_key === null || this.hasRoom(kind, row.group_key)) this.launch(kind, row);
              else {
                const defer = kind.deferGroup?.(row.group_key);
                if (defer === undefined) this.hold(kind, row);
                else {
                  later.push(row);
                  deferMs = Math.max(deferMs, defer);
                }
              }
            }
            if (back.length) await this.release(back);
            if (later.length) await this.release(later, Date.now() + deferMs);
            if (jobs.length < n) break;
          }
        }
      } while (this.again);
    } catch (err) {
      this.opts.log.error({ err }, 'claiming jobs failed');
    } finally {
      this.pumping = false;
      this.schedule(Date.now() + this.pollMs);
    }
  }

  private countRunning(kind: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.kind.kind === kind) n++;
    return n;
  }

  private hold(kind: JobKind, row: JobsTable): void {
    const key = `${kind.kind}\0${row.group_key}`;
    const h = this.held.get(key);
    if (h) h.rows.push(row);
    else this.held.set(key, { kind, rows: [row] });
  }

  private async claim(kind: JobKind, n: number): Promise<JobsTable[]> {
    const { db, engine, owner } = this.opts;
    const now = Date.now();
    // Groups that are full, or already have jobs waiting here, take nothing more from this claim.
    const busy: string[] = [];
    if (kind.perGroup !== undefined) {
      const prefix = `${kind.kind}\0`;
      for (const key of new Set([...this.perGroupRunning.keys(), ...this.held.keys()])) {
        if (!key.startsWith(prefix)) continue;
        const group = key.slice(prefix.length);
        // A failing group is not stepped over: its jobs are claimed and put off (see deferGroup).
        if (kind.deferGroup?.(group) !== undefined) continue;
        if (this.held.has(key) || !this.hasRoom(kind, group)) busy.push(group);
      }
    }
    const groups = busy.length ? sql`and (group_key is null or group_key not in (${sql.join(busy)}))` : sql``;
    const skipLocked = engine === 'postgres' ? sql`for update skip locked` : sql``;
    const res = await sql<JobsTable>`
      update jobs set status = 'running', lease_owner = ${owner}, lease_until = ${now + kind.leaseMs},
        attempts = attempts + 1, updated_at = ${now}
      where id in (
        select id from jobs
        where kind = ${kind.kind} and status = 'queued' and run_at <= ${now}
          ${groups}
        order by run_at, id
        limit ${n}
        ${skipLocked}
      )
      returning *`.execute(db);
    // RETURNING gives no order guarantee: keep the queue's.
    return res.rows.sort((a, b) => a.run_at - b.run_at || (a.id < b.id ? -1 : 1));
  }

  private groupLimit(kind: JobKind, group: string): number {
    const limit = kind.perGroup;
    return limit === undefined ? Infinity : typeof limit === 'number' ? limit : limit(group);
  }

  /** True when a job of `group` may start now. */
  private hasRoom(kind: JobKind, group: string | null): boolean {
    if (group === null) return true;
    return (this.perGroupRunning.get(`${kind.kind}\0${group}`) ?? 0) < this.groupLimit(kind, group);
  }

  /** Puts claimed jobs back unattempted (this process is stopping, or their group is put off to `runAt`). */
  private async release(rows: JobsTable[], runAt?: number): Promise<void> {
    await this.opts.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'queued',
        attempts: eb('attempts', '-', 1),
        lease_owner: null,
        lease_until: null,
        ...(runAt === undefined ? {} : { run_at: runAt }),
      }))
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('lease_owner', '=', this.opts.owner)
      .execute();
  }

  /** Starts a claimed job. */
  private launch(kind: JobKind, row: JobsTable): void {
    const groupKey = row.group_key === null ? null : `${kind.kind}\0${row.group_key}`;
    if (groupKey) this.perGroupRunning.set(groupKey, (this.perGroupRunning.get(groupKey) ?? 0) + 1);
    const job: ClaimedJob = {
      id: row.id,
      kind: row.kind,
      payload: JSON.parse(row.payload) as unknown,
      attempt: row.attempts,
      groupKey: row.group_key,
      createdAt: row.created_at,
    };
    const abort = new AbortController();
    const entry = { job, kind, abort } as Running;
    this.running.set(job.id, entry);
    entry.done = (async () => {
      let outcome: Outcome;
      try {
        outcome = await kind.run(job, abort.signal);
      } catch (err) {
        outcome = { ok: false, error: (err as Error).message || String(err) };
      }
      if (abort.signal.aborted && !outcome.ok) outcome = { ...outcome, release: true };
      try {
        await this.settle(kind, job, outcome);
      } catch (err) {
        this.opts.log.error({ err, job: job.id, kind: job.kind }, 'settling a job failed');
      } finally {
        this.running.delete(job.id);
        if (groupKey) {
          const left = this.perGroupRunning.get(groupKey)! - 1;
          if (left > 0) this.perGroupRunning.set(groupKey, left);
          else this.perGroupRunning.delete(groupKey);
          // The group's next waiting job takes the freed place at once, without a claim; a group
          // that has started failing puts its waiting jobs off instead.
          const h = this.held.get(groupKey);
          const defer = h ? kind.deferGroup?.(row.group_key!) : undefined;
          if (h && defer !== undefined && !this.stopping) {
            this.held.delete(groupKey);
            void this.release(h.rows, Date.now() + defer).catch((err) =>
              this.opts.log.warn({ err }, 'putting off jobs failed'),
            );
          } else if (h && !this.stopping && this.hasRoom(kind, row.group_key)) {
            const next = h.rows.shift()!;
            if (h.rows.length === 0) this.held.delete(groupKey);
            this.launch(kind, next);
          }
        }
        this.wake();
      }
    })();
  }

  private async settle(kind: JobKind, job: ClaimedJob, outcome: Outcome): Promise<void> {
    const { db, owner } = this.opts;
    const at = Date.now();
    const delay = outcome.ok || outcome.release || outcome.final ? undefined : kind.retryDelayMs(job.attempt);
    const nextRunAt = delay === undefined ? null : at + delay;
    await transaction(db, async (trx) => {
      const mine = sql<boolean>`id = ${job.id} and lease_owner = ${owner} and attempts = ${job.attempt}`;
      const update = (set: Partial<JobsTable>) =>
        trx
          .updateTable('jobs')
          .set({ ...set, lease_owner: null, lease_until: null, updated_at: at })
          .where(mine)
          .executeTakeFirst();
      const owned = outcome.ok
        ? (await trx.deleteFrom('jobs').where(mine).executeTakeFirst()).numDeletedRows
        : outcome.release
          ? (await update({ status: 'queued', attempts: job.attempt - 1 })).numUpdatedRows
          : (
              await update({
                status: nextRunAt === null ? 'failed' : 'queued',
                run_at: nextRunAt ?? at,
                last_error: (outcome.error ?? 'failed').slice(0, 2000),
              })
            ).numUpdatedRows;
      // Another worker took the job over after our lease ran out: its attempt is the one on record.
      if (Number(owned) === 0 || outcome.release) return;
      await kind.settle?.(trx, job, outcome, nextRunAt);
    });
    if (nextRunAt !== null) this.schedule(nextRunAt);
  }

  /**
   * Puts jobs whose lease ran out (their worker died or stalled) back in the queue, so that the
   * claim itself stays one ordered index range.
   */
  private async reap(): Promise<void> {
    const now = Date.now();
    for (const kind of this.kinds.keys()) {
      const res = await this.opts.db
        .updateTable('jobs')
        .set({ status: 'queued', lease_owner: null, lease_until: null, updated_at: now })
        .where('kind', '=', kind)
        .where('status', '=', 'running')
        .where('lease_until', '<', now)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) > 0) this.wake();
    }
  }

  /** Extends the leases of running jobs (a job whose lease was lost is aborted), and reaps. */
  private async renew(): Promise<void> {
    const { db, owner } = this.opts;
    await this.reap().catch((err) => this.opts.log.warn({ err }, 'reaping expired job leases failed'));
    for (const r of [...this.running.values()]) {
      try {
        const res = await db
          .updateTable('jobs')
          .set({ lease_until: Date.now() + r.kind.leaseMs })
          .where('id', '=', r.job.id)
          .where('lease_owner', '=', owner)
          .where('attempts', '=', r.job.attempt)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) r.abort.abort(new Error('the job lease was lost'));
      } catch (err) {
        this.opts.log.warn({ err, job: r.job.id }, 'renewing a job lease failed');
      }
    }
    for (const [key, h] of this.held) {
      if (h.rows.length === 0) continue;
      try {
        await db
          .updateTable('jobs')
          .set({ lease_until: Date.now() + h.kind.leaseMs })
          .where(
            'id',
            'in',
            h.rows.map((r) => r.id),
          )
          .where('lease_owner', '=', owner)
          .execute();
      } catch (err) {
        this.opts.log.warn({ err, group: key }, 'renewing held job leases failed');
      }
    }
  }

  /** Forgets jobs that failed for good more than `olderThanMs` ago. */
  async sweep(olderThanMs = 30 * 86_400_000): Promise<void> {
    await this.opts.db
      .deleteFrom('jobs')
      .where('status', '=', 'failed')
      .where('updated_at', '<', Date.now() - olderThanMs)
      .execute();
  }
}
