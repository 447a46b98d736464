import type { FastifyBaseLogger } from 'fastify';
import type { UsageRecordsTable } from '../../db/types.js';
import { newId } from '../../lib/ids.js';
import { DAY_MS, MINUTE_MS, now } from '../../lib/time.js';
import { STREAMING_MINUTES } from './store.js';

/** A live connection as the meter sees it: whose session, and accrued up to when. */
interface Open {
  sessionId: string;
  projectId: string;
  orgId: string;
  /** accrued up to here is in a written (or pending) record */
  from: number;
  leftAt: number | null;
}

/**
 * Streaming minutes: every live connection of this process accrues participant-minutes from join
 * to leave. They are written as usage records, one per session and UTC day, at each leave and every
 * `intervalMs` for long connections, so a crash loses at most one interval; each process meters
 * only its own connections. A batch that failed to write is retried with the same dedupe keys
 * before anything new, so a write that did commit but was not acknowledged never counts twice.
 * The timer also keeps the stored bytes of the sessions connected here current.
 */
export class UsageMeter {
  private readonly open = new Map<string, Open>();
  /** sessions left by a connection, or changed otherwise, since the last storage sync: synced at the next */
  private readonly changed = new Set<string>();
  private pending: UsageRecordsTable[] | null = null;
  private batchNo = 0;
  private chain: Promise<void> = Promise.resolve();
  /** a flush asked for and not started yet: further requests join it */
  private queued: { storage: boolean; done: Promise<void> } | null = null;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      nodeId: string;
      intervalMs: number;
      write(rows: UsageRecordsTable[]): Promise<void>;
      syncStorage(sessionId: string): Promise<void>;
      log: FastifyBaseLogger;
    },
  ) {
    this.timer = setInterval(() => void this.flush(true), deps.intervalMs);
    this.timer.unref();
  }

  /** A participant's live connection opened (the live hub tells, once the join succeeded). */
  joined(connId: string, session: { id: string; project_id: string }, orgId: string, at: number): void {
    this.open.set(connId, {
      sessionId: session.id,
      projectId: session.project_id,
      orgId,
      from: at,
      leftAt: null,
    });
  }

  /** It closed: its minutes are written now (with any others due, in one batch). */
  left(connId: string, at: number): void {
    const c = this.open.get(connId);
    if (!c || c.leftAt !== null) return;
    c.leftAt = at;
    this.changed.add(c.sessionId);
    void this.flush(false);
  }

  /** Marks a session whose stored bytes changed: it is synced again at the next tick. */
  touch(sessionId: string): void {
    this.changed.add(sessionId);
  }

  /**
   * Writes the minutes accrued, and with `storage` syncs the stored bytes of the sessions
   * connected here. Flushes run one at a time; requests made while one waits join it.
   */
  flush(storage: boolean): Promise<void> {
    if (this.closed) return this.chain;
    if (this.queued) {
      this.queued.storage ||= storage;
      return this.queued.done;
    }
    const request = { storage, done: Promise.resolve() };
    this.queued = request;
    request.done = this.chain
      .then(() => {
        this.queued = null;
        return this.flushOnce(request.storage);
      })
      .catch((err: unknown) => this.deps.log.warn({ err }, 'usage metering flush failed'));
    this.chain = request.done;
    return request.done;
  }

  /** The records of what accrued up to `at`: one per session and UTC day, dated within that day. */
  private accrue(at: number): UsageRecordsTable[] {
    const parts = new Map<string, { c: Open; day: number; ms: number }>();
    for (const [id, c] of this.open) {
      const until = c.leftAt ?? at;
      // Minutes are split at midnight (UTC), so a day's and a month's totals hold their own.
      for (let from = c.from; from < until;) {
        const day = Math.floor(from / DAY_MS) * DAY_MS;
        const to = Math.min(until, day + DAY_MS);
        const key = `${c.sessionId}\n${day}`;
        const p = parts.get(key);
        if (p) p.ms += to - from;
        else parts.set(key, { c, day, ms: to - from });
        from = to;
      }
      c.from = Math.max(c.from, until);
      if (c.leftAt !== null) this.open.delete(id);
    }
    const batch = (this.batchNo += 1);
    return [...parts.values()].map(({ c, day, ms }) => ({
      id: newId(),
      org_id: c.orgId,
      project_id: c.projectId,
      session_id: c.sessionId,
      usage_type: STREAMING_MINUTES,
      value: ms / MINUTE_MS,
      dedupe_key: `minutes:${this.deps.nodeId}:${batch}:${c.sessionId}:${day}`,
      created_at: Math.min(at, day + DAY_MS - 1),
    }));
  }

  private async flushOnce(storage: boolean): Promise<void> {
    if (this.pending) {
      await this.deps.write(this.pending);
      this.pending = null;
    }
    const rows = this.accrue(now());
    if (rows.length > 0) {
      // From here these minutes live in `pending` until written: retried as they are, never recounted.
      this.pending = rows;
      await this.deps.write(rows);
      this.pending = null;
    }
    if (!storage) return;
    const sessions = new Set([...this.changed, ...[...this.open.values()].map((c) => c.sessionId)]);
    this.changed.clear();
    for (const sessionId of sessions) {
      try {
        await this.deps.syncStorage(sessionId);
      } catch (err) {
        // One session's failure must not keep the others' bytes stale; it is tried again next time.
        this.deps.log.warn({ err, session: sessionId }, 'recording stored bytes failed');
      }
    }
  }

  /** Stops the timer and writes everything accrued (on shutdown, after the hub closed its connections). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const at = now();
    for (const c of this.open.values()) if (c.leftAt === null) c.leftAt = at;
    for (const c of this.open.values()) this.changed.add(c.sessionId);
    await this.flush(true);
    this.closed = true;
  }
}
