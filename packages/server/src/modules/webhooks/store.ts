import type { Db, Trx, WebhookDeliveriesTable, WebhooksTable } from '../../db/types.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';

/** SQL of webhooks, their events and their delivery log. Reads by id name the project. */
export function webhooksStore(db: Db) {
  return {
    async insert(q: Db | Trx, row: WebhooksTable): Promise<void> {
      await q.insertInto('webhooks').values(row).execute();
    },
    byId(projectId: string, id: string): Promise<WebhooksTable | undefined> {
      return db
        .selectFrom('webhooks')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /** A webhook by id alone: for the delivery worker, which acts for no caller. */
    find(id: string): Promise<WebhooksTable | undefined> {
      return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    },
    list(projectId: string, includeInactive: boolean, limit: number, after: Cursor | null) {
      let q = db.selectFrom('webhooks').selectAll().where('project_id', '=', projectId);
      if (!includeInactive) q = q.where('is_active', '=', 1);
      return keysetPage(q, after, 'asc', limit).execute();
    },
    active(q: Db | Trx, projectId: string) {
      return q
        .selectFrom('webhooks')
        .select(['id', 'events'])
        .where('project_id', '=', projectId)
        .where('is_active', '=', 1)
        .execute();
    },
    async update(projectId: string, id: string, patch: Partial<WebhooksTable>): Promise<void> {
      await db
        .updateTable('webhooks')
        .set(patch)
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .execute();
    },
    /** Deletes a hook and its delivery log, as part of `trx`; false when there was none. */
    async delete(trx: Trx, projectId: string, id: string): Promise<boolean> {
      {
        const res = await trx
          .deleteFrom('webhooks')
          .where('project_id', '=', projectId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(res.numDeletedRows) === 0) return false;
        await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
        return true;
      }
    },
    async insertEvent(
      q: Db | Trx,
      row: { id: string; project_id: string; type: string; body: string; created_at: number },
    ): Promise<void> {
      await q.insertInto('webhook_events').values(row).execute();
    },
    event(id: string) {
      return db
        .selectFrom('webhook_events')
        .select(['type', 'body', 'created_at'])
        .where('id', '=', id)
        .executeTakeFirst();
    },
    async insertDelivery(q: Db | Trx, row: WebhookDeliveriesTable): Promise<void> {
      await q.insertInto('webhook_deliveries').values(row).execute();
    },
    deliveries(webhookId: string, limit: number, after: Cursor | null) {
      const q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
      return keysetPage(q, after, 'desc', limit).execute();
    },
    /** Forgets events and log rows older than `before` (the retry schedule is hours, not weeks). */
    async sweep(before: number): Promise<void> {
      await db.deleteFrom('webhook_events').where('created_at', '<', before).execute();
      await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).execute();
    },
  };
}
export type WebhooksStore = ReturnType<typeof webhooksStore>;
