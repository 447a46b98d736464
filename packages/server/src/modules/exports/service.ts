import { parseMediaStream } from '@vss/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Config } from '../../config.js';
import { transaction } from '../../db/transaction.js';
import type { Db, Engine, ExportsTable, SessionsTable, Trx } from '../../db/types.js';
import { BadRequest, Conflict, NotFound, RateLimited } from '../../http/errors.js';
import { lockOrg } from '../../db/locks.js';
import type { Principal } from '../../http/principal.js';
import type { JobQueue } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import type { StreamStore } from '../../streams/store.js';
import type { UsageGate } from '../billing/service.js';
import type { LiveEvents } from '../live/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { SessionsService } from '../sessions/service.js';
import type { Format, Layout, Orientation, Resolution } from './layout.js';
import type { ExportsStore } from './store.js';
import type { ExportFiles } from './files.js';
import { RENDER_JOB, type RenderPayload } from './jobs.js';
import { cutsOf, readPausedSpans } from './cuts.js';
import { presentExport, type ExportJob } from './present.js';
import { downloadName } from './download-name.js';

/** The options of an export, as the API takes them (defaults filled in where it has them). */
export interface ExportInput {
  layout: Layout;
  orientation: Orientation;
  focus?: string;
  keep_gaps?: boolean;
  format?: Format;
  resolution?: Resolution;
  names?: boolean;
  from_ts?: number;
  to_ts?: number;
}

/** How the error of an export withdrawn after a redaction begins: its file is gone for good. */
const WITHDRAWN = 'removed:';
/** Seconds an organisation at its cap of exports is told to wait (a short render's time). */
const QUEUE_FULL_RETRY_S = 30;

/**
 * MP4 exports: enqueue (billing-gated, one `exports` row and one durable job in the same
 * transaction), read, download, delete with their session, and the `export.render` job that
 * renders in whichever process claims it.
 */
export function exportsService(deps: {
  config: Config;
  files: ExportFiles;
  db: Db;
  engine: Engine;
  store: ExportsStore;
  streams: StreamStore;
  sessions: SessionsService;
  projects: ProjectsService;
  bus: EventBus;
  /** the live sessions' timelines and redaction */
  live: LiveEvents;
  /** records the session's stored bytes again (billing), once the timeline grew */
  storageChanged: (sessionId: string) => Promise<void>;
  jobs: JobQueue;
  gate: UsageGate;
  log: FastifyBaseLogger;
}) {
  const { config, db, store } = deps;
  const files = deps.files;
  const present = (e: ExportsTable) => presentExport(e, config.publicBaseUrl);

  // The recording's timeline records the export's outcome once it is committed; the bytes it
  // adds are counted at once, not at the next usage flush (up to a minute later).
  for (const type of ['export.completed', 'export.failed'] as const)
    deps.bus.on(type, (e) => {
      const sessionId = e.sessionId;
      if (!sessionId) return;
      void deps.live
        .appendTimeline(sessionId, type, 'system', e.data as Record<string, unknown>)
        .then(() => deps.storageChanged(sessionId))
        .catch((err: unknown) => deps.log.error({ err, session: sessionId }, `recording ${type} failed`));
    });

  return {
    /**
     * Queues an export of an ended session. 404 for a session outside the caller's project, 503
     * when billing refuses, 409 while the session is live or when nothing was recorded, 400 naming
     * the field (under `where`: `query` or `body`) for options that do not fit the recording.
     */
    async enqueue(
      q: Db | Trx,
      principal: Principal,
      sessionId: string,
      input: ExportInput,
      where: 'query' | 'body' = 'query',
    ): Promise<{ job_id: string }> {
      const session = await deps.sessions.get(principal, sessionId, { q });
      await deps.gate.assertWithinLimits(principal.orgId, 'export', { q });
      return this.enqueueOf(q, { ...session, org_id: principal.orgId }, input, { where, auto: false });
    },

    /**
     * Queues an export of a session already found (and allowed): the checks of `enqueue` but the
     * tenant's and billing's. `auto`: made by the project's auto-export.
     */
    async enqueueOf(
      q: Db | Trx,
      session: Pick<SessionsTable, 'id' | 'project_id' | 'started_at' | 'ended_at'> & { org_id: string },
      input: ExportInput,
      opts: { where: 'query' | 'body'; auto: boolean },
    ): Promise<{ job_id: string }> {
      const field = (name: string) => `${opts.where}.${name}`;
      if (session.ended_at === null && session.started_at !== null)
        throw new Conflict('the session is live: export it once it has ended');
      const stats = await deps.streams.stats(session.id);
      const media = stats.flatMap((s) => {
        const m = parseMediaStream(s.streamId);
        return m ? [{ ...m, minTs: s.minTs, maxTs: s.maxTs }] : [];
      });
      if (media.length === 0) throw new Conflict('the session has no recorded media to export');
      if (input.format === 'm4a' && !media.some((m) => m.kind === 'mic'))
        throw new Conflict('the session has no recorded sound to export as m4a: no microphone was recorded');
      if (input.focus !== undefined) {
        if (input.layout !== 'presenter')
          throw new BadRequest(
            `${field('focus')} applies to the presenter layout only (layout=presenter); the ${input.layout} layout decides who is large itself`,
          );
        if (!media.some((m) => m.userId === input.focus && m.kind !== 'mic'))
          throw new BadRequest(
            `${field('focus')} must be a participant with video in this session; "${input.focus}" is not`,
          );
      }
      // The sound alone spans the microphones' recording; a video the whole of it.
      const spanned = input.format === 'm4a' ? media.filter((m) => m.kind === 'mic') : media;
      const first = Math.min(...spanned.map((m) => m.minTs));
      const last = Math.max(...spanned.map((m) => m.maxTs));
      const { from_ts: from, to_ts: to } = input;
      if (from !== undefined && to !== undefined && to <= from)
        throw new BadRequest(`${field('to_ts')} must be after from_ts (${from}); it is ${to}`);
      if (from !== undefined && from > last)
        throw new BadRequest(
          `${field('from_ts')} is after the recording, which ends at ${last} (ms since 1970); it is ${from}`,
        );
      if (to !== undefined && to <= first)
        throw new BadRequest(
          `${field('to_ts')} is before the recording, which starts at ${first} (ms since 1970); it is ${to}`,
        );
      const clipped = from !== undefined || to !== undefined;
      if (clipped && !input.keep_gaps) {
        const clock = cutsOf(await readPausedSpans(deps.streams, session.id), false).clock;
        if (clock(Math.min(to ?? last + 1, last + 1)) <= clock(Math.max(from ?? first, first)))
          throw new BadRequest(
            `${field('from_ts')}…to_ts falls wholly within a span in which recording was paused: nothing was recorded there (keep_gaps=true exports it as a gap)`,
          );
      }
      const row: ExportsTable = {
        id: newId(),
        org_id: session.org_id,
        project_id: session.project_id,
        session_id: session.id,
        status: 'queued',
        layout: input.layout,
        orientation: input.orientation,
        focus: input.focus ?? null,
        keep_gaps: input.keep_gaps ? 1 : 0,
        // A clip is kept as asked, cut to the recording: the job shows the span it covers.
        from_ts: clipped ? Math.max(from ?? first, first) : null,
        to_ts: clipped ? Math.min(to ?? last + 1, last + 1) : null,
        format: input.format ?? 'mp4',
        resolution: input.resolution ?? '720p',
        names: input.names === false ? 0 : 1,
        auto: opts.auto ? 1 : 0,
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
        // Counted and queued under the organisation's lock: two requests at once cannot both pass.
        await lockOrg(trx, deps.engine, session.org_id);
        const pending = await store.pendingOfOrg(trx, session.org_id);
        if (pending >= config.exportPerOrg.queued)
          throw new RateLimited(
            `the organisation has ${pending} exports queued or rendering, the most it may have at once: queue more once some have finished`,
            QUEUE_FULL_RETRY_S,
          );
        await store.insert(trx, row);
        // Grouped by organisation: the queue takes turns between organisations (fair claims).
        await deps.jobs.enqueue(trx, RENDER_JOB, { export_id: row.id } satisfies RenderPayload, {
          id: row.id,
          groupKey: session.org_id,
        });
      });
      return { job_id: row.id };
    },

    async get(principal: Principal, id: string): Promise<ExportJob> {
      const project = await deps.projects.scope(principal);
      const row = await store.byId(db, project.id, id);
      if (!row) throw new NotFound('export job not found');
      return present(row);
    },

    /**
     * The finished file of an export, and the name it is saved under: 409 until the job has
     * completed.
     */
    async file(
      principal: Principal,
      id: string,
    ): Promise<{ job: ExportJob; size: number; filename: string }> {
      const job = await this.get(principal, id);
      // A withdrawn export's file was deleted on purpose: 404. Any other not completed: 409.
      if (job.status === 'failed' && job.error?.startsWith(WITHDRAWN))
        throw new NotFound(`the export's file was deleted: ${job.error}`);
      if (job.status !== 'completed')
        throw new Conflict(`the export is ${job.status}: the file can be downloaded once it is completed`);
      const size = await files.size(id);
      if (size === undefined) throw new NotFound('the export file is no longer stored');
      const session = await deps.sessions.get(principal, job.room_id);
      // The recording's start, as the manifest's start_ts: where a clip's offsets count from.
      const stats = await deps.streams.stats(session.id);
      const start = stats.length
        ? Math.min(...stats.map((s) => s.minTs))
        : (session.started_at ?? session.created_at);
      return { job, size, filename: downloadName(session.name, start, job) };
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
    storedBytes(q: Db | Trx, sessionId: string): Promise<number> {
      return store.completedBytes(q, sessionId);
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
