import { keysetPage, type Cursor } from '../../db/keyset.js';
import type { Db, ProjectsTable, Trx } from '../../db/types.js';

/**
 * SQL of projects; every query names the organisation. A read that may be part of a caller's
 * transaction takes its handle first; outside any, the caller passes `db`, the database itself.
 */
export function projectsStore(db: Db) {
  return {
    db,
    async insert(q: Db | Trx, row: ProjectsTable): Promise<void> {
      await q.insertInto('projects').values(row).execute();
    },
    byId(q: Db | Trx, orgId: string, id: string): Promise<ProjectsTable | undefined> {
      return q
        .selectFrom('projects')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /** A project by id alone: for what any page may read of it (the embed page's framing). */
    anyById(id: string): Promise<ProjectsTable | undefined> {
      return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** The organisation's first project: the default scope of a dashboard user. */
    first(q: Db | Trx, orgId: string): Promise<ProjectsTable | undefined> {
      return q
        .selectFrom('projects')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(1)
        .executeTakeFirst();
    },
    /** Oldest first, keyset-paginated. */
    list(orgId: string, limit: number, after: Cursor | null): Promise<ProjectsTable[]> {
      const q = db.selectFrom('projects').selectAll().where('org_id', '=', orgId);
      return keysetPage(q, after, 'asc', limit).execute();
    },
    async update(
      orgId: string,
      id: string,
      patch: Partial<Pick<ProjectsTable, 'name' | 'environment' | 'embed_origins'>>,
    ): Promise<void> {
      await db.updateTable('projects').set(patch).where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}
export type ProjectsStore = ReturnType<typeof projectsStore>;
