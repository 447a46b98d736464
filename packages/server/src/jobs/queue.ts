import { onCommit, transaction } from '../db/transaction.js';
import type { Db, JobsTable, Trx } from '../db/types.js';
import { newId } from '../lib/ids.js';
import { MINUTE_MS, DAY_MS } from '../lib/time.js';
import { jobsStore, type JobsStore, type Settlement } from './store.js';
import type { ClaimedJob, JobKind, Outcome, QueueOptions } from './types.js';
export type { ClaimedJob, JobKind, Outcome, QueueOptions } from './types.js';

/** A kind as the loop keeps it: its payload and detail types are its handlers' business. */
type AnyKind = JobKind<unknown, unknown>;

interface Running {
  job: ClaimedJob;
  kind: AnyKind;
  abort: AbortController;
  done: Promise<void>;
}

const CLAIM_BATCH = 32;

/**
 * The durable job queue: one `jobs` table, claimed with leases by a single conditional `UPDATE …
 * RETURNING` (with `FOR UPDATE SKIP LOCKED` on PostgreSQL), so several processes share it and a
 * crashed worker's job is taken up again when its lease runs out. Enqueued inside the caller's
 * transaction (the outbox); the worker is woken after commit and polls as a fallback.
 */
export class JobQueue {
  private readonly kinds = new Map<string, AnyKind>();
  private readonly store: JobsStore;
  private readonly running = new Map<string, Running>();
  /** attempts running per `kind\0group` */
  private readonly perGroupRunning = new Map<string, number>();
  /**
   * Jobs claimed beyond their group's limit, started here as the group's attempts finish (their
   * leases renewed meanwhile): one claim takes work for many groups, and a busy group never
   * costs a claim or a release per attempt.
   */
  private readonly held = new Map<string, { kind: AnyKind; rows: JobsTable[] }>();
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
    this.store = jobsStore(opts.db, opts.engine, opts.owner);
  }

  /** Adds a kind of job this process runs; before start(). */
  register<P, D>(kind: JobKind<P, D>): void {
    this.kinds.set(kind.kind, kind as unknown as AnyKind);
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
    await this.store.insert(q, {
      id,
      kind,
      payload,
      groupKey: options.groupKey ?? null,
      runAt: options.runAt ?? at,
      at,
    });
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
  cancel(q: Db | Trx, kind: string, ids: string[]): Promise<void> {
    return this.store.cancel(q, kind, ids);
  }

  /** Removes every job of `kind` in `groupKey`, as part of `q`'s transaction (a deleted webhook's). */
  cancelGroup(q: Db | Trx, kind: string, groupKey: string): Promise<void> {
    return this.store.cancelGroup(q, kind, groupKey);
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
    for (const kind of this.kinds.values())
      void kind
        .starting?.()
        .catch((err) =>
          this.opts.log.warn({ err, kind: kind.kind }, 'clearing what earlier attempts left failed'),
        );
    void this.reap()
      .catch((err) => this.opts.log.warn({ err }, 'reaping expired job leases failed'))
      .finally(() => this.wake());
    const leases = [...this.kinds.values()].map((k) => k.leaseMs);
    const every = Math.max(250, Math.min(...leases, MINUTE_MS) / 3);
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
            const n = kind.fair ? 1 : Math.min(free, CLAIM_BATCH);
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

  private hold(kind: AnyKind, row: JobsTable): void {
    const key = `${kind.kind}\0${row.group_key}`;
    const h = this.held.get(key);
    if (h) h.rows.push(row);
    else this.held.set(key, { kind, rows: [row] });
  }

  private async claim(kind: AnyKind, n: number): Promise<JobsTable[]> {
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
    if (kind.fair) return this.store.claimFair(kind.kind, kind.leaseMs, kind.fair.running, Date.now());
    return this.store.claim(kind.kind, n, kind.leaseMs, busy, Date.now());
  }

  private groupLimit(kind: AnyKind, group: string): number {
    const limit = kind.perGroup;
    return limit === undefined ? Infinity : typeof limit === 'number' ? limit : limit(group);
  }

  /** True when a job of `group` may start now. */
  private hasRoom(kind: AnyKind, group: string | null): boolean {
    if (group === null) return true;
    return (this.perGroupRunning.get(`${kind.kind}\0${group}`) ?? 0) < this.groupLimit(kind, group);
  }

  /** Puts claimed jobs back unattempted (this process is stopping, or their group is put off to `runAt`). */
  private release(rows: JobsTable[], runAt?: number): Promise<void> {
    return this.store.release(
      rows.map((r) => r.id),
      runAt,
    );
  }

  /** Starts a claimed job. */
  private launch(kind: AnyKind, row: JobsTable): void {
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
      let outcome: Outcome<unknown>;
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

  private async settle(kind: AnyKind, job: ClaimedJob, outcome: Outcome<unknown>): Promise<void> {
    const at = Date.now();
    const delay = outcome.ok || outcome.release || outcome.final ? undefined : kind.retryDelayMs(job.attempt);
    const nextRunAt = delay === undefined ? null : at + delay;
    const how: Settlement = outcome.ok
      ? { done: true }
      : outcome.release
        ? { release: true }
        : { runAt: nextRunAt, error: outcome.error ?? 'failed', at };
    // Counted once the settlement is over: whoever sees the count moved sees the job's new state.
    await transaction(this.opts.db, async (trx) => {
      const owned = await this.store.settle(trx, job.id, job.attempt, how, at);
      // Another worker took the job over after our lease ran out: its attempt is the one on record.
      if (!owned || outcome.release) return;
      await kind.settle?.(trx, job, outcome, nextRunAt);
    }).finally(() => this.opts.metrics?.attempt(job.kind, outcome, nextRunAt !== null));
    if (nextRunAt !== null) this.schedule(nextRunAt);
  }

  /** Puts jobs whose lease ran out (worker died or stalled) back: the claim stays one index range. */
  private async reap(): Promise<void> {
    for (const kind of this.kinds.keys()) if ((await this.store.reap(kind, Date.now())) > 0) this.wake();
  }

  /** Extends the leases of running jobs (a job whose lease was lost is aborted), and reaps. */
  private async renew(): Promise<void> {
    await this.reap().catch((err) => this.opts.log.warn({ err }, 'reaping expired job leases failed'));
    for (const r of [...this.running.values()]) {
      try {
        if (!(await this.store.renew(r.job.id, r.job.attempt, Date.now() + r.kind.leaseMs)))
          r.abort.abort(new Error('the job lease was lost'));
      } catch (err) {
        this.opts.log.warn({ err, job: r.job.id }, 'renewing a job lease failed');
      }
    }
    for (const [key, h] of this.held) {
      if (h.rows.length === 0) continue;
      try {
        await this.store.renewHeld(
          h.rows.map((r) => r.id),
          Date.now() + h.kind.leaseMs,
        );
      } catch (err) {
        this.opts.log.warn({ err, group: key }, 'renewing held job leases failed');
      }
    }
  }

  /**
   * Of these jobs of `kind`, those some process is running now (under a lease that has not run
   * out), with the attempt it runs: id → attempt.
   */
  leased(kind: string, ids: string[]): Promise<Map<string, number>> {
    return this.store.leased(kind, ids, Date.now());
  }

  /** Forgets jobs that failed for good more than `olderThanMs` ago. */
  sweep(olderThanMs = 30 * DAY_MS): Promise<void> {
    return this.store.sweep(Date.now() - olderThanMs);
  }
}
