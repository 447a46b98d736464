import type { Migration } from 'kysely';

/**
 * Exports keep the spans in which recording was paused only when asked (`keep_gaps`, 1): by
 * default they are cut out. Exports made before this kept them, as nothing was ever paused.
 */
export function exportKeepGapsMigration(): Migration {
  return {
    async up(db) {
      await db.schema
        .alterTable('exports')
        .addColumn('keep_gaps', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
