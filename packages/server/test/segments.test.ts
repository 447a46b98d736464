import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SegmentCorruptError } from '../src/streams/segments.js';
import { sqliteStreamStore } from '../src/streams/sqlite.js';
import type { StreamEvent, StreamStore } from '../src/streams/store.js';
import { call, createSession, ENGINE, expectError, startApp, tenant } from './support/app.js';
import { filesHaving } from './support/files.js';

const T0 = 1_800_000_000_000;

/** Events of one session, each body unique: its seq, then filler that names it. */
function frames(
  sessionId: string,
  from: number,
  n: number,
  bytes = 5000,
  stream = 'media/alice/cam',
): StreamEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const seq = from + i;
    const body = Buffer.alloc(bytes, `frame ${seq} of ${sessionId};`);
    return { sessionId, seq, streamId: stream, ts: T0 + seq * 10, body };
  });
}

async function readAll(store: StreamStore, sessionId: string): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of store.read(sessionId, {})) out.push({ ...e, body: Buffer.from(e.body) });
  return out;
}

function expectSame(got: StreamEvent[], want: StreamEvent[]): void {
  expect(got.map((e) => [e.seq, e.streamId, e.ts])).toEqual(want.map((e) => [e.seq, e.streamId, e.ts]));
  for (let i = 0; i < want.length; i++)
    expect(got[i]!.body.equals(want[i]!.body), `seq ${want[i]!.seq} is byte-identical`).toBe(true);
}

describe.runIf(ENGINE === 'sqlite')('segment files on the embedded default', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vss-segments-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes each body once, appended to its session’s segment, and keeps only the index in the database', async () => {
    const d = mkdtempSync(join(dir, 'once-'));
    const store = sqliteStreamStore(d);
    try {
      const a = frames('sess-a', 1, 40);
      const b = frames('sess-b', 1, 40, 3000, 'media/bob/mic');
      // One batch with both sessions' events interleaved, then more of each.
      await store.appendBatch(a.slice(0, 20).flatMap((e, i) => [e, b[i]!]));
      await store.appendBatch([...a.slice(20), ...b.slice(20)]);
      expectSame(await readAll(store, 'sess-a'), a);
      expectSame(await readAll(store, 'sess-b'), b);

      const mark = Buffer.from('frame 17 of sess-a;');
      expect(filesHaving(d, mark)).toEqual([join(d, 'segments', 'sess-a', '0.seg')]);
      // Bytes written once: the segment is exactly the session's bodies, one after another.
      expect(statSync(join(d, 'segments', 'sess-a', '0.seg')).size).toBe(40 * 5000);
      expect(
        readFileSync(join(d, 'segments', 'sess-a', '0.seg')).equals(Buffer.concat(a.map((e) => e.body))),
      ).toBe(true);
      expect(await store.stats('sess-a')).toEqual([
        { streamId: 'media/alice/cam', events: 40, bytes: 200_000, minTs: T0 + 10, maxTs: T0 + 400 },
      ]);
    } finally {
      await store.close();
    }
  });

  it('takes a refused batch’s bytes back off the segment', async () => {
    const d = mkdtempSync(join(dir, 'refused-'));
    const store = sqliteStreamStore(d);
    try {
      await store.appendBatch(frames('s', 1, 5));
      // seq 5 again: the whole batch is refused, and its bodies do not stay in the segment.
      await expect(store.appendBatch([...frames('s', 6, 3), ...frames('s', 5, 1)])).rejects.toThrow();
      expect(statSync(join(d, 'segments', 's', '0.seg')).size).toBe(5 * 5000);
      await store.appendBatch(frames('s', 6, 3));
      expectSame(await readAll(store, 's'), frames('s', 1, 8));
    } finally {
      await store.close();
    }
  });

  it('cuts a tail torn by a crash back to the last committed event when it opens, and starts a new segment', async () => {
    const d = mkdtempSync(join(dir, 'torn-'));
    const first = sqliteStreamStore(d);
    const committed = frames('s', 1, 30);
    await first.appendBatch(committed);
    // The process dies after writing a batch's bodies and before its rows commit: bytes past the
    // last committed event that nothing points at, and the segment never sealed.
    await first.writes.thread!.terminate();
    const seg = join(d, 'segments', 's', '0.seg');
    appendFileSync(seg, Buffer.alloc(12_345, 'torn tail'));
    await first.close();

    const again = sqliteStreamStore(d);
    try {
      expect(statSync(seg).size).toBe(30 * 5000);
      expectSame(await readAll(again, 's'), committed);
      await again.appendBatch(frames('s', 31, 5));
      expectSame(await readAll(again, 's'), frames('s', 1, 35));
      // The torn segment is sealed: what follows goes to a new one.
      expect(statSync(join(d, 'segments', 's', '1.seg')).size).toBe(5 * 5000);
    } finally {
      await again.close();
    }
  });

  it('removes a segment whose bytes never committed', async () => {
    const d = mkdtempSync(join(dir, 'empty-'));
    const first = sqliteStreamStore(d);
    await first.appendBatch(frames('s', 1, 2));
    await first.writes.thread!.terminate();
    await first.close();
    // A second run dies before its first commit: a new segment with bytes and no row.
    const db = new SQLite(join(d, 'streams.sqlite'));
    db.prepare(
      "insert into stream_segments (session_id, segment, bytes, sealed, stored) values ('s', 1, 0, 0, 0)",
    ).run();
    db.close();
    writeFileSync(join(d, 'segments', 's', '1.seg'), Buffer.alloc(999, 1));

    const again = sqliteStreamStore(d);
    try {
      expect(readdirSync(join(d, 'segments', 's'))).toEqual(['0.seg']);
      expectSame(await readAll(again, 's'), frames('s', 1, 2));
    } finally {
      await again.close();
    }
  });

  it('reports a damaged body instead of serving it', async () => {
    const d = mkdtempSync(join(dir, 'damaged-'));
    const store = sqliteStreamStore(d);
    try {
      await store.appendBatch(frames('s', 1, 10));
      const seg = join(d, 'segments', 's', '0.seg');
      const bytes = readFileSync(seg);
      bytes[6 * 5000 + 123]! ^= 0x01; // one bit of seq 7
      writeFileSync(seg, bytes);
      const seen: number[] = [];
      const err = await (async () => {
        for await (const e of store.read('s', {})) seen.push(e.seq);
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SegmentCorruptError);
      expect((err as SegmentCorruptError).seq).toBe(7);
      // Nothing of the page holding the damaged body was served.
      expect(seen).toEqual([]);
      // Reads that do not touch it still work.
      const before: number[] = [];
      for await (const e of store.read('s', { limit: 6 })) before.push(e.seq);
      expect(before).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await store.close();
    }
  });

  it('moves recordings made before segment files into segments when it opens, byte-identical', async () => {
    const d = mkdtempSync(join(dir, 'migrate-'));
    // streams.sqlite as earlier releases wrote it: the bodies in the rows.
    const old = new SQLite(join(d, 'streams.sqlite'));
    old.exec(`
      create table stream_events (session_id text not null, seq integer not null, stream_id text not null,
        ts integer not null, body blob not null, primary key (session_id, seq));
      create index stream_events_ts on stream_events (session_id, ts, seq);
      create table stream_stats (session_id text not null, stream_id text not null, events integer not null,
        bytes integer not null, min_ts integer not null, max_ts integer not null, primary key (session_id, stream_id));
    `);
    const a = frames('old-a', 1, 700, 2000);
    const b = [...frames('old-b', 1, 3, 100, 'chat'), ...frames('old-b', 4, 3, 0, 'events')];
    const insert = old.prepare('insert into stream_events values (?, ?, ?, ?, ?)');
    for (const e of [...a, ...b]) insert.run(e.sessionId, e.seq, e.streamId, e.ts, e.body);
    old
      .prepare("insert into stream_stats values ('old-a', 'media/alice/cam', 700, 1400000, ?, ?)")
      .run(T0 + 10, T0 + 7000);
    old.close();

    const store = sqliteStreamStore(d);
    try {
      expectSame(await readAll(store, 'old-a'), a);
      expectSame(await readAll(store, 'old-b'), b);
      expect((await store.stats('old-a'))[0]).toMatchObject({ events: 700, bytes: 1_400_000 });
      // New events follow in a segment of their own.
      await store.appendBatch(frames('old-a', 701, 2, 2000));
      expectSame(await readAll(store, 'old-a'), frames('old-a', 1, 702, 2000));
    } finally {
      await store.close();
    }
    const db = new SQLite(join(d, 'streams.sqlite'), { readonly: true });
    expect(db.prepare("select name from sqlite_master where name = 'stream_events'").all()).toEqual([]);
    db.close();
    expect(filesHaving(d, Buffer.from('frame 500 of old-a;'))).toEqual([
      join(d, 'segments', 'old-a', '0.seg'),
    ]);
  });
});

describe.runIf(ENGINE === 'sqlite')('a damaged recording through the API', () => {
  it('answers playback with a 500 naming the damaged event, not its bytes', async () => {
    const t = await startApp();
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      await t.runtime.streams.appendBatch(frames(s.id, 1, 10, 5000));
      const ok = await call(t, 'GET', `/v1/sessions/${s.id}/playback?from_ts=${T0}&window_size=1000`, {
        key: a.key,
      });
      expect(ok.status).toBe(200);
      expect(ok.body.data.events).toHaveLength(10);

      const seg = join(t.dataDir, 'segments', s.id, '0.seg');
      const bytes = readFileSync(seg);
      bytes[2 * 5000 + 7]! ^= 0xff; // seq 3
      writeFileSync(seg, bytes);
      const bad = await call(t, 'GET', `/v1/sessions/${s.id}/playback?from_ts=${T0}&window_size=1000`, {
        key: a.key,
      });
      expect(expectError(bad, 500, 'SERVER_ERROR')).toMatch(/recorded event 3 .* fails its checksum/);
      expect(bad.raw).not.toContain(bytes.subarray(5000, 5100).toString('base64'));
    } finally {
      await t.close();
    }
  });
});
