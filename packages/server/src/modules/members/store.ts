import { sql } from 'kysely';
import { lockOrg } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import type { Db, Engine, UsersTable } from '../../db/types.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';

/** SQL of an organisation's members (users). */
export function membersStore(db: Db, engine: Engine) {
  const otherOwnerExists = (orgId: string) =>
    sql<boolean>`(select count(*) from users o where o.org_id = ${orgId} and o.role = 'owner') > 1`;
  return {
    byId(orgId: string, userId: string): Promise<UsersTable | undefined> {
      return db
        .selectFrom('users')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', userId)
        .executeTakeFirst();
    },
    list(orgId: string, limit: number, after: Cursor | null): Promise<UsersTable[]> {
      const q = db.selectFrom('users').selectAll().where('org_id', '=', orgId);
      return keysetPage(q, after, 'asc', limit).execute();
    },
    /** Changes a role unless that would leave the organisation without an owner; false when refused. */
    async setRole(orgId: string, userId: string, role: string): Promise<boolean> {
      return transaction(db, async (trx) => {
        await lockOrg(trx, engine, orgId);
        let q = trx.updateTable('users').set({ role }).where('org_id', '=', orgId).where('id', '=', userId);
        if (role !== 'owner')
          q = q.where((eb) => eb.or([eb('role', '!=', 'owner'), otherOwnerExists(orgId)]));
        const res = await q.executeTakeFirst();
        return Number(res.numUpdatedRows) > 0;
      });
    },
    /** Deletes a member unless they are the last owner; false when refused. */
    async remove(orgId: string, userId: string): Promise<boolean> {
      return transaction(db, async (trx) => {
        await lockOrg(trx, engine, orgId);
        const res = await trx
          .deleteFrom('users')
          .where('org_id', '=', orgId)
          .where('id', '=', userId)
          .where((eb) => eb.or([eb('role', '!=', 'owner'), otherOwnerExists(orgId)]))
          .executeTakeFirst();
        return Number(res.numDeletedRows) > 0;
      });
    },
  };
}
export type MembersStore = ReturnType<typeof membersStore>;
