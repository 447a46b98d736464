import type { Kysely, Migration } from 'kysely';

/**
 * Agent access: agent tokens (`sat_…`), the activity log of every MCP tool call, and OAuth 2.1 for
 * MCP clients: registered clients, authorization codes, grants (with their current access and
 * refresh tokens) and the refresh tokens already spent (a reuse revokes the grant).
 */
export function agentsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agent_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        // the user who made it: the agent acts with that user's rights, never more
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        // space-separated: mcp:read, mcp:write
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('agent_tokens_org')
        .on('agent_tokens')
        .columns(['org_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('agent_activity')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        // `agent_token:<id>` or `oauth:<grant id>`
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('tool', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text')
        // `succeeded`, `failed` or `refused`
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('agent_activity_org')
        .on('agent_activity')
        .columns(['org_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('oauth_clients')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('secret_hash', 'text')
        .addColumn('name', 'text')
        // JSON array of exact redirect addresses
        .addColumn('redirect_uris', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('oauth_codes')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('code_challenge', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('oauth_grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('access_hash', 'text', (c) => c.notNull().unique())
        .addColumn('access_expires_at', 'bigint', (c) => c.notNull())
        .addColumn('refresh_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('oauth_grants_user')
        .on('oauth_grants')
        .columns(['user_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createTable('oauth_spent_refresh')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
