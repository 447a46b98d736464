import { sql, type Kysely, type Migration } from 'kysely';
import type { Engine } from '../types.js';

/**
 * Usage and billing: metered usage records, each session's stored bytes as last recorded, the
 * organisations' payment-provider customers and subscriptions, and the provider events applied.
 */
export function usageMigration(engine: Engine): Migration {
  // SQLite's `real` is an 8-byte float; PostgreSQL's is 4 bytes, so it needs `double precision`.
  const float = engine === 'postgres' ? sql`double precision` : sql`real`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('usage_records')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        // `streaming_minutes` (participant-minutes) or `storage_bytes` (a change of stored bytes)
        .addColumn('usage_type', 'text', (c) => c.notNull())
        .addColumn('value', float, (c) => c.notNull())
        // What makes a retried write of the same record a no-op.
        .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
        // recorded_at
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      for (const [name, cols] of [
        ['usage_records_org', ['org_id', 'created_at', 'id']],
        // The limits' monthly sum is answered from this index alone (it holds `value`).
        ['usage_records_org_type', ['org_id', 'usage_type', 'created_at', 'value']],
        ['usage_records_project', ['project_id', 'created_at', 'id']],
        ['usage_records_session', ['session_id', 'created_at', 'id']],
      ] as const)
        await db.schema
          .createIndex(name)
          .on('usage_records')
          .columns([...cols])
          .execute();

      await db.schema
        .createTable('storage_levels')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('storage_levels_org').on('storage_levels').column('org_id').execute();

      await db.schema
        .createTable('billing_customers')
        .addColumn('customer_id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        // '' for the organisation's own customer, else the project's id
        .addColumn('project_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('billing_customers_owner')
        .on('billing_customers')
        .columns(['org_id', 'project_key'])
        .unique()
        .execute();

      await db.schema
        .createTable('billing_subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        // the `created` time of the provider event that set the status: older events are ignored
        .addColumn('event_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('billing_subscriptions_org')
        .on('billing_subscriptions')
        .columns(['org_id', 'status'])
        .execute();

      await db.schema
        .createTable('billing_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
