import { sql, type Migration } from 'kysely';

/**
 * More from a recording:
 * - exports gain their options: a clip (`from_ts`, `to_ts`, ms since 1970, null for the whole
 *   recording), the format (`mp4` or `m4a`), the resolution (`720p` or `1080p`), whether names are
 *   drawn (1) and whether the project's auto-export made it (1). Exports made before keep the
 *   defaults they were made with.
 * - `auto_exports`: a project's auto-export preset (the export options as JSON): while enabled,
 *   each session of the project is exported with them once its recording is ready.
 * - `storyboards`: a session's thumbnail sprite, made once its recording is ready: its grid of
 *   tiles (every `interval_ms`, `columns` wide, each `tile_w`x`tile_h`), and where the making stands.
 */
export function exportOptionsMigration(): Migration {
  return {
    async up(db) {
      // One column per statement: SQLite adds one at a time.
      const exports = () => db.schema.alterTable('exports');
      await exports().addColumn('from_ts', 'bigint').execute();
      await exports().addColumn('to_ts', 'bigint').execute();
      await exports()
        .addColumn('format', 'text', (c) => c.notNull().defaultTo('mp4'))
        .execute();
      await exports()
        .addColumn('resolution', 'text', (c) => c.notNull().defaultTo('720p'))
        .execute();
      await exports()
        .addColumn('names', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await exports()
        .addColumn('auto', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // At most one auto-export per session, whichever process handles its announcement.
      await db.schema
        .createIndex('exports_auto_once')
        .on('exports')
        .column('session_id')
        .unique()
        .where(sql.ref('auto'), '=', 1)
        .execute();
      await db.schema
        .createTable('auto_exports')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('storyboards')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('interval_ms', 'integer', (c) => c.notNull())
        .addColumn('columns', 'integer', (c) => c.notNull())
        .addColumn('tile_w', 'integer', (c) => c.notNull())
        .addColumn('tile_h', 'integer', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .execute();
    },
  };
}
