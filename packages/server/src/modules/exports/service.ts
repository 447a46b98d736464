import { parseMediaStream } from '@vss/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Config } from '../../config.js';
import { transaction } from '../../db/transaction.js';
import type { Db, ExportsTable, Trx } from '../../db/types.js';
import { BadRequest, Conflict, NotFound } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import type { JobQueue } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import type { StreamStore } from '../../streams/store.js';
import type { UsageGate } from '../billing/service.js';
import type { LiveEvents } from '../live/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { SessionsService } from '../sessions/service.js';
import type { Layout, Orientation } from './layout.js';
import type { ExportsStore } from './store.js';
import type { ExportFiles } from './files.js';
import { RENDER_JOB, type RenderPayload } from './jobs.js';
import { presentExport, type ExportJob } from './present.js';

/** How the error of an export withdrawn after a redaction begins: its file is gone for good. */
const WITHDRAWN = 'removed:';

/**
 * MP4 exports: enqueue (billing-gated, one `exports` row and one durable job in the same
 * transaction), read, download, delete with their session, and the `export.render` job that
 * renders in whichever process claims it.
 */
export function exportsService(deps: {
  config: Config;
  files: ExportFiles;
  db: Db;
  store: ExportsStore;
  streams: StreamStore;
  sessions: SessionsService;
  projects: ProjectsService;
  bus: EventBus;
  /** the live sessions' timelines and redaction */
  live: LiveEvents;
  jobs: JobQueue;
  gate: UsageGate;
  log: FastifyBaseLogger;
}) {
  const { config, db, store } = deps;
  const files = deps.files;
  const present = (e: ExportsTable) => presentExport(e, config.publicBaseUrl);

  // The recording's timeline records the export's outcome once it is committed.
  for (const type of ['export.completed', 'export.failed'])
    deps.bus.on(type, (e) => {
      if (!e.sessionId) return;
      void deps.live
        .appendTimeline(e.sessionId, type, 'system', e.data as Record<string, unknown>)
        .catch((err: unknown) => deps.log.error({ err, session: e.sessionId }, `recording ${type} failed`));
    });

  return {
    /**
     * Queues an export of an ended session. 404 for a session outside the caller's project, 503
     * when billing refuses, 409 while the session is live or when nothing was recorded, 400 for a
     * `focus` that is not a participant with video (or given with the grid layout).
     */
    async enqueue(
      q: Db | Trx,
      principal: Principal,
      sessionId: string,
      input: { layout: Layout; orientation: Orientation; focus?: string; keep_gaps?: boolean },
    ): Promise<{ job_id: string }> {
      const session = await deps.sessions.get(principal, sessionId, undefined, q);
      await deps.gate.assertWithinLimits(principal.orgId, q, 'export');
      if (session.ended_at === null && session.started_at !== null)
        throw new Conflict('the session is live: export it once it has ended');
      const media = (await deps.streams.stats(session.id))
        .map((s) => parseMediaStream(s.streamId))
        .filter((m) => m !== null);
      if (media.length === 0) throw new Conflict('the session has no recorded media to export');
      if (input.focus !== undefined) {
        if (input.layout !== 'presenter')
          throw new BadRequest('query.focus applies to the presenter layout only (layout=presenter)');
        if (!media.some((m) => m.userId === input.focus && m.kind !== 'mic'))
          throw new BadRequest(
            `query.focus must be a participant with video in this session; "${input.focus}" is not`,
          );
      }
      const row: ExportsTable = {
        id: newId(),
        org_id: principal.orgId,
        project_id: session.project_id,
        session_id: session.id,
        status: 'queued',
        layout: input.layout,
        orientation: input.orientation,
        focus: input.focus ?? null,
        keep_gaps: input.keep_gaps ? 1 : 0,
        attempts: 0,
        progress: 0,
        error: null,
        error_log: null,
        size_bytes: null,
        duration_ms: null,
        created_at: now(),
        started_at: null,
        completed_at: null,
      };
      await transaction(q, async (trx) => {
        await store.insert(trx, row);
        await deps.jobs.enqueue(trx, RENDER_JOB, { export_id: row.id } satisfies RenderPayload, {
          id: row.id,
        });
      });
      return { job_id: row.id };
    },

    async get(principal: Principal, id: string): Promise<ExportJob> {
      const project = await deps.projects.scope(principal);
      const row = await store.byId(project.id, id);
      if (!row) throw new NotFound('export job not found');
      return present(row);
    },

    /** The finished file of an export: 409 until the job has completed. */
    async file(principal: Principal, id: string): Promise<{ job: ExportJob; size: number }> {
      const job = await this.get(principal, id);
      // A withdrawn export's file was deleted on purpose: 404. Any other not completed: 409.
      if (job.status === 'failed' && job.error?.startsWith(WITHDRAWN))
        throw new NotFound(`the export's file was deleted: ${job.error}`);
      if (job.status !== 'completed')
        throw new Conflict(`the export is ${job.status}: the file can be downloaded once it is completed`);
      const size = await files.size(id);
      if (size === undefined) throw new NotFound('the export file is no longer stored');
      return { job, size };
    },

    /** The stored MP4 of a completed export (after `file` allowed it), or a byte range of it. */
    open: (id: string, range?: { start: number; end: number }) => files.open(id, range),

    /** A short-lived URL of the MP4 in the bucket; null when exports are on local disk. */
    downloadUrl: (id: string, ttlSeconds: number, filename: string) =>
      files.presign(id, ttlSeconds, filename),

    /**
     * After a participant's media was deleted (redaction): every export of the session rendered,
     * or rendering, before then shows and plays them, so each is marked failed with the reason, its
     * render stopped and its file deleted (the download answers 404). Queued exports render after
     * the deletion and stay. Returns how many were withdrawn.
     */
    async withdrawAfterRedaction(sessionId: string, userId: string): Promise<number> {
      const reason = `${WITHDRAWN} participant "${userId}" was redacted from the session after this export was rendered; export the session again`;
      const ids = await transaction(db, async (trx) => {
        const ids = await store.renderedOf(trx, sessionId);
        await deps.jobs.cancel(trx, RENDER_JOB, ids);
        await store.withdraw(trx, ids, reason, now());
        return ids;
      });
      for (const id of ids) await files.remove(id);
      return ids.length;
    },

    /** The exports of a session of the caller's project, newest first. */
    async ofSession(principal: Principal, sessionId: string): Promise<ExportJob[]> {
      const session = await deps.sessions.get(principal, sessionId);
      const ids = (await store.idsOfSession(db, session.id)).sort();
      const jobs = await Promise.all(ids.map((id) => this.get(principal, id)));
      return jobs.reverse();
    },

    /** Bytes of the session's completed export files; `q`: the caller's transaction. */
    storedBytes(sessionId: string, q?: Db | Trx): Promise<number> {
      return store.completedBytes(sessionId, q);
    },

    /** Deletes a session's exports, their pending jobs and their files (when the session is deleted). */
    async deleteOfSession(sessionId: string): Promise<number> {
      const ids = await transaction(db, async (trx) => {
        const ids = await store.idsOfSession(trx, sessionId);
        if (ids.length === 0) return ids;
        await deps.jobs.cancel(trx, RENDER_JOB, ids);
        await store.deleteOfSession(trx, sessionId);
        return ids;
      });
      for (const id of ids) await files.remove(id);
      return ids.length;
    },
  };
}
export type ExportsService = ReturnType<typeof exportsService>;
