import { keysetPage, type Cursor } from '../../db/keyset.js';
import type { Db, ReplayLinksTable, Trx } from '../../db/types.js';

/** SQL of recordings: replay links (their tokens kept hashed) and redactions. */
export function recordingsStore(db: Db) {
  return {
    async insertLink(
      q: Db | Trx,
      row: {
        id: string;
        session_id: string;
        project_id: string;
        token_hash: string;
        created_at: number;
        expires_at: number;
      },
    ): Promise<void> {
      await q.insertInto('replay_links').values(row).execute();
    },

    /** Deletes every link of a session; how many there were. */
    async deleteLinks(sessionId: string): Promise<number> {
      const res = await db.deleteFrom('replay_links').where('session_id', '=', sessionId).executeTakeFirst();
      return Number(res.numDeletedRows);
    },

    /** A page of a session's links, newest first. */
    links(
      sessionId: string,
      limit: number,
      after: Cursor | null,
    ): Promise<Omit<ReplayLinksTable, 'token_hash'>[]> {
      const q = db
        .selectFrom('replay_links')
        .select(['id', 'session_id', 'project_id', 'created_at', 'expires_at'])
        .where('session_id', '=', sessionId);
      return keysetPage(q, after, 'desc', limit).execute();
    },

    /** Deletes one link of a session; whether it was there. */
    async deleteLink(sessionId: string, id: string): Promise<boolean> {
      const res = await db
        .deleteFrom('replay_links')
        .where('session_id', '=', sessionId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },

    linkByHash(hash: string): Promise<{ session_id: string; expires_at: number } | undefined> {
      return db
        .selectFrom('replay_links')
        .select(['session_id', 'expires_at'])
        .where('token_hash', '=', hash)
        .executeTakeFirst();
    },

    async insertRedaction(sessionId: string, userId: string, at: number): Promise<void> {
      await db
        .insertInto('redactions')
        .values({ session_id: sessionId, user_id: userId, created_at: at })
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    /** Forgets a deleted session's links and redactions. */
    async deleteOfSession(sessionId: string): Promise<void> {
      await db.deleteFrom('replay_links').where('session_id', '=', sessionId).execute();
      await db.deleteFrom('redactions').where('session_id', '=', sessionId).execute();
    },
  };
}
export type RecordingsStore = ReturnType<typeof recordingsStore>;
