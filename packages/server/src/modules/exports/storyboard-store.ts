import type { BlobStore } from '../../blobs/store.js';
import type { Db, StoryboardsTable, Trx } from '../../db/types.js';
import { now } from '../../lib/time.js';
import type { StoryboardGrid } from './storyboard.js';

/**
 * SQL of storyboards: one row per session whose recording was ready. `created_at` names the
 * making: each time one is queued (the recording ready, a participant redacted) it moves on, and
 * a render records its outcome only while the row still names its making, so that a render
 * overtaken by a newer one keeps nothing.
 */
export function storyboardStore() {
  const byId = (q: Db | Trx, sessionId: string) =>
    q.selectFrom('storyboards').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
  const finished = (q: Trx, sessionId: string, making: number, set: Partial<StoryboardsTable>) =>
    q
      .updateTable('storyboards')
      .set(set)
      .where('session_id', '=', sessionId)
      .where('created_at', '=', making)
      .where('status', '=', 'queued')
      .executeTakeFirst()
      .then((r) => Number(r.numUpdatedRows) > 0);
  return {
    byId,

    /** Queues a (new) making of a session's storyboard; returns its `created_at`. */
    async queue(q: Trx, sessionId: string): Promise<number> {
      const before = await byId(q, sessionId);
      // Strictly after the making it replaces, even within one millisecond.
      const at = Math.max(now(), (before?.created_at ?? 0) + 1);
      const row = { status: 'queued', error: null, created_at: at, completed_at: null };
      if (before) await q.updateTable('storyboards').set(row).where('session_id', '=', sessionId).execute();
      else
        await q
          .insertInto('storyboards')
          .values({
            session_id: sessionId,
            interval_ms: 0,
            columns: 0,
            tile_w: 0,
            tile_h: 0,
            count: 0,
            ...row,
          })
          .execute();
      return at;
    },

    complete(q: Trx, sessionId: string, making: number, grid: StoryboardGrid): Promise<boolean> {
      return finished(q, sessionId, making, {
        status: 'completed',
        interval_ms: grid.intervalMs,
        columns: grid.columns,
        tile_w: grid.tileW,
        tile_h: grid.tileH,
        count: grid.count,
        error: null,
        completed_at: now(),
      });
    },

    fail(q: Trx, sessionId: string, making: number, error: string): Promise<boolean> {
      return finished(q, sessionId, making, { status: 'failed', error, completed_at: now() });
    },

    /** A failed attempt that will be tried again: still queued, with the error so far. */
    async retrying(q: Trx, sessionId: string, making: number, error: string): Promise<void> {
      await q
        .updateTable('storyboards')
        .set({ error })
        .where('session_id', '=', sessionId)
        .where('created_at', '=', making)
        .execute();
    },

    async delete(q: Db | Trx, sessionId: string): Promise<void> {
      await q.deleteFrom('storyboards').where('session_id', '=', sessionId).execute();
    },
  };
}
export type StoryboardStore = ReturnType<typeof storyboardStore>;

/**
 * Where sprites are kept: in the blob store exports use (local disk under DATA_DIR, or the
 * bucket), as `storyboards/<session>/<making>.jpg`, one object per making, so that a render that
 * was overtaken can never overwrite the newer sprite.
 */
export function storyboardFiles(blobs: BlobStore) {
  const key = (sessionId: string, making: number) => `storyboards/${sessionId}/${making}.jpg`;
  return {
    store: (sessionId: string, making: number, file: string) => blobs.putFile(key(sessionId, making), file),
    /** The sprite's bytes, or undefined when there is none. */
    async read(sessionId: string, making: number): Promise<Buffer | undefined> {
      const size = await blobs.size(key(sessionId, making));
      return size === undefined ? undefined : blobs.read(key(sessionId, making), 0, size);
    },
    remove: (sessionId: string, making: number) => blobs.delete([key(sessionId, making)]),
    /** Removes every sprite of a session. */
    removeAll: (sessionId: string) => blobs.deletePrefix(`storyboards/${sessionId}/`),
  };
}
export type StoryboardFiles = ReturnType<typeof storyboardFiles>;
