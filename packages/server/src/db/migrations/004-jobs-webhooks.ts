import type { Kysely, Migration } from 'kysely';

/**
 * The durable job queue (webhook deliveries, recording finalisation, exports) and webhooks:
 * their registrations, the exact bytes of each event, and the log of every delivery attempt.
 */
export function jobsWebhooksMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        // Jobs of one group (a webhook's deliveries) share a concurrency limit.
        .addColumn('group_key', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('run_at', 'bigint', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // Claims read due jobs of a kind in order straight off this index.
      await db.schema
        .createIndex('jobs_due')
        .on('jobs')
        .columns(['kind', 'status', 'run_at', 'id'])
        .execute();

      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('is_active', 'integer', (c) => c.notNull())
        .addColumn('description', 'text')
        // AES-GCM under a key derived from the root secret: signing needs the secret itself.
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhooks_project')
        .on('webhooks')
        .columns(['project_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('webhook_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        // The payload exactly as sent, on every attempt: signatures are over these bytes.
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_events_created')
        .on('webhook_events')
        .column('created_at')
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_hook')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'created_at', 'id'])
        .execute();
    },
  };
}
