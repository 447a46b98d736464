import type { Migration } from 'kysely';

/**
 * Guests and display names: the name each live connection joined with, join links (a session's
 * invitation to people without an account, its token kept hashed) and removals (a participant
 * sent out of a live session, whose tokens issued before it are refused).
 */
export function guestsMigration(): Migration {
  return {
    async up(db) {
      await db.schema.alterTable('session_members').addColumn('display_name', 'text').execute();
      await db.schema
        .createTable('join_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('can_publish', 'integer', (c) => c.notNull())
        .addColumn('max_uses', 'integer')
        .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('join_links_session')
        .on('join_links')
        .columns(['session_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('removals')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('removed_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('removals_pk', ['session_id', 'user_id'])
        .execute();
    },
  };
}
