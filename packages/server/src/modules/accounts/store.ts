import type { Db, Trx, UsersTable } from '../../db/types.js';

/** SQL of users and their login sessions. */
export function accountsStore(db: Db) {
  return {
    userByEmail(q: Db | Trx, email: string): Promise<UsersTable | undefined> {
      return q.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },
    userById(q: Db | Trx, id: string): Promise<UsersTable | undefined> {
      return q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async insertUser(q: Db | Trx, user: UsersTable): Promise<void> {
      await q.insertInto('users').values(user).execute();
    },
    async insertOrg(q: Db | Trx, org: { id: string; name: string; created_at: number }): Promise<void> {
      await q.insertInto('orgs').values(org).execute();
    },
    async insertLoginSession(row: {
      id: string;
      user_id: string;
      created_at: number;
      expires_at: number;
    }): Promise<void> {
      await db.insertInto('user_sessions').values(row).execute();
    },
    async deleteLoginSession(id: string): Promise<void> {
      await db.deleteFrom('user_sessions').where('id', '=', id).execute();
    },
    /** The user behind a live login session, or undefined. */
    userBySession(sessionId: string, at: number): Promise<UsersTable | undefined> {
      return db
        .selectFrom('user_sessions')
        .innerJoin('users', 'users.id', 'user_sessions.user_id')
        .selectAll('users')
        .where('user_sessions.id', '=', sessionId)
        .where('user_sessions.expires_at', '>', at)
        .executeTakeFirst();
    },
    async deleteExpiredSessions(at: number): Promise<void> {
      await db.deleteFrom('user_sessions').where('expires_at', '<=', at).execute();
    },
  };
}
export type AccountsStore = ReturnType<typeof accountsStore>;
