import type { Migration } from 'kysely';

/**
 * Each live connection's presence row gains the kind of credential its token came from
 * (`api_key`, `member`, `guest` or `restricted_key`; null for rows written before): a connection
 * from a restricted key never replaces one from a stronger credential, in whichever process it is.
 */
export function liveCredentialsMigration(): Migration {
  return {
    async up(db) {
      await db.schema.alterTable('session_members').addColumn('credential', 'text').execute();
    },
  };
}
