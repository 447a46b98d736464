import { sql } from 'kysely';
import type { Db, InvitationsTable, Trx } from '../../db/types.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';

/** SQL of invitations; every read names the organisation, except lookup by token hash. */
export function invitationsStore(db: Db) {
  return {
    async insert(q: Db | Trx, row: InvitationsTable): Promise<void> {
      await q.insertInto('invitations').values(row).execute();
    },
    byTokenHash(hash: string): Promise<InvitationsTable | undefined> {
      return db.selectFrom('invitations').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    },
    /** The invitation of a token with what its page shows: the organisation's name, the inviter's email. */
    describeByTokenHash(hash: string) {
      return (
        db
          .selectFrom('invitations as i')
          .innerJoin('orgs as o', 'o.id', 'i.org_id')
          // created_by is a user id, or the kind of credential (an API key) that matches no user.
          .leftJoin('users as u', 'u.id', 'i.created_by')
          .select([
            'i.email',
            'i.role',
            'i.expires_at',
            'i.accepted_at',
            'o.id as org_id',
            'o.name as org_name',
            'u.email as inviter_email',
          ])
          .where('i.token_hash', '=', hash)
          .executeTakeFirst()
      );
    },
    list(orgId: string, limit: number, after: Cursor | null): Promise<InvitationsTable[]> {
      const q = db.selectFrom('invitations').selectAll().where('org_id', '=', orgId);
      return keysetPage(q, after, 'desc', limit).execute();
    },
    async delete(orgId: string, id: string): Promise<boolean> {
      const res = await db
        .deleteFrom('invitations')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },
    memberByEmail(q: Db | Trx, orgId: string, email: string) {
      return q
        .selectFrom('users')
        .select('id')
        .where('org_id', '=', orgId)
        .where('email', '=', email)
        .executeTakeFirst();
    },
    /** Marks the invitation used if it still can be; false when already used or expired. */
    async accept(trx: Trx, id: string, userId: string, at: number): Promise<boolean> {
      const res = await trx
        .updateTable('invitations')
        .set({ accepted_at: at, accepted_by: userId })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    /** Moves a user into the organisation with a role. */
    async moveUser(trx: Trx, userId: string, orgId: string, role: string): Promise<void> {
      await trx.updateTable('users').set({ org_id: orgId, role }).where('id', '=', userId).execute();
    },
    /** True when the user is the only owner of an organisation that has other members. */
    async wouldOrphan(q: Db | Trx, userId: string, orgId: string): Promise<boolean> {
      const { rows } = await sql<{ owners: number; members: number }>`
        select
          (select count(*) from users where org_id = ${orgId} and role = 'owner' and id <> ${userId}) as owners,
          (select count(*) from users where org_id = ${orgId} and id <> ${userId}) as members`.execute(q);
      const r = rows[0]!;
      return Number(r.members) > 0 && Number(r.owners) === 0;
    },
  };
}
export type InvitationsStore = ReturnType<typeof invitationsStore>;
