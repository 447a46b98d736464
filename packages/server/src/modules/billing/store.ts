import { sql } from 'kysely';
import type { Cursor } from '../../db/keyset.js';
import { keysetPage } from '../../db/keyset.js';
import type { Db, Engine, StorageLevelsTable, Trx, UsageRecordsTable } from '../../db/types.js';
import { DAY_MS } from '../../lib/time.js';

export const STREAMING_MINUTES = 'streaming_minutes';
export const STORAGE_BYTES = 'storage_bytes';

/** Which records a usage read covers: an organisation, or one project of it; optionally one session. */
export interface UsageScope {
  orgId: string;
  projectId?: string;
  sessionId?: string;
}

/** SQL of usage and billing. Every read names its organisation. */
export function billingStore(db: Db, engine: Engine) {
  function scoped(q: Db | Trx, scope: UsageScope) {
    let s = q.selectFrom('usage_records').where('org_id', '=', scope.orgId);
    if (scope.projectId !== undefined) s = s.where('project_id', '=', scope.projectId);
    if (scope.sessionId !== undefined) s = s.where('session_id', '=', scope.sessionId);
    return s;
  }

  return {
    /** Inserts records; one whose dedupe_key is already stored is skipped (a retried write). */
    async insertRecords(q: Db | Trx, rows: UsageRecordsTable[]): Promise<void> {
      if (rows.length === 0) return;
      await q
        .insertInto('usage_records')
        .values(rows)
        .onConflict((oc) => oc.column('dedupe_key').doNothing())
        .execute();
    },

    /** The session's organisation and project, while the session exists. */
    sessionRef(q: Db | Trx, sessionId: string) {
      return q
        .selectFrom('sessions')
        .innerJoin('projects', 'projects.id', 'sessions.project_id')
        .select(['sessions.project_id', 'projects.org_id'])
        .where('sessions.id', '=', sessionId)
        .executeTakeFirst();
    },

    /** The session's recorded level, locked for this transaction on PostgreSQL. */
    async lockLevel(trx: Trx, row: StorageLevelsTable): Promise<StorageLevelsTable> {
      // Made at zero when missing, so that there is a row to lock.
      await trx
        .insertInto('storage_levels')
        .values({ ...row, bytes: 0 })
        .onConflict((oc) => oc.column('session_id').doNothing())
        .execute();
      let q = trx.selectFrom('storage_levels').selectAll().where('session_id', '=', row.session_id);
      if (engine === 'postgres') q = q.forUpdate();
      const level = await q.executeTakeFirstOrThrow();
      return { ...level, bytes: Number(level.bytes), updated_at: Number(level.updated_at) };
    },

    level(q: Db | Trx, sessionId: string) {
      return q
        .selectFrom('storage_levels')
        .selectAll()
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
    },

    async deleteLevel(trx: Trx, sessionId: string): Promise<void> {
      await trx.deleteFrom('storage_levels').where('session_id', '=', sessionId).execute();
    },

    async setLevel(trx: Trx, sessionId: string, bytes: number, at: number): Promise<void> {
      await trx
        .updateTable('storage_levels')
        .set({ bytes, updated_at: at })
        .where('session_id', '=', sessionId)
        .execute();
    },

    /** Participant-minutes of the organisation recorded since `since`. */
    async minutesSince(q: Db | Trx, orgId: string, since: number): Promise<number> {
      const r = await q
        .selectFrom('usage_records')
        .select(sql<number | string | null>`sum(value)`.as('total'))
        .where('org_id', '=', orgId)
        .where('usage_type', '=', STREAMING_MINUTES)
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(r?.total ?? 0);
    },

    /** Bytes the organisation stores now (recordings and exports). */
    async storedBytes(q: Db | Trx, orgId: string): Promise<number> {
      const r = await q
        .selectFrom('storage_levels')
        .select(sql<number | string | null>`sum(bytes)`.as('total'))
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return Number(r?.total ?? 0);
    },

    /** A page of records, newest first. */
    async records(
      scope: UsageScope,
      range: { from?: number; to?: number },
      after: Cursor | null,
      limit: number,
    ): Promise<UsageRecordsTable[]> {
      let q = scoped(db, scope).selectAll();
      if (range.from !== undefined) q = q.where('created_at', '>=', range.from);
      if (range.to !== undefined) q = q.where('created_at', '<', range.to);
      const rows = await keysetPage(q, after, 'desc', limit).execute();
      return rows.map((r) => ({ ...r, value: Number(r.value), created_at: Number(r.created_at) }));
    },

    /** The sum of one usage type's values over a range. */
    async total(scope: UsageScope, type: string, range: { from?: number; to?: number }): Promise<number> {
      let q = scoped(db, scope)
        .select(sql<number | string | null>`sum(value)`.as('total'))
        .where('usage_type', '=', type);
      if (range.from !== undefined) q = q.where('created_at', '>=', range.from);
      if (range.to !== undefined) q = q.where('created_at', '<', range.to);
      const r = await q.executeTakeFirst();
      return Number(r?.total ?? 0);
    },

    /** Per UTC day (ms since 1970 of its midnight) and usage type, the sum of the values in [from, to). */
    async daily(
      scope: UsageScope,
      from: number,
      to: number,
    ): Promise<Array<{ day: number; usage_type: string; total: number }>> {
      const day = sql<number>`(created_at / ${sql.lit(DAY_MS)})`;
      const rows = await scoped(db, scope)
        .select([day.as('day'), 'usage_type', sql<number | string>`sum(value)`.as('total')])
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy([day, 'usage_type'])
        .execute();
      return rows.map((r) => ({
        day: Math.floor(Number(r.day)) * DAY_MS,
        usage_type: r.usage_type,
        total: Number(r.total),
      }));
    },

    customer(orgId: string, projectKey: string) {
      return db
        .selectFrom('billing_customers')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('project_key', '=', projectKey)
        .executeTakeFirst();
    },

    /** Keeps the first customer stored for an owner; returns the one kept. */
    async keepCustomer(orgId: string, projectKey: string, customerId: string, at: number): Promise<string> {
      await db
        .insertInto('billing_customers')
        .values({ customer_id: customerId, org_id: orgId, project_key: projectKey, created_at: at })
        .onConflict((oc) => oc.doNothing())
        .execute();
      const kept = await this.customer(orgId, projectKey);
      return kept?.customer_id ?? customerId;
    },

    customerOwner(q: Db | Trx, customerId: string) {
      return q
        .selectFrom('billing_customers')
        .select('org_id')
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
    },

    /** Records a provider event id; false when it was recorded before (already applied). */
    async claimEvent(trx: Trx, id: string, type: string, at: number): Promise<boolean> {
      const r = await trx
        .insertInto('billing_events')
        .values({ id, type, created_at: at })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async forgetEvents(before: number): Promise<void> {
      await db.deleteFrom('billing_events').where('created_at', '<', before).execute();
    },

    /** Sets a subscription's status unless a later reading of it already did. */
    async setSubscription(
      trx: Trx,
      row: { id: string; org_id: string; customer_id: string; status: string; event_at: number },
    ): Promise<void> {
      await trx
        .insertInto('billing_subscriptions')
        .values(row)
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({ status: row.status, event_at: row.event_at })
            .where('billing_subscriptions.event_at', '<=', row.event_at),
        )
        .execute();
    },

    async hasActiveSubscription(q: Db | Trx, orgId: string, statuses: readonly string[]): Promise<boolean> {
      const r = await q
        .selectFrom('billing_subscriptions')
        .select('id')
        .where('org_id', '=', orgId)
        .where('status', 'in', [...statuses])
        .limit(1)
        .executeTakeFirst();
      return r !== undefined;
    },
  };
}
export type BillingStore = ReturnType<typeof billingStore>;
