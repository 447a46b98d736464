import type { Migration } from 'kysely';

/**
 * Redelivery: a delivery log row may be a redelivery of another (`redelivery_of`, its id), sent
 * once at a person's request. Deliveries are found by their event too: the event's body is kept
 * while a logged delivery of it is, so every row of the log can show what was sent.
 */
export function webhookRedeliveryMigration(): Migration {
  return {
    async up(db) {
      await db.schema.alterTable('webhook_deliveries').addColumn('redelivery_of', 'text').execute();
      await db.schema
        .createIndex('webhook_deliveries_event')
        .on('webhook_deliveries')
        .column('event_id')
        .execute();
    },
  };
}
