import { sql } from 'kysely';
import type { Db, Engine, JobsTable, Trx } from '../db/types.js';

/** How an attempt leaves its job: gone (done), back untouched, or failed (retried at `runAt`, or for good). */
export type Settlement =
  { done: true } | { release: true } | { runAt: number | null; error: string; at: number };

/**
 * The SQL of the job queue, on one `jobs` table shared by every process. A process owns a job
 * while its lease (`lease_owner`, `lease_until`) holds; every write of a running job names the
 * owner and the attempt, so that a worker whose lease was taken over cannot overwrite the newer one.
 */
export function jobsStore(db: Db, engine: Engine, owner: string) {
  return {
    /** Adds a job as part of `q`'s transaction. */
    async insert(
      q: Db | Trx,
      job: { id: string; kind: string; payload: unknown; groupKey: string | null; runAt: number; at: number },
    ): Promise<void> {
      await q
        .insertInto('jobs')
        .values({
          id: job.id,
          kind: job.kind,
          payload: JSON.stringify(job.payload),
          group_key: job.groupKey,
          status: 'queued',
          run_at: job.runAt,
          attempts: 0,
          lease_owner: null,
          lease_until: null,
          last_error: null,
          created_at: job.at,
          updated_at: job.at,
        })
        .execute();
    },

    /** Removes jobs of `kind` by id as part of `q`'s transaction, whatever their state. */
    async cancel(q: Db | Trx, kind: string, ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      await q.deleteFrom('jobs').where('kind', '=', kind).where('id', 'in', ids).execute();
    },

    /** Removes every job of `kind` in `groupKey`, as part of `q`'s transaction. */
    async cancelGroup(q: Db | Trx, kind: string, groupKey: string): Promise<void> {
      await q.deleteFrom('jobs').where('kind', '=', kind).where('group_key', '=', groupKey).execute();
    },

    /**
     * Claims up to `n` due jobs of `kind`, oldest first, leaving out the `busy` groups: one
     * conditional `UPDATE … RETURNING` over one index range (`FOR UPDATE SKIP LOCKED` on
     * PostgreSQL, so that processes claiming at once take different jobs).
     */
    async claim(kind: string, n: number, leaseMs: number, busy: string[], now: number): Promise<JobsTable[]> {
      const groups = busy.length
        ? sql`and (group_key is null or group_key not in (${sql.join(busy)}))`
        : sql``;
      const skipLocked = engine === 'postgres' ? sql`for update skip locked` : sql``;
      const res = await sql<JobsTable>`
        update jobs set status = 'running', lease_owner = ${owner}, lease_until = ${now + leaseMs},
          attempts = attempts + 1, updated_at = ${now}
        where id in (
          select id from jobs
          where kind = ${kind} and status = 'queued' and run_at <= ${now}
            ${groups}
          order by run_at, id
          limit ${n}
          ${skipLocked}
        )
        returning *`.execute(db);
      // RETURNING gives no order guarantee: keep the queue's.
      return res.rows.sort((a, b) => a.run_at - b.run_at || (a.id < b.id ? -1 : 1));
    },

    /**
     * Claims one due job of a `fair` kind: of the groups running fewer than `running` attempts (in
     * any process), one with the fewest running, then the one served longest ago, then the oldest.
     * A queued job's `updated_at` orders the turns: each claim moves the rest of its group's
     * queue behind every job queued at that moment. On PostgreSQL the claims of the kind take
     * turns (a transaction-scoped advisory lock), so that two processes cannot both see a group
     * below its cap.
     */
    async claimFair(kind: string, leaseMs: number, running: number, now: number): Promise<JobsTable[]> {
      return db.transaction().execute(async (trx) => {
        if (engine === 'postgres')
          await sql`select pg_advisory_xact_lock(hashtext(${`jobs:${kind}`}))`.execute(trx);
        const res = await sql<JobsTable>`
          update jobs set status = 'running', lease_owner = ${owner}, lease_until = ${now + leaseMs},
            attempts = attempts + 1, updated_at = ${now}
          where id in (
            select id from (
              select id, updated_at, (
                select count(*) from jobs r
                where r.kind = ${kind} and r.status = 'running' and r.group_key = j.group_key
              ) as busy
              from jobs j
              where kind = ${kind} and status = 'queued' and run_at <= ${now}
            ) due
            where busy < ${running}
            order by busy, updated_at, id
            limit 1
          )
          returning *`.execute(trx);
        const group = res.rows[0]?.group_key;
        if (group != null) {
          // Behind every job queued now, even one queued within the same millisecond.
          const last = await trx
            .selectFrom('jobs')
            .select((eb) => eb.fn.max('updated_at').as('at'))
            .where('kind', '=', kind)
            .where('status', '=', 'queued')
            .executeTakeFirst();
          await trx
            .updateTable('jobs')
            .set({ updated_at: Math.max(now, Number(last?.at ?? 0) + 1) })
            .where('kind', '=', kind)
            .where('group_key', '=', group)
            .where('status', '=', 'queued')
            .execute();
        }
        return res.rows;
      });
    },

    /** Puts claimed jobs back unattempted, due again at `runAt` when given. */
    async release(ids: string[], runAt?: number): Promise<void> {
      await db
        .updateTable('jobs')
        .set((eb) => ({
          status: 'queued',
          attempts: eb('attempts', '-', 1),
          lease_owner: null,
          lease_until: null,
          ...(runAt === undefined ? {} : { run_at: runAt }),
        }))
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .execute();
    },

    /** Records how an attempt left its job; false when the lease was no longer ours. */
    async settle(trx: Trx, id: string, attempt: number, how: Settlement, at: number): Promise<boolean> {
      const mine = sql<boolean>`id = ${id} and lease_owner = ${owner} and attempts = ${attempt}`;
      const update = (set: Partial<JobsTable>) =>
        trx
          .updateTable('jobs')
          .set({ ...set, lease_owner: null, lease_until: null, updated_at: at })
          .where(mine)
          .executeTakeFirst();
      const changed =
        'done' in how
          ? (await trx.deleteFrom('jobs').where(mine).executeTakeFirst()).numDeletedRows
          : 'release' in how
            ? (await update({ status: 'queued', attempts: attempt - 1 })).numUpdatedRows
            : (
                await update({
                  status: how.runAt === null ? 'failed' : 'queued',
                  run_at: how.runAt ?? at,
                  last_error: how.error.slice(0, 2000),
                })
              ).numUpdatedRows;
      return Number(changed) > 0;
    },

    /** Puts running jobs of `kind` whose lease ran out back in the queue; how many. */
    async reap(kind: string, now: number): Promise<number> {
      const res = await db
        .updateTable('jobs')
        .set({ status: 'queued', lease_owner: null, lease_until: null, updated_at: now })
        .where('kind', '=', kind)
        .where('status', '=', 'running')
        .where('lease_until', '<', now)
        .executeTakeFirst();
      return Number(res.numUpdatedRows);
    },

    /** Extends the lease of a running attempt; false when it is no longer ours. */
    async renew(id: string, attempt: number, until: number): Promise<boolean> {
      const res = await db
        .updateTable('jobs')
        .set({ lease_until: until })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('attempts', '=', attempt)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },

    /** Of these jobs of `kind`, those running under a lease that has not run out: id → attempt. */
    async leased(kind: string, ids: string[], now: number): Promise<Map<string, number>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('jobs')
        .select(['id', 'attempts'])
        .where('kind', '=', kind)
        .where('id', 'in', ids)
        .where('status', '=', 'running')
        .where('lease_until', '>=', now)
        .execute();
      return new Map(rows.map((r) => [r.id, r.attempts]));
    },

    /** Extends the leases of claimed jobs waiting here for their group's turn. */
    async renewHeld(ids: string[], until: number): Promise<void> {
      await db
        .updateTable('jobs')
        .set({ lease_until: until })
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .execute();
    },

    /**
     * Per kind: jobs waiting (due now or later), and the `run_at` of the oldest due one (null when
     * none is due). One grouped scan of the queued rows, for the metrics at each scrape.
     */
    async depth(now: number): Promise<Array<{ kind: string; queued: number; oldest_due: number | null }>> {
      const res = await sql<{ kind: string; queued: number | string; oldest_due: number | string | null }>`
        select kind, count(*) as queued, min(case when run_at <= ${now} then run_at end) as oldest_due
        from jobs where status = 'queued' group by kind`.execute(db);
      return res.rows.map((r) => ({
        kind: r.kind,
        queued: Number(r.queued),
        oldest_due: r.oldest_due === null ? null : Number(r.oldest_due),
      }));
    },

    /** Forgets jobs that failed for good before `before`. */
    async sweep(before: number): Promise<void> {
      await db.deleteFrom('jobs').where('status', '=', 'failed').where('updated_at', '<', before).execute();
    },
  };
}
export type JobsStore = ReturnType<typeof jobsStore>;
