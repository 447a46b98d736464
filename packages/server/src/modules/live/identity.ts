import { CLOSE, LIVE_ERRORS } from '@vss/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Fanout } from '../../bus/fanout.js';
import type { LiveConnection, LiveSession } from './connection.js';
import { sendControl, sendError } from './delivery.js';
import type { LiveStore } from './store.js';
import { mayReplace } from './token.js';

/** Why a connection is sent away: the control event it gets, its close code, what it is told. */
const AWAY = {
  replaced: {
    code: CLOSE.REPLACED,
    error: LIVE_ERRORS.REPLACED,
    message: 'a newer connection of this user joined the session',
    reason: 'replaced by a newer connection',
  },
  removed: {
    code: CLOSE.REMOVED,
    error: LIVE_ERRORS.FORBIDDEN_STREAM,
    message: 'you were removed from the session by its host',
    reason: 'removed from the session',
  },
} as const;
type Away = keyof typeof AWAY;

/**
 * A restricted key's connection refused because the user's connection was made with a stronger
 * credential (an API key, a dashboard member, a join link's guest): that one stays.
 */
export class Outranked extends Error {
  constructor() {
    super(
      'this user_id is connected with a stronger credential than a restricted key, which never replaces it',
    );
  }
}

/** How long a join waits for a replaced connection in another process to leave. */
const REPLACE_WAIT_MS = 3_000;
const POLL_MS = 20;

/**
 * One identity, one live connection. A user's older connection in a session (another tab, a
 * device, a socket a network cut left half open) is told `replaced`, closed with 4409 and made to
 * leave before the newer one is announced: two sources never publish into one track, and the
 * others see the older leave before the newer joins. One held by another process is asked to go
 * through the fan-out, and the join waits (at most REPLACE_WAIT_MS) until its presence row says it
 * left, so that the order holds across processes too.
 */
export class OneConnectionPerUser {
  /** the joins under way of each (session, user), so that they run one at a time */
  private readonly joining = new Map<string, Promise<void>>();
  /** connections sent away (replaced by a newer one of the same user, or removed): what they still send is refused */
  private readonly away = new WeakMap<LiveConnection, Away>();

  constructor(
    private readonly deps: {
      store: LiveStore;
      fanout: Fanout;
      log: FastifyBaseLogger;
      /** the hub's leave: tracks end, the others are told */
      leave: (conn: LiveConnection) => Promise<void>;
    },
  ) {}

  /**
   * Runs the joins of one user in one session one at a time: two tabs opening together end with
   * exactly one of them, the later, instead of each replacing the other halfway through its join.
   */
  async oneAtATime(sessionId: string, userId: string, join: () => Promise<void>): Promise<void> {
    const key = `${sessionId} ${userId}`;
    const mine = (this.joining.get(key) ?? Promise.resolve()).catch(() => {}).then(join);
    this.joining.set(key, mine);
    try {
      await mine;
    } finally {
      if (this.joining.get(key) === mine) this.joining.delete(key);
    }
  }

  /**
   * Before `conn` joins: its user's older connections, here and in other processes, go; unless
   * `conn` comes from a restricted key and one of them from a stronger credential (Outranked).
   */
  async replaceOlder(live: LiveSession, conn: LiveConnection): Promise<void> {
    const newer = conn.credential ?? 'api_key';
    const sessionId = live.session.id;
    const open = () => this.deps.store.openConnections(sessionId, conn.userId, Date.now());
    const local = [...live.members.values()].filter((m) => m.conn.userId === conn.userId && m.conn !== conn);
    if (
      local.some((m) => !mayReplace(newer, m.conn.credential)) ||
      (await open()).some((c) => !mayReplace(newer, c.credential))
    )
      throw new Outranked();
    for (const m of local) await this.sendAway(m.conn, 'replaced');
    if ((await open()).length === 0) return;
    this.deps.fanout.publish(sessionId, {
      kind: 'internal',
      fromConn: conn.id,
      event: 'replace',
      userId: conn.userId,
      timestampMs: Date.now(),
    });
    const deadline = Date.now() + REPLACE_WAIT_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if ((await open()).length === 0) return;
    }
    this.deps.log.warn(
      { sessionId, userId: conn.userId },
      'an older connection of this user in another process did not leave in time',
    );
  }

  /**
   * Sends `userId`'s connections in this process away: `replaced` (another process took a newer
   * connection of theirs) or `removed` (the session's host removed them).
   */
  async sendAwayHere(live: LiveSession, userId: string, how: Away): Promise<void> {
    const going = [...live.members.values()]
      .filter((m) => m.conn.userId === userId)
      .map((m) =>
        this.sendAway(m.conn, how).catch((err) =>
          this.deps.log.error({ err, how }, 'closing a connection sent away failed'),
        ),
      );
    await Promise.all(going);
  }

  /** Refuses a publish still arriving from a connection sent away (before its socket closed). */
  refuseIfAway(conn: LiveConnection, id?: string): void {
    const how = this.away.get(conn);
    if (how) sendError(conn, AWAY[how].error, AWAY[how].message, id);
  }

  private async sendAway(conn: LiveConnection, how: Away): Promise<void> {
    if (this.away.has(conn)) return;
    this.away.set(conn, how);
    sendControl(conn, how, conn.userId, { message: AWAY[how].message });
    conn.close(AWAY[how].code, AWAY[how].reason);
    await this.deps.leave(conn);
  }
}
