import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { BlobStore } from '../../blobs/store.js';
import type { EventBus } from '../../bus/events.js';
import type { Config } from '../../config.js';
import { transaction } from '../../db/transaction.js';
import type { Db, SessionsTable, StoryboardsTable, Trx } from '../../db/types.js';
import type { JobKind, JobQueue } from '../../jobs/queue.js';
import type { StreamStore } from '../../streams/store.js';
import type { RecordingsService } from '../recordings/service.js';
import type { SessionsService } from '../sessions/service.js';
import { MediaError } from './codecs.js';
import { RenderError } from './feed.js';
import { nameFont } from './fonts.js';
import { hasVideo, renderStoryboard, type StoryboardGrid } from './storyboard.js';
import { storyboardFiles, storyboardStore } from './storyboard-store.js';

/** The job that makes a session's storyboard. */
export const STORYBOARD_JOB = 'storyboard.render';
/** A storyboard is tried at most this many times (a worker that died used one up), then fails. */
const MAX_ATTEMPTS = 3;
/** Why a session has no storyboard, when it recorded no camera and no screen. */
export const NO_VIDEO = 'the recording has no video (no camera, no screen share): it has no storyboard';

interface StoryboardPayload {
  session_id: string;
  /** the making (the row's `created_at`) this job renders */
  making: number;
}

/** What an attempt records: the grid of the sprite it stored, or that there is no video. */
type Made = { grid: StoryboardGrid } | { none: true };

/** Where a session's storyboard stands, for its routes. */
export type StoryboardState =
  | { status: 'none' }
  | { status: 'queued' | 'failed'; error: string | null }
  | { status: 'completed'; row: StoryboardsTable };

/**
 * Storyboards: a thumbnail sprite of each recorded session with video, made by a durable job
 * enqueued in the transaction that announces `recording.ready`, made again after a participant's
 * redaction, deleted with its session. The sprite is stored in the blob store exports use.
 */
export function storyboardsService(deps: {
  config: Config;
  db: Db;
  blobs: BlobStore;
  streams: StreamStore;
  bus: EventBus;
  jobs: JobQueue;
  /** the ffmpeg binary, null when the machine has none */
  ffmpeg: string | null;
  /** the recording's bounds (the manifest's), as the player shows them */
  recordings: Pick<RecordingsService, 'manifest'>;
  sessions: Pick<SessionsService, 'findAny'>;
  log: FastifyBaseLogger;
}) {
  const { config, db } = deps;
  const store = storyboardStore();
  const files = storyboardFiles(deps.blobs);
  const dir = join(config.dataDir, 'exports');

  /** Queues a making of the storyboard in `q`'s transaction, replacing any queued before. */
  const queue = (q: Db | Trx, sessionId: string) =>
    transaction(q, async (trx) => {
      const making = await store.queue(trx, sessionId);
      await deps.jobs.cancelGroup(trx, STORYBOARD_JOB, sessionId);
      await deps.jobs.enqueue(
        trx,
        STORYBOARD_JOB,
        { session_id: sessionId, making } satisfies StoryboardPayload,
        {
          groupKey: sessionId,
        },
      );
    });
  deps.bus.onTransactional('recording.ready', async (trx, e) => {
    if (e.sessionId) await queue(trx, e.sessionId);
  });

  const job: JobKind<StoryboardPayload, Made> = {
    kind: STORYBOARD_JOB,
    concurrency: 1,
    leaseMs: config.exportLeaseS * 1000,
    retryDelayMs: (n) => (n < MAX_ATTEMPTS ? 10_000 * n : undefined),
    async run(job, signal) {
      const { session_id: sessionId, making } = job.payload;
      if (job.attempt > MAX_ATTEMPTS)
        return { ok: false, final: true, error: `the storyboard was interrupted ${MAX_ATTEMPTS} times` };
      const row = await store.byId(db, sessionId);
      const session = await deps.sessions.findAny(sessionId);
      // Deleted (with a row queued in a race with the deletion: it goes too), or made again since.
      if (row && !session) await store.delete(db, sessionId);
      if (!row || row.created_at !== making || row.status !== 'queued' || !session) return { ok: true };
      if (!deps.ffmpeg)
        return {
          ok: false,
          final: true,
          error: 'no ffmpeg on this machine: set FFMPEG_PATH, or install ffmpeg',
        };
      mkdirSync(dir, { recursive: true });
      const part = join(dir, `storyboard-${sessionId}.${making}.${job.attempt}.jpg`);
      try {
        const manifest = await deps.recordings.manifest(session);
        const grid = await renderStoryboard(deps.streams, {
          sessionId,
          startMs: manifest.start_ts,
          endMs: manifest.end_ts,
          ffmpeg: deps.ffmpeg,
          font: nameFont(),
          output: part,
          workDir: `${part}.work`,
          signal,
          deadline: config.exportDeadline,
        });
        if (!grid) return { ok: true, detail: { none: true } };
        await files.store(sessionId, making, part);
        const now = await store.byId(db, sessionId);
        if (!now || now.created_at !== making) {
          // Deleted, or made again, while this rendered: keep nothing.
          await files.remove(sessionId, making);
          return { ok: true };
        }
        return { ok: true, detail: { grid } };
      } catch (err) {
        if (signal.aborted) return { ok: false, error: 'interrupted' };
        const message = (err as Error).message.split(config.dataDir).join('$DATA_DIR');
        // Bad media or an ffmpeg refusal would fail the same way again; anything else may be passing.
        const final = err instanceof RenderError || err instanceof MediaError;
        if (err instanceof RenderError && err.log)
          deps.log.warn({ session: sessionId, log: err.log }, `storyboard failed: ${message}`);
        return { ok: false, final, error: message };
      } finally {
        rmSync(part, { force: true });
      }
    },
    async settle(trx, job, outcome, nextRunAt) {
      const { session_id: sessionId, making } = job.payload;
      const made = outcome.detail;
      if (outcome.ok) {
        if (made && 'grid' in made) await store.complete(trx, sessionId, making, made.grid);
        else if (made) await store.fail(trx, sessionId, making, NO_VIDEO);
        return;
      }
      const error = outcome.error ?? 'the storyboard failed';
      if (nextRunAt !== null) await store.retrying(trx, sessionId, making, error);
      else await store.fail(trx, sessionId, making, error);
    },
  };
  deps.jobs.register(job);

  return {
    /** Where a session's storyboard stands (its sprite's grid once made). */
    async state(session: Pick<SessionsTable, 'id' | 'ended_at'>): Promise<StoryboardState> {
      const row = await store.byId(db, session.id);
      if (!row) {
        // Never queued: say "no video" when that is why there will never be one.
        const stats = await deps.streams.stats(session.id);
        if (stats.length > 0 && !hasVideo(stats.map((s) => s.streamId)))
          return { status: 'failed', error: NO_VIDEO };
        // A session that ended before storyboards were made (or whose making was lost) gets one
        // now, when first asked for.
        if (session.ended_at !== null && stats.length > 0) {
          await queue(db, session.id);
          return { status: 'queued', error: null };
        }
        return { status: 'none' };
      }
      if (row.status === 'completed') return { status: 'completed', row };
      return { status: row.status === 'failed' ? 'failed' : 'queued', error: row.error };
    },

    /** The sprite of a completed storyboard; undefined when it is no longer stored. */
    sprite: (row: StoryboardsTable) => files.read(row.session_id, row.created_at),

    /**
     * After a participant's media was deleted: a storyboard made (or being made) shows them, so
     * its sprite is deleted and it is made again. A session whose recording was never ready has
     * none yet; its making will not see them.
     */
    async remake(sessionId: string): Promise<void> {
      const row = await store.byId(db, sessionId);
      if (!row) return;
      await queue(db, sessionId);
      await files.remove(sessionId, row.created_at);
    },

    /** Deletes a session's storyboard: its row, its pending job and its sprites. */
    async deleteOfSession(sessionId: string): Promise<void> {
      await transaction(db, async (trx) => {
        await deps.jobs.cancelGroup(trx, STORYBOARD_JOB, sessionId);
        await store.delete(trx, sessionId);
      });
      await files.removeAll(sessionId);
    },
  };
}
export type StoryboardsService = ReturnType<typeof storyboardsService>;
