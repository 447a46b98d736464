import type { ApiKeysTable, Db, Trx } from '../../db/types.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';

/** The two kinds of stored key. */
export type KeyKind = 'api_key' | 'restricted_key';

/** SQL of API keys and restricted keys; every read names the organisation, except lookup by secret hash. */
export function keysStore(db: Db) {
  return {
    async insert(q: Db | Trx, row: ApiKeysTable): Promise<void> {
      await q.insertInto('api_keys').values(row).execute();
    },
    byId(orgId: string, kind: KeyKind, id: string): Promise<ApiKeysTable | undefined> {
      return db
        .selectFrom('api_keys')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('kind', '=', kind)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    list(
      orgId: string,
      kind: KeyKind,
      projectId: string | undefined,
      limit: number,
      after: Cursor | null,
    ): Promise<ApiKeysTable[]> {
      let q = db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('kind', '=', kind);
      if (projectId) q = q.where('project_id', '=', projectId);
      return keysetPage(q, after, 'asc', limit).execute();
    },
    async setLabel(orgId: string, kind: KeyKind, id: string, label: string | null): Promise<void> {
      await db
        .updateTable('api_keys')
        .set({ label })
        .where('org_id', '=', orgId)
        .where('kind', '=', kind)
        .where('id', '=', id)
        .execute();
    },
    /** Deletes the key; true when there was one. */
    async delete(orgId: string, kind: KeyKind, id: string): Promise<boolean> {
      const res = await db
        .deleteFrom('api_keys')
        .where('org_id', '=', orgId)
        .where('kind', '=', kind)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },
    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}
export type KeysStore = ReturnType<typeof keysStore>;
