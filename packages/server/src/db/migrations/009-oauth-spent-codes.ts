import type { Migration } from 'kysely';

/**
 * Spent authorization codes: each code's hash and the grant its exchange made, so that the code
 * presented again revokes that grant (OAuth 2.1 §4.1.2) rather than only being refused.
 */
export function oauthSpentCodesMigration(): Migration {
  return {
    async up(db) {
      await db.schema
        .createTable('oauth_spent_codes')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
