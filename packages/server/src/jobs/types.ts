import type { FastifyBaseLogger } from 'fastify';
import type { Db, Engine, Trx } from '../db/types.js';
import type { Metrics } from '../lib/metrics.js';

/** What the job queue of a process is given. */
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
  /** counts attempts by kind and outcome */
  metrics?: Metrics | null;
}

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

/**
 * What one attempt came to. `release` puts the job back untouched (this process is stopping).
 * `D` is what the kind's `settle` records of it (a response status, a duration).
 */
export interface Outcome<D = never> {
  ok: boolean;
  error?: string;
  release?: boolean;
  /** a failure that another attempt would repeat (bad input): fail the job now, whatever the schedule */
  final?: boolean;
  /** what the kind's `settle` records of this attempt */
  detail?: D;
}

/** A kind of job: how to run it, how many at once, and when to try again. */
export interface JobKind<P = unknown, D = never> {
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
  /**
   * Fair turns between groups (organisations, for renders), across every process: a group never
   * runs more than `running` attempts at once, and each claim takes a due job of the group with
   * the fewest running, then of the one whose last claim is the oldest (a group not yet served
   * counts from when its job was queued), so one group's backlog cannot hold every worker. Such a kind is claimed one job at a time.
   */
  fair?: { running: number };
  /** how long a claim holds before another worker may take the job over; renewed while running */
  leaseMs: number;
  /** ms to wait after failed attempt `attempt` (1-based) before the next; undefined: give up */
  retryDelayMs(attempt: number): number | undefined;
  run(job: ClaimedJob<P>, signal: AbortSignal): Promise<Outcome<D>>;
  /**
   * Called once when this process starts running jobs (its first claims may overlap it): clears
   * what attempts of processes that died left behind (work files), sparing jobs held under a
   * live lease, which `JobQueue.leased` tells.
   */
  starting?(): Promise<void>;
  /**
   * Records an attempt's outcome in the same transaction that settles the job, so that the
   * record and the job's new state commit together. Not called when the lease was lost.
   */
  settle?(trx: Trx, job: ClaimedJob<P>, outcome: Outcome<D>, nextRunAt: number | null): Promise<void>;
}
