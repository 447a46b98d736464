import type { Cursor } from '../../db/keyset.js';
import { keysetPage } from '../../db/keyset.js';
import type { Db, OAuthClientsTable, OAuthCodesTable, OAuthGrantsTable, Trx } from '../../db/types.js';

/** SQL of OAuth clients, codes and grants. Secrets are stored only as HMACs. */
export function oauthStore(db: Db) {
  return {
    async insertClient(row: OAuthClientsTable): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },

    /** Keeps what a client metadata document said last (its address is the client id). */
    async upsertClient(row: OAuthClientsTable): Promise<void> {
      await db
        .insertInto('oauth_clients')
        .values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ name: row.name, redirect_uris: row.redirect_uris }))
        .execute();
    },

    client(id: string) {
      return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async insertCode(row: OAuthCodesTable): Promise<void> {
      await db.insertInto('oauth_codes').values(row).execute();
    },

    /**
     * Takes a code: deleted and returned by one statement, so that of concurrent exchanges only the
     * one whose delete found it gets it (a read, then a delete, let each of them see it).
     */
    takeCode(trx: Trx, hash: string): Promise<OAuthCodesTable | undefined> {
      return trx.deleteFrom('oauth_codes').where('code_hash', '=', hash).returningAll().executeTakeFirst();
    },

    async insertGrant(trx: Trx, row: OAuthGrantsTable): Promise<void> {
      await trx.insertInto('oauth_grants').values(row).execute();
    },

    /** Remembers that a code was exchanged, and for which grant. */
    async spendCode(trx: Trx, hash: string, grantId: string, at: number): Promise<void> {
      await trx.insertInto('oauth_spent_codes').values({ hash, grant_id: grantId, created_at: at }).execute();
    },

    /** When the code was exchanged already, revokes the grant that exchange made; false for a code never exchanged. */
    async revokeSpentCode(trx: Trx, hash: string, at: number): Promise<boolean> {
      const spent = await trx
        .selectFrom('oauth_spent_codes')
        .select('grant_id')
        .where('hash', '=', hash)
        .executeTakeFirst();
      if (!spent) return false;
      await trx
        .updateTable('oauth_grants')
        .set({ revoked_at: at })
        .where('id', '=', spent.grant_id)
        .where('revoked_at', 'is', null)
        .execute();
      return true;
    },

    /** The grant of an access token, while its user is still in its organisation. */
    grantByAccess(hash: string) {
      return db
        .selectFrom('oauth_grants')
        .innerJoin('users', (j) =>
          j.onRef('users.id', '=', 'oauth_grants.user_id').onRef('users.org_id', '=', 'oauth_grants.org_id'),
        )
        .selectAll('oauth_grants')
        .where('oauth_grants.access_hash', '=', hash)
        .executeTakeFirst();
    },

    /** The grant of a refresh token, while its user is still in its organisation. */
    grantByRefresh(trx: Trx, hash: string) {
      return trx
        .selectFrom('oauth_grants')
        .innerJoin('users', (j) =>
          j.onRef('users.id', '=', 'oauth_grants.user_id').onRef('users.org_id', '=', 'oauth_grants.org_id'),
        )
        .selectAll('oauth_grants')
        .where('oauth_grants.refresh_hash', '=', hash)
        .executeTakeFirst();
    },

    /** The grant a spent refresh token belonged to, and when it was spent. */
    spent(trx: Trx, hash: string) {
      return trx
        .selectFrom('oauth_spent_refresh')
        .select(['grant_id', 'created_at'])
        .where('hash', '=', hash)
        .executeTakeFirst();
    },

    /** Forgets expired codes, and codes and refresh tokens spent before `before`. */
    async sweep(at: number, before: number): Promise<void> {
      await db.deleteFrom('oauth_codes').where('expires_at', '<', at).execute();
      await db.deleteFrom('oauth_spent_refresh').where('created_at', '<', before).execute();
      await db.deleteFrom('oauth_spent_codes').where('created_at', '<', before).execute();
    },

    /** Replaces a grant's tokens if its refresh token is still `previous`; false when it was not. */
    async rotate(
      trx: Trx,
      id: string,
      previous: string,
      next: { access_hash: string; access_expires_at: number; refresh_hash: string },
      at: number,
    ): Promise<boolean> {
      const r = await trx
        .updateTable('oauth_grants')
        .set(next)
        .where('id', '=', id)
        .where('refresh_hash', '=', previous)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await trx
        .insertInto('oauth_spent_refresh')
        .values({ hash: previous, grant_id: id, created_at: at })
        .execute();
      return true;
    },

    async revoke(q: Db | Trx, id: string, at: number, userId?: string): Promise<boolean> {
      let u = q
        .updateTable('oauth_grants')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null);
      if (userId !== undefined) u = u.where('user_id', '=', userId);
      const r = await u.executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async clientNames(ids: string[]): Promise<Map<string, string | null>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('oauth_clients')
        .select(['id', 'name'])
        .where('id', 'in', ids)
        .execute();
      return new Map(rows.map((r) => [r.id, r.name]));
    },

    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('oauth_grants').set({ last_used_at: at }).where('id', '=', id).execute();
    },

    grants(userId: string, after: Cursor | null, limit: number) {
      return keysetPage(
        db
          .selectFrom('oauth_grants')
          .selectAll()
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null),
        after,
        'desc',
        limit,
      ).execute();
    },
  };
}
export type OAuthStore = ReturnType<typeof oauthStore>;
