import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStreamStore } from '../src/streams/sqlite.js';
import {
  nextPageRows,
  READ_FIRST_PAGE_ROWS,
  type StreamEvent,
  type StreamStore,
} from '../src/streams/store.js';
import { StreamWriter } from '../src/streams/writer.js';
import { ENGINE, startApp, type TestApp } from './support/app.js';

const T0 = 1_800_000_000_000;

/** Events of one session's cam stream, seq `from` on, each body naming its seq. */
function frames(sessionId: string, from: number, n: number, bytes = 2000): StreamEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const body = Buffer.alloc(bytes, (from + i) & 0xff);
    body.writeUInt32BE(from + i, 0);
    return { sessionId, seq: from + i, streamId: 'media/alice/cam', ts: T0 + (from + i) * 10, body };
  });
}

async function seqsOf(store: StreamStore, sessionId: string): Promise<number[]> {
  const out: number[] = [];
  for await (const e of store.read(sessionId, {})) {
    expect(e.body.readUInt32BE(0), `seq ${e.seq} has its own bytes`).toBe(e.seq);
    out.push(e.seq);
  }
  return out;
}

describe('the stream store', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a whole batch that fails, and keeps writing the batches after it', async () => {
    const store = t.runtime.streams;
    const sessionId = `s-${Math.random().toString(36).slice(2)}`;
    await store.appendBatch(frames(sessionId, 1, 10));
    // seq 10 is taken: the batch 11..5, 10 fails as a whole.
    await expect(
      store.appendBatch([...frames(sessionId, 11, 5), ...frames(sessionId, 10, 1)]),
    ).rejects.toThrow();
    await store.appendBatch(frames(sessionId, 11, 5));
    expect(await seqsOf(store, sessionId)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect((await store.stats(sessionId))[0]).toMatchObject({ events: 15, bytes: 15 * 2000 });
  });

  it('reads every event once and in order across pages sized by their bodies, with filters and a limit', async () => {
    const store = t.runtime.streams;
    const sessionId = `s-${Math.random().toString(36).slice(2)}`;
    // Small bodies, then large ones (pages of 256 rows shrink to about 1 MiB), then small again.
    await store.appendBatch(frames(sessionId, 1, 300, 100));
    await store.appendBatch(frames(sessionId, 301, 150, 40_000));
    await store.appendBatch(frames(sessionId, 451, 400, 100));
    const all = Array.from({ length: 850 }, (_, i) => i + 1);
    expect(await seqsOf(store, sessionId)).toEqual(all);

    const some: number[] = [];
    for await (const e of store.read(sessionId, { fromSeq: 280, streamId: 'media/alice/cam', limit: 300 }))
      some.push(e.seq);
    expect(some).toEqual(all.slice(279, 579));
    const none: number[] = [];
    for await (const e of store.read(sessionId, { streamId: 'media/bob/cam' })) none.push(e.seq);
    expect(none).toEqual([]);
  });

  it('reads a playback answer in seq order through the last event of its window, late and early events in their place, up to a limit', async () => {
    const store = t.runtime.streams;
    const sessionId = `s-${Math.random().toString(36).slice(2)}`;
    // seq 1..1000 at 10 ms apart; every 7th event is stamped 5 s earlier (it arrived late), so the
    // window [T0 + 1 s, T0 + 3 s) holds its own events and late ones of seqs 600 to 800, and its
    // seq range holds events stamped before it (late ones) and after it.
    const events = frames(sessionId, 1, 1000, 300).map((e) =>
      e.seq % 7 === 0 ? { ...e, ts: e.ts - 5_000 } : e,
    );
    await store.appendBatch(events);
    const lo = T0 + 1_000;
    const hi = T0 + 3_000;
    const want = (fromSeq: number, fromTs: number) => {
      const last = Math.max(
        ...events.filter((e) => e.ts >= lo && e.ts < hi && e.seq >= fromSeq).map((e) => e.seq),
      );
      return events.filter((e) => e.seq >= fromSeq && e.seq <= last && e.ts >= fromTs).map((e) => e.seq);
    };
    const slot = async (fromSeq: number, limit: number, fromTs = lo, window = [lo, hi] as const) => {
      const got: number[] = [];
      for await (const page of store.slot(sessionId, window[0], window[1], fromSeq, limit, fromTs))
        for (const e of page) {
          expect(e.body.readUInt32BE(0), `seq ${e.seq} has its own bytes`).toBe(e.seq);
          got.push(e.seq);
        }
      return got;
    };
    expect(want(0, lo).length).toBeGreaterThan(150);
    expect(want(0, lo).at(-1)).toBe(798);
    expect(await slot(0, 10_000)).toEqual(want(0, lo));
    expect(await slot(150, 10_000)).toEqual(want(150, lo));
    // Read from an earlier from_ts: the late events stamped before the window come in their place.
    expect(want(0, T0).filter((s) => events[s - 1]!.ts < lo).length).toBeGreaterThan(10);
    expect(await slot(0, 10_000, T0)).toEqual(want(0, T0));
    expect(await slot(0, 70)).toEqual(want(0, lo).slice(0, 70));
    expect(await slot(1001, 10)).toEqual([]);
    expect(await slot(0, 0)).toEqual([]);
    // A window with nothing in it.
    expect(await slot(0, 100, T0 + 60_000, [T0 + 60_000, T0 + 61_000])).toEqual([]);
  });
});

describe('the pages of a read', () => {
  const page = (n: number, bytes: number) => Array.from({ length: n }, () => ({ body: Buffer.alloc(bytes) }));
  it('holds about 1 MiB of bodies: 256 rows of small ones, fewer of large ones, never fewer than 8', () => {
    expect(READ_FIRST_PAGE_ROWS * 40_000).toBeLessThan(2 * 1024 * 1024);
    expect(nextPageRows(page(32, 100))).toBe(256);
    expect(nextPageRows(page(256, 4000))).toBe(256);
    expect(nextPageRows(page(32, 40_000))).toBe(26);
    expect(nextPageRows(page(26, 40_000))).toBe(26);
    expect(nextPageRows(page(8, 4 * 1024 * 1024))).toBe(8);
    expect(nextPageRows([])).toBe(256);
  });
});

describe('the stream writer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('makes every accepted event durable in order, including those that arrive while a batch is written', async () => {
    const writer = new StreamWriter(t.runtime.streams);
    const sessionId = `w-${Math.random().toString(36).slice(2)}`;
    const acks: Promise<void>[] = [];
    for (let burst = 0; burst < 5; burst++) {
      for (const e of frames(sessionId, burst * 200 + 1, 200, 20_000)) acks.push(writer.append(e));
      // The next burst arrives while this one is being written.
      void writer.flush();
      await new Promise((r) => setImmediate(r));
    }
    await writer.flush();
    expect((await Promise.allSettled(acks)).filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await seqsOf(t.runtime.streams, sessionId)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(writer.stats.events).toBe(1000);

    // A batch that cannot be written fails its appends; the writer goes on with the next.
    const taken = writer.append(frames(sessionId, 1000, 1)[0]!);
    await expect(taken).rejects.toThrow();
    await writer.append(frames(sessionId, 1001, 1)[0]!);
    expect((await seqsOf(t.runtime.streams, sessionId)).at(-1)).toBe(1001);
  });
});

describe.runIf(ENGINE === 'sqlite')('the SQLite stream store’s write thread', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vss-streams-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails the writes in flight when it dies, instead of leaving them waiting, and the next write starts it again', async () => {
    const store = sqliteStreamStore(dir, { file: 'crash.sqlite' });
    try {
      await store.appendBatch(frames('s', 1, 3));
      const thread = store.writes.thread!;
      expect(thread).not.toBeNull();
      // Another connection holds the write lock, so the next batch cannot commit before the thread dies.
      const other = new SQLite(join(dir, 'crash.sqlite'));
      other.exec('begin immediate');
      const inFlight = store.appendBatch(frames('s', 4, 3));
      await thread.terminate();
      await expect(inFlight).rejects.toThrow(/write thread stopped/);
      other.exec('rollback');
      other.close();

      await store.appendBatch(frames('s', 4, 3));
      expect(store.writes.thread).not.toBe(thread);
      expect(await seqsOf(store, 's')).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await store.close();
    }
  });

  it('writes what was posted before closing, and refuses writes after', async () => {
    const store = sqliteStreamStore(dir, { file: 'close.sqlite' });
    const posted = [
      store.appendBatch(frames('s', 1, 100, 30_000)),
      store.appendBatch(frames('s', 101, 100, 30_000)),
    ];
    await store.close();
    await Promise.all(posted);
    await expect(store.appendBatch(frames('s', 201, 1))).rejects.toThrow(/closed/);

    const again = sqliteStreamStore(dir, { file: 'close.sqlite' });
    try {
      expect(await seqsOf(again, 's')).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      await again.close();
    }
  });
});
