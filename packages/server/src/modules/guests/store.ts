import { keysetPage, type Cursor } from '../../db/keyset.js';
import type { Db, JoinLinksTable, SessionsTable, Trx } from '../../db/types.js';

/** A join link as listed: everything but its token's hash. */
export type ListedJoinLink = Omit<JoinLinksTable, 'token_hash'>;

/** SQL of join links: their tokens kept hashed, their uses counted in one conditional update. */
export function guestsStore(db: Db) {
  return {
    async insert(q: Db | Trx, row: JoinLinksTable): Promise<void> {
      await q.insertInto('join_links').values(row).execute();
    },

    /** A page of a session's links, newest first. */
    list(sessionId: string, limit: number, after: Cursor | null): Promise<ListedJoinLink[]> {
      const q = db
        .selectFrom('join_links')
        .select([
          'id',
          'session_id',
          'project_id',
          'can_publish',
          'max_uses',
          'uses',
          'created_at',
          'expires_at',
        ])
        .where('session_id', '=', sessionId);
      return keysetPage(q, after, 'desc', limit).execute();
    },

    /** Deletes one link of a session; whether it was there. */
    async delete(sessionId: string, id: string): Promise<boolean> {
      const res = await db
        .deleteFrom('join_links')
        .where('session_id', '=', sessionId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },

    /** The link of a token's hash, with its session and the session's organisation. */
    async byHash(
      hash: string,
    ): Promise<{ link: ListedJoinLink; session: SessionsTable; orgId: string } | undefined> {
      const row = await db
        .selectFrom('join_links')
        .innerJoin('sessions', 'sessions.id', 'join_links.session_id')
        .innerJoin('projects', 'projects.id', 'sessions.project_id')
        .selectAll('sessions')
        .select([
          'join_links.id as link_id',
          'join_links.can_publish',
          'join_links.max_uses',
          'join_links.uses',
          'join_links.created_at as link_created_at',
          'join_links.expires_at',
          'projects.org_id',
        ])
        .where('join_links.token_hash', '=', hash)
        .executeTakeFirst();
      if (!row) return undefined;
      const { link_id, can_publish, max_uses, uses, link_created_at, expires_at, org_id, ...session } = row;
      return {
        link: {
          id: link_id,
          session_id: session.id,
          project_id: session.project_id,
          can_publish,
          max_uses,
          uses,
          created_at: link_created_at,
          expires_at,
        },
        session,
        orgId: org_id,
      };
    },

    /** Counts one use of a link unless its uses are spent; whether it was counted. */
    async takeUse(id: string): Promise<boolean> {
      const res = await db
        .updateTable('join_links')
        .set((eb) => ({ uses: eb('uses', '+', 1) }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
  };
}
export type GuestsStore = ReturnType<typeof guestsStore>;
