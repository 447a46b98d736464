import type { FastifyBaseLogger } from 'fastify';
import type { UsageRecordsTable } from '../../db/types.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import { STREAMING_MINUTES } from './store.js';

/** A live connection as the meter sees it: whose session, and from when. */
export interface MeteredConnection {
  connId: string;
  sessionId: string;
  projectId: string;
  orgId: string;
}

interface Open extends MeteredConnection {
  /** accrued up to here is in a written (or pending) record */
  from: number;
  leftAt: number | null;
}

/**
 * Streaming minutes: every live connection of this process accrues participant-minutes from join
 * to leave. They are written as one usage record per session at each leave and every
 * `intervalMs` for long connections, so a crash loses at most one interval; each process meters
 * only its own connections. A batch that failed to write is retried with the same dedupe keys
 * before anything new, so a retried write never counts twice. The same tick keeps the stored
 * bytes of sessions being recorded current.
 */
export class UsageMeter {
  private readonly open = new Map<string, Open>();
  /** sessions whose stored bytes may have changed since they were last recorded */
  private readonly dirty = new Set<string>();
  private pending: UsageRecordsTable[] | null = null;
  private batchNo = 0;
  private chain: Promise<void> = Promise.resolve();
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
    this.timer = setInterval(() => void this.flush(), deps.intervalMs);
    this.timer.unref();
  }

  /** A participant's live connection opened (the live hub tells). */
  joined(connId: string, session: { id: string; project_id: string }, orgId: string, at: number): void {
    const c = { connId, sessionId: session.id, projectId: session.project_id, orgId };
    this.open.set(connId, { ...c, from: at, leftAt: null });
  }

  /** It closed: its minutes are written now. */
  left(connId: string, at: number): void {
    const c = this.open.get(connId);
    if (!c || c.leftAt !== null) return;
    c.leftAt = at;
    void this.flush();
  }

  /** Marks a session whose stored bytes changed, to be recorded at the next flush. */
  touch(sessionId: string): void {
    this.dirty.add(sessionId);
  }

  /** Writes what has accrued; flushes run one at a time, in order. */
  flush(): Promise<void> {
    if (this.closed) return this.chain;
    const run = this.chain.then(() => this.flushOnce());
    this.chain = run.catch((err: unknown) => this.deps.log.warn({ err }, 'usage metering flush failed'));
    return this.chain;
  }

  private async flushOnce(): Promise<void> {
    if (this.pending) {
      await this.deps.write(this.pending);
      this.pending = null;
    }
    const at = now();
    const bySession = new Map<string, { c: Open; ms: number }>();
    for (const [id, c] of this.open) {
      const until = c.leftAt ?? at;
      if (until > c.from) {
        const s = bySession.get(c.sessionId);
        if (s) s.ms += until - c.from;
        else bySession.set(c.sessionId, { c, ms: until - c.from });
        c.from = until;
      }
      this.dirty.add(c.sessionId);
      if (c.leftAt !== null) this.open.delete(id);
    }
    if (bySession.size > 0) {
      const batch = (this.batchNo += 1);
      // From here these minutes live in `pending` until written: retried as they are, never recounted.
      this.pending = [...bySession].map(([sessionId, { c, ms }]) => ({
        id: newId(),
        org_id: c.orgId,
        project_id: c.projectId,
        session_id: sessionId,
        usage_type: STREAMING_MINUTES,
        value: ms / 60_000,
        dedupe_key: `minutes:${this.deps.nodeId}:${batch}:${sessionId}`,
        created_at: at,
      }));
      await this.deps.write(this.pending);
      this.pending = null;
    }
    // Sessions with a connection here stay marked: they may be recording.
    const live = new Set([...this.open.values()].map((c) => c.sessionId));
    for (const sessionId of [...this.dirty]) {
      await this.deps.syncStorage(sessionId);
      if (!live.has(sessionId)) this.dirty.delete(sessionId);
    }
  }

  /** Stops the timer and writes everything accrued (on shutdown, after the hub closed its connections). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const at = now();
    for (const c of this.open.values()) if (c.leftAt === null) c.leftAt = at;
    await this.flush();
    this.closed = true;
  }
}
