import { sql } from 'kysely';
import type { Db, ExportsTable, Trx } from '../../db/types.js';

/**
 * SQL of exports. Reads for callers name the project; the worker's writes go by export id and
 * attempt, so that an attempt whose lease was taken over cannot overwrite the newer one.
 */
export function exportsStore(db: Db) {
  return {
    async insert(q: Db | Trx, row: ExportsTable): Promise<void> {
      await q.insertInto('exports').values(row).execute();
    },

    byId(q: Db | Trx, projectId: string, id: string): Promise<ExportsTable | undefined> {
      return q
        .selectFrom('exports')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** The worker's view (no tenant: the job names the export). */
    forJob(q: Db | Trx, id: string): Promise<ExportsTable | undefined> {
      return q.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Marks an attempt as rendering; undefined when the export is gone or already finished. */
    async start(id: string, attempt: number, at: number): Promise<ExportsTable | undefined> {
      const res = await db
        .updateTable('exports')
        .set({ status: 'processing', attempts: attempt, progress: 0, started_at: at })
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'processing'])
        .executeTakeFirst();
      return Number(res.numUpdatedRows) === 0 ? undefined : this.forJob(db, id);
    },

    async progress(id: string, attempt: number, permille: number): Promise<void> {
      await db
        .updateTable('exports')
        .set({ progress: permille })
        .where('id', '=', id)
        .where('attempts', '=', attempt)
        .where('status', '=', 'processing')
        .execute();
    },

    /** Puts an interrupted attempt back in line (the worker is stopping). */
    async requeue(id: string, attempt: number): Promise<void> {
      await db
        .updateTable('exports')
        .set({ status: 'queued', progress: 0 })
        .where('id', '=', id)
        .where('attempts', '=', attempt)
        .where('status', '=', 'processing')
        .execute();
    },

    /** True when this attempt's completion was recorded (the export still exists and was not finished). */
    async complete(
      trx: Trx,
      id: string,
      attempt: number,
      at: number,
      result: { sizeBytes: number; durationMs: number },
    ): Promise<boolean> {
      const res = await trx
        .updateTable('exports')
        .set({
          status: 'completed',
          attempts: attempt,
          progress: 1000,
          size_bytes: result.sizeBytes,
          duration_ms: result.durationMs,
          error: null,
          error_log: null,
          completed_at: at,
        })
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'processing'])
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },

    /** True when this attempt's failure was recorded (the export still exists and was not finished). */
    async fail(
      trx: Trx,
      id: string,
      attempt: number,
      at: number,
      error: string,
      log: string | null,
    ): Promise<boolean> {
      const res = await trx
        .updateTable('exports')
        .set({ status: 'failed', attempts: attempt, error, error_log: log, completed_at: at })
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'processing'])
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },

    /** A failed attempt that will be tried again: queued, with the error so far. */
    async retrying(trx: Trx, id: string, attempt: number, error: string, log: string | null) {
      await trx
        .updateTable('exports')
        .set({ status: 'queued', attempts: attempt, progress: 0, error, error_log: log })
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'processing'])
        .execute();
    },

    /** Exports of a session rendered or rendering now: those whose pictures and sound are its past. */
    async renderedOf(q: Db | Trx, sessionId: string): Promise<string[]> {
      const rows = await q
        .selectFrom('exports')
        .select('id')
        .where('session_id', '=', sessionId)
        .where('status', 'in', ['completed', 'processing'])
        .execute();
      return rows.map((r) => r.id);
    },

    /** Marks exports failed for good, with the reason, and forgets their file's size and length. */
    async withdraw(q: Db | Trx, ids: string[], error: string, at: number): Promise<void> {
      if (ids.length === 0) return;
      await q
        .updateTable('exports')
        .set({
          status: 'failed',
          error,
          error_log: null,
          size_bytes: null,
          duration_ms: null,
          completed_at: at,
        })
        .where('id', 'in', ids)
        .execute();
    },

    async idsOfSession(q: Db | Trx, sessionId: string): Promise<string[]> {
      const rows = await q.selectFrom('exports').select('id').where('session_id', '=', sessionId).execute();
      return rows.map((r) => r.id);
    },

    /** Exports of an organisation queued or rendering (its cap counts them). */
    async pendingOfOrg(q: Db | Trx, orgId: string): Promise<number> {
      const r = await q
        .selectFrom('exports')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('org_id', '=', orgId)
        .where('status', 'in', ['queued', 'processing'])
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** Bytes of the session's completed export files (counted as stored bytes). */
    async completedBytes(q: Db | Trx, sessionId: string): Promise<number> {
      const r = await q
        .selectFrom('exports')
        .select(sql<number | string | null>`sum(size_bytes)`.as('total'))
        .where('session_id', '=', sessionId)
        .where('status', '=', 'completed')
        .executeTakeFirst();
      return Number(r?.total ?? 0);
    },

    async deleteOfSession(q: Db | Trx, sessionId: string): Promise<void> {
      await q.deleteFrom('exports').where('session_id', '=', sessionId).execute();
    },
  };
}
export type ExportsStore = ReturnType<typeof exportsStore>;
