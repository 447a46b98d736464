import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/types.js';
import type { ClaimedJob, JobKind, JobQueue, Outcome } from '../../jobs/queue.js';
import { now } from '../../lib/time.js';
import type { StreamStore } from '../../streams/store.js';
import { MediaError } from './codecs.js';
import type { ExportFiles } from './files.js';
import { nameFont } from './fonts.js';
import type { Format, Layout, Orientation, Resolution } from './layout.js';
import { presentExport } from './present.js';
import { render, RenderError } from './render.js';
import type { ExportsStore } from './store.js';

/** An export job as `GET /v1/exports/{id}` shows it. */
export type ExportData = ReturnType<typeof presentExport>;

declare module '../../bus/events.js' {
  interface DomainEvents {
    /** an export's file is stored */
    'export.completed': ExportData;
    /** an export gave up, with no retry left */
    'export.failed': ExportData;
  }
}

/** The job that renders one export. */
export const RENDER_JOB = 'export.render';
/** A render is tried at most this many times (a worker that died used one up), then fails. */
export const MAX_ATTEMPTS = 3;
const PROGRESS_EVERY_MS = 2000;

export interface RenderPayload {
  export_id: string;
}

interface Rendered {
  sizeBytes: number;
  durationMs: number;
}

/** What a render attempt records: the file's size and length, or the end of ffmpeg's log. */
type RenderDetail = Rendered | { log: string | null };

/**
 * The exports module's job: renders an export in whichever process claims it, streaming the
 * recording into ffmpeg, writing to a temporary name renamed into place when complete, and
 * recording the outcome (and `export.completed`, or `export.failed` once no attempt is left) in the
 * transaction that settles the attempt.
 */
export function renderJob(deps: {
  config: Config;
  /** the ffmpeg binary (chosen and logged at start), null when the machine has none */
  ffmpeg: string | null;
  db: Db;
  store: ExportsStore;
  streams: StreamStore;
  files: ExportFiles;
  bus: EventBus;
  /** the queue, to tell which renders a live process holds */
  jobs: Pick<JobQueue, 'leased'>;
  log: FastifyBaseLogger;
  /** counts renders by outcome, their time and speed */
  metrics?: Metrics | null;
}): JobKind<RenderPayload, RenderDetail> {
  const { config, store, files } = deps;
  const ffmpegOrFail = () => {
    if (!deps.ffmpeg)
      throw new Error('no ffmpeg on this machine: set FFMPEG_PATH, or install ffmpeg on PATH');
    return deps.ffmpeg;
  };

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
    files.clean(id);
    const part = join(files.dir, `${id}.${job.attempt}.part`);
    let reported = 0;
    const started = performance.now();
    try {
      const result = await render(deps.streams, {
        sessionId: row.session_id,
        layout: row.layout as Layout,
        orientation: row.orientation as Orientation,
        focus: row.focus,
        keepGaps: row.keep_gaps === 1,
        resolution: row.resolution as Resolution,
        format: row.format as Format,
        names: row.names === 1,
        clip:
          row.from_ts === null || row.to_ts === null
            ? undefined
            : { fromMs: Number(row.from_ts), toMs: Number(row.to_ts) },
        clockSkewMs: config.liveClockSkewMs,
        output: part,
        workDir: join(files.dir, `${id}.${job.attempt}.work`),
        ffmpeg: ffmpegOrFail(),
        font: nameFont(),
        signal,
        deadline: config.exportDeadline,
        onProgress: (fraction) => {
          if (Date.now() - reported < PROGRESS_EVERY_MS) return;
          reported = Date.now();
          void store.progress(id, job.attempt, Math.floor(fraction * 1000)).catch(() => {});
        },
      });
      // Complete files only ever appear under the final name: a reader sees all of it or nothing.
      await files.store(id, part);
      const current = await store.forJob(deps.db, id);
      if (!current || current.status !== 'processing') {
        // The session was deleted, or a participant redacted, while this rendered: keep nothing.
        await files.remove(id);
        return { ok: true };
      }
      const detail: Rendered = { sizeBytes: result.bytes, durationMs: Math.round(result.durationUs / 1000) };
      if (deps.metrics) {
        const seconds = (performance.now() - started) / 1000;
        deps.metrics.exportRenders.inc({ outcome: 'succeeded' });
        deps.metrics.exportSeconds.observe(seconds);
        if (seconds > 0) deps.metrics.exportSpeed.observe(result.durationUs / 1e6 / seconds);
      }
      return { ok: true, detail };
    } catch (err) {
      rmSync(part, { force: true });
      if (signal.aborted) {
        deps.metrics?.exportRenders.inc({ outcome: 'interrupted' });
        await store.requeue(id, job.attempt).catch(() => {});
        return { ok: false, error: 'interrupted' };
      }
      const log =
        err instanceof RenderError && err.log ? err.log.split(config.dataDir).join('$DATA_DIR') : null;
      const message = (err as Error).message.split(config.dataDir).join('$DATA_DIR');
      // Bad media or an ffmpeg refusal would fail the same way again; anything else may be passing.
      const final = err instanceof RenderError || err instanceof MediaError;
      deps.metrics?.exportRenders.inc({ outcome: 'failed' });
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
      await announce(trx, 'export.completed', id, at);
      return;
    }
    const error = outcome.error ?? 'the render failed';
    const log = outcome.detail && 'log' in outcome.detail ? outcome.detail.log : null;
    if (nextRunAt !== null) await store.retrying(trx, id, job.attempt, error, log);
    else if (await store.fail(trx, id, job.attempt, at, error, log))
      await announce(trx, 'export.failed', id, at);
  }

  /** Publishes the export's outcome, the job as `getExport` shows it, in the transaction that records it. */
  async function announce(trx: Trx, type: 'export.completed' | 'export.failed', id: string, at: number) {
    const row = (await store.forJob(trx, id))!;
    await deps.bus.emit(trx, type, {
      at,
      orgId: row.org_id,
      projectId: row.project_id,
      sessionId: row.session_id,
      data: presentExport(row, config.publicBaseUrl),
    });
  }

  /**
   * At start: removes the partial outputs and scratch folders of attempts no live process runs
   * (a process killed outright leaves them; so does one whose job another process finished). The
   * files of an attempt still under its lease stay, since several processes may share DATA_DIR:
   * a lease that outlived its process runs out, and the attempt that takes the job over clears
   * the export's files when it starts.
   */
  async function starting(): Promise<void> {
    const left = files.attemptFiles();
    if (left.length === 0) return;
    const ids = [...new Set(left.map((f) => f.id))];
    const live = new Map<string, number>();
    for (let k = 0; k < ids.length; k += 500)
      for (const [id, n] of await deps.jobs.leased(RENDER_JOB, ids.slice(k, k + 500))) live.set(id, n);
    const orphans = left.filter((f) => live.get(f.id) !== f.attempt);
    for (const f of orphans) files.removeAttemptFile(f.name);
    if (orphans.length)
      deps.log.info(
        { files: orphans.length },
        'removed what interrupted export renders left in DATA_DIR/exports',
      );
  }

  return {
    kind: RENDER_JOB,
    starting,
    concurrency: config.exportConcurrency,
    // Jobs are grouped by organisation: none holds every worker, whatever its backlog.
    fair: { running: config.exportPerOrg.running },
    leaseMs: config.exportLeaseS * 1000,
    retryDelayMs: (n) => (n < MAX_ATTEMPTS ? 10_000 * n : undefined),
    run: attempt,
    settle,
  };
}
