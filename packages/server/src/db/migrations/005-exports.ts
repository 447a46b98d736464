import type { Kysely, Migration } from 'kysely';

/**
 * MP4 exports: one row per export job, beside its `jobs` row (which is deleted once the job
 * succeeds): what was asked, where it stands, and the file's size (counted as stored bytes).
 */
export function exportsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('exports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('layout', 'text', (c) => c.notNull())
        .addColumn('orientation', 'text', (c) => c.notNull())
        .addColumn('focus', 'text')
        // The attempt that last moved the row: a worker that lost its lease cannot overwrite a newer one.
        .addColumn('attempts', 'integer', (c) => c.notNull())
        // Thousandths of the render done.
        .addColumn('progress', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('error_log', 'text')
        .addColumn('size_bytes', 'bigint')
        .addColumn('duration_ms', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('completed_at', 'bigint')
        .execute();
      await db.schema.createIndex('exports_session').on('exports').column('session_id').execute();
      await db.schema.createIndex('exports_org').on('exports').columns(['org_id', 'status']).execute();
    },
  };
}
