import type { Db, SessionsTable, Trx } from '../../db/types.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';

/** SQL of sessions; every read names the project, except the public catalog. */
export function sessionsStore(db: Db) {
  return {
    async insert(q: Db | Trx, row: SessionsTable): Promise<void> {
      await q.insertInto('sessions').values(row).execute();
    },
    byId(q: Db | Trx, projectId: string, id: string): Promise<SessionsTable | undefined> {
      return q
        .selectFrom('sessions')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /**
     * A session by id alone, for access that is not a credential's (a public session, a replay
     * link whose token names it); with `publicOnly`, only when it is public.
     */
    byIdOnly(id: string, publicOnly: boolean): Promise<SessionsTable | undefined> {
      const q = db.selectFrom('sessions').selectAll().where('id', '=', id);
      return (publicOnly ? q.where('is_public', '=', 1) : q).executeTakeFirst();
    },
    /** Newest first, keyset-paginated. */
    list(projectId: string, limit: number, after: Cursor | null): Promise<SessionsTable[]> {
      return keysetPage(
        db.selectFrom('sessions').selectAll().where('project_id', '=', projectId),
        after,
        'desc',
        limit,
      ).execute();
    },
    listPublic(limit: number, after: Cursor | null): Promise<SessionsTable[]> {
      return keysetPage(
        db.selectFrom('sessions').selectAll().where('is_public', '=', 1),
        after,
        'desc',
        limit,
      ).execute();
    },
    async setPublic(projectId: string, id: string, isPublic: boolean): Promise<boolean> {
      const res = await db
        .updateTable('sessions')
        .set({ is_public: isPublic ? 1 : 0 })
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    /** Deletes a session that is not live; false when it is live or missing. */
    async deleteIdle(q: Db | Trx, projectId: string, id: string): Promise<boolean> {
      const res = await q
        .deleteFrom('sessions')
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .where((eb) => eb.or([eb('started_at', 'is', null), eb('ended_at', 'is not', null)]))
        .executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },
  };
}
export type SessionsStore = ReturnType<typeof sessionsStore>;
