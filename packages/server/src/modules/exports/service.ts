import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseMediaStream } from '@vss/client';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Config } from '../../config.js';
import { transaction } from '../../db/transaction.js';
import type { Db, ExportsTable, Trx } from '../../db/types.js';
import { BadRequest, Conflict, NotFound } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import type { ClaimedJob, JobKind, JobQueue, Outcome } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import { iso, isoOrNull, now } from '../../lib/time.js';
import type { StreamStore } from '../../streams/store.js';
import type { UsageGate } from '../billing/service.js';
import type { LiveEvents } from '../live/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { SessionsService } from '../sessions/service.js';
import { nameFont } from './fonts.js';
import type { Layout, Orientation } from './layout.js';
import { MediaError } from './codecs.js';
import { render, RenderError } from './render.js';
import type { ExportsStore } from './store.js';

export const RENDER_JOB = 'export.render';
/** A render is tried at most this many times (a worker that died used one up), then fails. */
export const MAX_ATTEMPTS = 3;
const PROGRESS_EVERY_MS = 2000;
/** How the error of an export withdrawn after a redaction begins: its file is gone for good. */
const WITHDRAWN = 'removed:';

/** The public shape of an export job. */
export function presentExport(e: ExportsTable, baseUrl: string) {
  return {
    job_id: e.id,
    status: e.status as 'queued' | 'processing' | 'completed' | 'failed',
    room_id: e.session_id,
    download_url: `${baseUrl}/v1/exports/${e.id}/download`,
    layout: e.layout as Layout,
    orientation: e.orientation as Orientation,
    focus: e.focus,
    progress: e.progress / 1000,
    attempts: e.attempts,
    size_bytes: e.size_bytes,
    duration_ms: e.duration_ms,
    error: e.error,
    error_log: e.error_log,
    created_at: iso(e.created_at),
    started_at: isoOrNull(e.started_at),
    completed_at: isoOrNull(e.completed_at),
  };
}
export type ExportJob = ReturnType<typeof presentExport>;

interface RenderPayload {
  export_id: string;
}

interface Rendered {
  sizeBytes: number;
  durationMs: number;
}

/** What a render attempt records: the file's size and length, or the end of ffmpeg's log. */
type RenderDetail = Rendered | { log: string | null };

/**
 * MP4 exports: enqueue (billing-gated, one `exports` row and one durable job in the same
 * transaction), read, download, delete with their session, and the `export.render` job that
 * renders in whichever process claims it.
 */
export function exportsService(deps: {
  config: Config;
  /** the ffmpeg binary (chosen and logged at start), null when the machine has none */
  ffmpeg: string | null;
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
  const ffmpegOrFail = () => {
    if (!deps.ffmpeg)
      throw new Error('no ffmpeg on this machine: set FFMPEG_PATH, or install ffmpeg on PATH');
    return deps.ffmpeg;
  };
  const dir = join(config.dataDir, 'exports');
  mkdirSync(dir, { recursive: true });
  const finalPath = (id: string) => join(dir, `${id}.mp4`);
  const present = (e: ExportsTable) => presentExport(e, config.publicBaseUrl);

  /** Removes an export's files: the MP4 and whatever an attempt left (partial output, scratch). */
  function removeFiles(id: string, keepFinal = false): void {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names)
      if (name.startsWith(`${id}.`) && !(keepFinal && name === `${id}.mp4`))
        rmSync(join(dir, name), { recursive: true, force: true });
  }

  // The recording's timeline records the export once it is committed.
  deps.bus.on('export.completed', (e) => {
    if (!e.sessionId) return;
    void deps.live
      .appendTimeline(e.sessionId, 'export.completed', 'system', e.data as Record<string, unknown>)
      .catch((err: unknown) =>
        deps.log.error({ err, session: e.sessionId }, 'recording export.completed failed'),
      );
  });

  async function attempt(
    job: ClaimedJob<RenderPayload>,
    signal: AbortSignal,
  ): Promise<Outcome<RenderDetail>> {
    const id = job.payload.export_id;
    if (job.attempt > MAX_ATTEMPTS)
      return {
        ok: false,
        final: true,
        error: `the render was interrupted ${MAX_ATTEMPTS} times (its worker stopped or died)`,
      };
    const row = await store.start(id, job.attempt, now());
    // Deleted with its session, or finished by an attempt whose lease had run out: nothing to do.
    if (!row) return { ok: true };
    removeFiles(id, true);
    const part = join(dir, `${id}.${job.attempt}.part`);
    let reported = 0;
    try {
      const result = await render(deps.streams, {
        sessionId: row.session_id,
        layout: row.layout as Layout,
        orientation: row.orientation as Orientation,
        focus: row.focus,
        output: part,
        workDir: join(dir, `${id}.${job.attempt}.work`),
        ffmpeg: ffmpegOrFail(),
        font: nameFont(),
        signal,
        onProgress: (fraction) => {
          if (Date.now() - reported < PROGRESS_EVERY_MS) return;
          reported = Date.now();
          void store.progress(id, job.attempt, Math.floor(fraction * 1000)).catch(() => {});
        },
      });
      // Complete files only ever appear under the final name: a reader sees all of it or nothing.
      renameSync(part, finalPath(id));
      const current = await store.forJob(id);
      if (!current || current.status !== 'processing') {
        // The session was deleted, or a participant redacted, while this rendered: keep nothing.
        removeFiles(id);
        return { ok: true };
      }
      const detail: Rendered = { sizeBytes: result.bytes, durationMs: Math.round(result.durationUs / 1000) };
      return { ok: true, detail };
    } catch (err) {
      rmSync(part, { force: true });
      if (signal.aborted) {
        await store.requeue(id, job.attempt).catch(() => {});
        return { ok: false, error: 'interrupted' };
      }
      const log =
        err instanceof RenderError && err.log ? err.log.split(config.dataDir).join('$DATA_DIR') : null;
      const message = (err as Error).message.split(config.dataDir).join('$DATA_DIR');
      // Bad media or an ffmpeg refusal would fail the same way again; anything else may be passing.
      const final = err instanceof RenderError || err instanceof MediaError;
      return { ok: false, final, error: message, detail: { log } };
    }
  }

  async function settle(
    trx: Trx,
    job: ClaimedJob<RenderPayload>,
    outcome: Outcome<RenderDetail>,
    nextRunAt: number | null,
  ) {
    const id = job.payload.export_id;
    const at = now();
    if (outcome.ok) {
      const detail = outcome.detail;
      if (!detail || !('sizeBytes' in detail) || !(await store.complete(trx, id, job.attempt, at, detail)))
        return;
      const row = (await store.forJob(id, trx))!;
      await deps.bus.publish(trx, {
        id: newId(),
        type: 'export.completed',
        at,
        orgId: row.org_id,
        projectId: row.project_id,
        sessionId: row.session_id,
        data: present(row),
      });
      return;
    }
    const error = outcome.error ?? 'the render failed';
    const log = outcome.detail && 'log' in outcome.detail ? outcome.detail.log : null;
    if (nextRunAt !== null) await store.retrying(trx, id, job.attempt, error, log);
    else await store.fail(trx, id, job.attempt, at, error, log);
  }

  const jobKind: JobKind<RenderPayload, RenderDetail> = {
    kind: RENDER_JOB,
    concurrency: config.exportConcurrency,
    leaseMs: config.exportLeaseS * 1000,
    retryDelayMs: (n) => (n < MAX_ATTEMPTS ? 10_000 * n : undefined),
    run: attempt,
    settle,
  };

  return {
    jobKind,

    /**
     * Queues an export of an ended session. 404 for a session outside the caller's project, 503
     * when billing refuses, 409 while the session is live or when nothing was recorded, 400 for a
     * `focus` that is not a participant with video (or given with the grid layout).
     */
    async enqueue(
      q: Db | Trx,
      principal: Principal,
      sessionId: string,
      input: { layout: Layout; orientation: Orientation; focus?: string },
    ): Promise<{ job_id: string }> {
      const session = await deps.sessions.get(principal, sessionId, undefined, q);
      await deps.gate.assertWithinLimits(principal.orgId, q);
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
    async file(principal: Principal, id: string): Promise<{ job: ExportJob; path: string; size: number }> {
      const job = await this.get(principal, id);
      // A withdrawn export's file was deleted on purpose: 404. Any other not completed: 409.
      if (job.status === 'failed' && job.error?.startsWith(WITHDRAWN))
        throw new NotFound(`the export's file was deleted: ${job.error}`);
      if (job.status !== 'completed')
        throw new Conflict(`the export is ${job.status}: the file can be downloaded once it is completed`);
      const path = finalPath(id);
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        throw new NotFound('the export file is no longer stored');
      }
      return { job, path, size };
    },

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
      for (const id of ids) removeFiles(id);
      return ids.length;
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
      for (const id of ids) removeFiles(id);
      return ids.length;
    },
  };
}
export type ExportsService = ReturnType<typeof exportsService>;
