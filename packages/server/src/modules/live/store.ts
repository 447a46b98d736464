import { sql } from 'kysely';
import type { Db, SessionsTable, Trx } from '../../db/types.js';

/** Presence rows are refreshed this often; a row this stale belongs to a process that died. */
export const HEARTBEAT_MS = 10_000;
const STALE_MS = 3 * HEARTBEAT_MS;

/**
 * The SQL of live sessions: presence (one `session_members` row per connection, heartbeated by the
 * process that holds it), and the lifecycle's two conditional updates, start and end, which exactly
 * one process wins whatever the number of processes.
 */
export function liveStore(db: Db) {
  return {
    /** The participants redacted from a session: their media is refused. */
    async redactedUsers(sessionId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('redactions')
        .select('user_id')
        .where('session_id', '=', sessionId)
        .execute();
      return rows.map((r) => r.user_id);
    },

    async addMember(m: {
      connId: string;
      sessionId: string;
      userId: string;
      displayName: string | null;
      /** the kind of credential its token came from */
      credential: string | null;
      nodeId: string;
      at: number;
    }) {
      await db
        .insertInto('session_members')
        .values({
          conn_id: m.connId,
          session_id: m.sessionId,
          user_id: m.userId,
          display_name: m.displayName,
          credential: m.credential,
          node_id: m.nodeId,
          joined_at: m.at,
          heartbeat_at: m.at,
          left_at: null,
        })
        .execute();
    },

    /** Forgets a deleted session's presence rows, join links and removals. */
    async deleteMembers(sessionId: string): Promise<void> {
      await db.deleteFrom('session_members').where('session_id', '=', sessionId).execute();
      await db.deleteFrom('join_links').where('session_id', '=', sessionId).execute();
      await db.deleteFrom('removals').where('session_id', '=', sessionId).execute();
    },

    async markLeft(connId: string, at: number): Promise<void> {
      await db.updateTable('session_members').set({ left_at: at }).where('conn_id', '=', connId).execute();
    },

    /** A user's open connections in a session, in any process (presence rows not stale). */
    async openConnections(
      sessionId: string,
      userId: string,
      now: number,
    ): Promise<Array<{ conn_id: string; credential: string | null }>> {
      const rows = await db
        .selectFrom('session_members')
        .select(['conn_id', 'credential'])
        .where('session_id', '=', sessionId)
        .where('user_id', '=', userId)
        .where('left_at', 'is', null)
        .where('heartbeat_at', '>', now - STALE_MS)
        .execute();
      return rows.map((r) => ({ conn_id: r.conn_id, credential: r.credential ?? null }));
    },

    /** Whether a join link still lets its guests in: not revoked (deleted), not expired. */
    async linkValid(linkId: string, now: number): Promise<boolean> {
      const row = await db
        .selectFrom('join_links')
        .select('id')
        .where('id', '=', linkId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * The participants present in a session now, in any process, each once, with the name of its
     * latest connection.
     */
    async present(
      sessionId: string,
      now: number,
    ): Promise<Array<{ user_id: string; display_name: string | null }>> {
      const rows = await db
        .selectFrom('session_members')
        .select(['user_id', 'display_name'])
        .where('session_id', '=', sessionId)
        .where('left_at', 'is', null)
        .where('heartbeat_at', '>', now - STALE_MS)
        .orderBy('joined_at')
        .execute();
      return [...new Map(rows.map((r) => [r.user_id, r])).values()];
    },

    /** Whether `userId` ever joined the session, in any process. */
    async participated(sessionId: string, userId: string): Promise<boolean> {
      const row = await db
        .selectFrom('session_members')
        .select('user_id')
        .where('session_id', '=', sessionId)
        .where('user_id', '=', userId)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The name each participant of a session last joined with (those who gave one). */
    async displayNames(sessionId: string): Promise<Map<string, string>> {
      const rows = await db
        .selectFrom('session_members')
        .select(['user_id', 'display_name'])
        .where('session_id', '=', sessionId)
        .where('display_name', 'is not', null)
        .orderBy('joined_at')
        .execute();
      return new Map(rows.map((r) => [r.user_id, r.display_name!]));
    },

    /** Starts the session unless it was started already; true for the one caller that did. */
    async markStarted(trx: Trx, sessionId: string, at: number): Promise<boolean> {
      const res = await trx
        .updateTable('sessions')
        .set({ started_at: at })
        .where('id', '=', sessionId)
        .where('started_at', 'is', null)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },

    /**
     * Ends the session when it started, has not ended, nobody is present in any process, and the
     * last departure is older than `cutoff`; true for the one caller that ended it.
     */
    async markEnded(trx: Trx, sessionId: string, now: number, cutoff: number): Promise<boolean> {
      const res = await trx
        .updateTable('sessions')
        .set({ ended_at: now })
        .where('id', '=', sessionId)
        .where('started_at', 'is not', null)
        .where('ended_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('session_members')
                .select(sql`1`.as('one'))
                .where('session_members.session_id', '=', sessionId)
                .where((eb) =>
                  eb.or([
                    eb.and([eb('left_at', 'is', null), eb('heartbeat_at', '>', now - STALE_MS)]),
                    eb(sql`coalesce(left_at, heartbeat_at)`, '>', cutoff),
                  ]),
                ),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },

    /** A session with its organisation's id. */
    withOrg(trx: Trx, sessionId: string): Promise<SessionsTable & { org_id: string }> {
      return trx
        .selectFrom('sessions')
        .innerJoin('projects', 'projects.id', 'sessions.project_id')
        .selectAll('sessions')
        .select('projects.org_id')
        .where('sessions.id', '=', sessionId)
        .executeTakeFirstOrThrow();
    },

    /** Refreshes the presence rows of this process's open connections. */
    async heartbeat(nodeId: string, now: number): Promise<void> {
      await db
        .updateTable('session_members')
        .set({ heartbeat_at: now })
        .where('node_id', '=', nodeId)
        .where('left_at', 'is', null)
        .execute();
    },

    /** Started, unended sessions with nobody present anywhere: left behind by a process that died. */
    async orphans(now: number, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('sessions')
        .select('id')
        .where('started_at', 'is not', null)
        .where('ended_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('session_members')
                .select(sql`1`.as('one'))
                .whereRef('session_members.session_id', '=', 'sessions.id')
                .where('left_at', 'is', null)
                .where('heartbeat_at', '>', now - STALE_MS),
            ),
          ),
        )
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
  };
}
export type LiveStore = ReturnType<typeof liveStore>;
