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
    /** The bodies of these events, by id (those still kept). */
    async eventBodies(ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('webhook_events')
        .select(['id', 'body'])
        .where('id', 'in', ids)
        .execute();
      return new Map(rows.map((r) => [r.id, r.body]));
    },
    async insertDelivery(q: Db | Trx, row: WebhookDeliveriesTable): Promise<void> {
      await q.insertInto('webhook_deliveries').values(row).execute();
    },
    /** Records what became of a redelivery's attempt in its row, logged `pending` when asked for. */
    async settleDelivery(
      trx: Trx,
      id: string,
      result: Pick<WebhookDeliveriesTable, 'status' | 'response_status' | 'error' | 'duration_ms'>,
    ): Promise<void> {
      await trx.updateTable('webhook_deliveries').set(result).where('id', '=', id).execute();
    },
    /** One row of a webhook's delivery log. */
    delivery(webhookId: string, id: string): Promise<WebhookDeliveriesTable | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    deliveries(webhookId: string, limit: number, after: Cursor | null) {
      const q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
      return keysetPage(q, after, 'desc', limit).execute();
    },
    /**
     * Forgets log rows older than `before` (the retry schedule is hours, not weeks), and events
     * older than that which no row left refers to: a row's payload is there as long as the row is.
     */
    async sweep(before: number): Promise<void> {
      await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).execute();
      await db
        .deleteFrom('webhook_events')
        .where('created_at', '<', before)
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries')
                .select('webhook_deliveries.id')
                .whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'),
            ),
          ),
        )
        .execute();
    },
  };
}
export type WebhooksStore = ReturnType<typeof webhooksStore>;
