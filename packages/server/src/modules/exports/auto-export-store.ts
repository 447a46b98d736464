import type { AutoExportsTable, Db, SessionsTable, Trx } from '../../db/types.js';

/** SQL of auto-export presets, and the two reads the trigger makes in the transaction it runs in. */
export function autoExportStore() {
  return {
    /** A project's preset; undefined when it was never set. */
    get(q: Db | Trx, projectId: string): Promise<AutoExportsTable | undefined> {
      return q.selectFrom('auto_exports').selectAll().where('project_id', '=', projectId).executeTakeFirst();
    },

    /** Writes a project's preset, replacing the one it had. */
    async put(q: Db | Trx, row: AutoExportsTable): Promise<void> {
      await q
        .insertInto('auto_exports')
        .values(row)
        .onConflict((oc) =>
          oc.column('project_id').doUpdateSet({
            enabled: row.enabled,
            options: row.options,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },

    /**
     * What an export needs of a session, read in the caller's transaction (on SQLite a read
     * outside it would wait for it); undefined once the session is deleted.
     */
    session(
      q: Db | Trx,
      sessionId: string,
    ): Promise<Pick<SessionsTable, 'id' | 'project_id' | 'started_at' | 'ended_at'> | undefined> {
      return q
        .selectFrom('sessions')
        .select(['id', 'project_id', 'started_at', 'ended_at'])
        .where('id', '=', sessionId)
        .executeTakeFirst();
    },

    /** True when the auto-export already exported the session. */
    async exported(q: Db | Trx, sessionId: string): Promise<boolean> {
      const row = await q
        .selectFrom('exports')
        .select('id')
        .where('session_id', '=', sessionId)
        .where('auto', '=', 1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
export type AutoExportStore = ReturnType<typeof autoExportStore>;
