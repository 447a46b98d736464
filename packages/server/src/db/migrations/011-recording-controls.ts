import type { Migration } from 'kysely';

/**
 * What a session records: its recording rules (JSON, in order) and, while paused, since when.
 * A session without a row records everything and is not paused.
 */
export function recordingControlsMigration(): Migration {
  return {
    async up(db) {
      await db.schema
        .createTable('recording_controls')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('rules', 'text', (c) => c.notNull())
        .addColumn('paused_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
