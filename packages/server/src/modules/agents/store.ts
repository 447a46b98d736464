import type { Cursor } from '../../db/keyset.js';
import { keysetPage } from '../../db/keyset.js';
import type { AgentActivityTable, AgentTokensTable, Db } from '../../db/types.js';

/** SQL of agent tokens and the activity log. Every read names its organisation. */
export function agentsStore(db: Db) {
  return {
    async insertToken(row: AgentTokensTable): Promise<void> {
      await db.insertInto('agent_tokens').values(row).execute();
    },

    /** The organisation's tokens, or only those `userId` made. */
    tokens(orgId: string, userId: string | null, after: Cursor | null, limit: number) {
      let q = db.selectFrom('agent_tokens').selectAll().where('org_id', '=', orgId);
      if (userId !== null) q = q.where('user_id', '=', userId);
      return keysetPage(q, after, 'asc', limit).execute();
    },

    /**
     * The token a secret hashes to (no tenant: the secret is the credential), while the user who
     * made it is still in its organisation: a member removed takes their tokens with them.
     */
    tokenByHash(hash: string) {
      return db
        .selectFrom('agent_tokens')
        .innerJoin('users', (j) =>
          j.onRef('users.id', '=', 'agent_tokens.user_id').onRef('users.org_id', '=', 'agent_tokens.org_id'),
        )
        .selectAll('agent_tokens')
        .where('agent_tokens.secret_hash', '=', hash)
        .executeTakeFirst();
    },

    async deleteToken(orgId: string, userId: string | null, id: string): Promise<boolean> {
      let d = db.deleteFrom('agent_tokens').where('org_id', '=', orgId).where('id', '=', id);
      if (userId !== null) d = d.where('user_id', '=', userId);
      const r = await d.executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async touchToken(id: string, at: number): Promise<void> {
      await db.updateTable('agent_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
    },

    async insertActivity(row: AgentActivityTable): Promise<void> {
      await db.insertInto('agent_activity').values(row).execute();
    },

    /** The organisation's activity, or one project's. */
    activity(orgId: string, projectId: string | null, after: Cursor | null, limit: number) {
      let q = db.selectFrom('agent_activity').selectAll().where('org_id', '=', orgId);
      if (projectId !== null) q = q.where('project_id', '=', projectId);
      return keysetPage(q, after, 'desc', limit).execute();
    },
  };
}
export type AgentsStore = ReturnType<typeof agentsStore>;
