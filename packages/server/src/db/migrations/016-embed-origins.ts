import type { Migration } from 'kysely';

/**
 * A project's `embed_origins`: the sites allowed to frame its prebuilt room (`/embed/{projectId}`),
 * a JSON array of exact origins; none (`[]`) for every project until its owner lists some.
 */
export function embedOriginsMigration(): Migration {
  return {
    async up(db) {
      await db.schema
        .alterTable('projects')
        .addColumn('embed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
  };
}
