import type { Trx } from '../db/types.js';

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
  /** how long a claim holds before another worker may take the job over; renewed while running */
  leaseMs: number;
  /** ms to wait after failed attempt `attempt` (1-based) before the next; undefined: give up */
  retryDelayMs(attempt: number): number | undefined;
  run(job: ClaimedJob<P>, signal: AbortSignal): Promise<Outcome<D>>;
  /**
   * Records an attempt's outcome in the same transaction that settles the job, so that the
   * record and the job's new state commit together. Not called when the lease was lost.
   */
  settle?(trx: Trx, job: ClaimedJob<P>, outcome: Outcome<D>, nextRunAt: number | null): Promise<void>;
}
