import type { FastifyBaseLogger } from 'fastify';
import type { StreamWriter } from '../../streams/writer.js';
import type { SessionLifecycle } from './lifecycle.js';
import type { Sequencer } from './sequencer.js';
import { HEARTBEAT_MS, type LiveStore } from './store.js';
import type { Timeline } from './timeline.js';

/**
 * When sessions end: a check scheduled for when the last local participant's departure timeout
 * will have passed (cancelled by a new join), and a heartbeat that refreshes this process's
 * presence rows and ends the sessions that a process which died left behind.
 */
export class SessionEnding {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      lifecycle: SessionLifecycle;
      store: LiveStore;
      events: Timeline;
      writer: StreamWriter;
      sequencer: Sequencer;
      nodeId: string;
      departureTimeoutMs: number;
      log: FastifyBaseLogger;
      /** whether this process has members in the session (then it is not an orphan) */
      isLocal: (sessionId: string) => boolean;
    },
  ) {
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Someone joined: the session does not end now. */
  cancel(sessionId: string): void {
    const pending = this.pending.get(sessionId);
    if (pending) clearTimeout(pending);
    this.pending.delete(sessionId);
  }

  /** Schedules the end check for when the departure timeout will have passed. */
  schedule(sessionId: string): void {
    this.cancel(sessionId);
    const timer = setTimeout(() => {
      this.pending.delete(sessionId);
      void this.tryEnd(sessionId).catch((err) => this.deps.log.error({ err }, 'ending the session failed'));
    }, this.deps.departureTimeoutMs + 50);
    timer.unref();
    this.pending.set(sessionId, timer);
  }

  /**
   * Ends the session when nobody is present in any process and the last departure is older than
   * the timeout; exactly one process wins the conditional update and announces the end.
   */
  async tryEnd(sessionId: string): Promise<boolean> {
    const now = Date.now();
    const ended = await this.deps.lifecycle.end(sessionId, now, now - this.deps.departureTimeoutMs);
    if (!ended) return false;
    await this.deps.events.record(sessionId, 'session.ended', 'system', {}, now);
    await this.deps.writer.flush();
    this.deps.sequencer.forget(sessionId);
    return true;
  }

  /** Stops the timers (on shutdown). */
  stop(): void {
    clearInterval(this.heartbeat);
    for (const t of this.pending.values()) clearTimeout(t);
  }

  /** Refreshes this process's presence rows, and ends sessions whose participants all went away. */
  private async beat(): Promise<void> {
    const now = Date.now();
    try {
      await this.deps.store.heartbeat(this.deps.nodeId, now);
      // Sessions left behind by a process that died: nobody present anywhere, not yet ended.
      const orphans = await this.deps.store.orphans(now, 100);
      for (const id of orphans) if (!this.deps.isLocal(id)) await this.tryEnd(id);
    } catch (err) {
      this.deps.log.warn({ err }, 'presence heartbeat failed');
    }
  }
}
