import type { Fanout, FanoutMessage } from '../../bus/fanout.js';
import type { SessionsTable } from '../../db/types.js';
import type { LiveSession } from './connection.js';
import { LayerRates } from './layers.js';
import type { StorageBudget } from './storage-budget.js';
import type { LiveStore } from './store.js';
import { SessionText } from './text-budget.js';
import { RECORD_ALL, type RecordingStore } from './recording-control.js';

/**
 * The live sessions of this process, each made once (concurrent joins must share it, or a
 * participant is orphaned), and the session of each local connection, so that every publish finds
 * its session without a scan.
 */
export class SessionRegistry {
  readonly sessions = new Map<string, LiveSession>();
  private readonly loading = new Map<string, Promise<LiveSession>>();
  readonly byConn = new Map<string, LiveSession>();
  /**
   * The layer rates of each session, made before its first member has joined: a receiver's pacer
   * is made with its socket, before the join is recorded.
   */
  private readonly rates = new Map<string, LayerRates>();

  constructor(
    private readonly deps: {
      fanout: Fanout;
      store: LiveStore;
      recordings: RecordingStore;
      storage: StorageBudget;
      /** bytes of chat and director commands recorded of one session here */
      textLimitBytes: number;
      onRemote: (live: LiveSession, m: FanoutMessage) => void;
    },
  ) {}

  /** The layer rates of a session (made on first use; forgotten with the session). */
  ratesOf(sessionId: string): LayerRates {
    let r = this.rates.get(sessionId);
    if (!r) {
      r = new LayerRates();
      this.rates.set(sessionId, r);
    }
    return r;
  }

  load(session: SessionsTable, orgId: string): Promise<LiveSession> {
    const existing = this.sessions.get(session.id);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(session.id);
    if (!pending) {
      pending = (async () => {
        await this.deps.storage.load(orgId);
        const live: LiveSession = {
          session,
          orgId,
          redacted: new Set(await this.deps.store.redactedUsers(session.id)),
          members: new Map(),
          rates: this.ratesOf(session.id),
          unsubscribe: () => {},
          chain: Promise.resolve(),
          recording: RECORD_ALL,
          text: new SessionText(this.deps.textLimitBytes),
        };
        live.unsubscribe = await this.deps.fanout.subscribe(session.id, (m) => this.deps.onRemote(live, m));
        // Read once subscribed: a change written before is read here, one after arrives as a message.
        const { paused, rules } = await this.deps.recordings.get(session.id);
        live.recording = { paused, rules };
        this.sessions.set(session.id, live);
        return live;
      })().finally(() => this.loading.delete(session.id));
      this.loading.set(session.id, pending);
    }
    return pending;
  }

  /** the joins under way in each session, which keep it while its room is empty for a moment */
  private readonly holds = new Map<LiveSession, number>();

  /** Keeps `live` from being dropped until the returned release is called. */
  hold(live: LiveSession): () => void {
    this.holds.set(live, (this.holds.get(live) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.holds.get(live)! - 1;
      if (n === 0) this.holds.delete(live);
      else this.holds.set(live, n);
    };
  }

  /** Whether a join under way holds `live`. */
  held = (live: LiveSession): boolean => this.holds.has(live);

  /** Forgets a session that has no member left here. */
  drop(live: LiveSession): void {
    if (this.sessions.get(live.session.id) !== live) return;
    this.sessions.delete(live.session.id);
    this.rates.delete(live.session.id);
    live.unsubscribe();
  }

  /** Every local connection. */
  allConnections() {
    return [...this.sessions.values()].flatMap((s) => [...s.members.values()].map((m) => m.conn));
  }
}
