import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { migrateRowBodies, recoverTails } from './sqlite-segments.js';
import { SqliteWriteThread } from './sqlite-write-thread.js';
import { segmentKey, segmentPath, sessionPrefix } from './segment-files.js';
import { SegmentReader, type SegmentObjects } from './segments.js';
import {
  nextPageRows,
  READ_FIRST_PAGE_ROWS,
  type ReadRange,
  type StreamEvent,
  type StreamStat,
  type StreamStore,
} from './store.js';

/** events per page of a playback window: a page of media bodies is about a megabyte */
const SLOT_PAGE = 64;
type Row = {
  seq: number;
  stream_id: string;
  ts: number;
  segment: number;
  off: number;
  len: number;
  crc: number;
};

/** The SQLite stream store, with its write thread in view (tests stop it to check crash handling). */
export interface SqliteStreamStore extends StreamStore {
  readonly writes: SqliteWriteThread;
}

const SCHEMA = `
  create table if not exists stream_index (
    session_id text not null,
    seq integer not null,
    stream_id text not null,
    ts integer not null,
    segment integer not null,
    off integer not null,
    len integer not null,
    crc integer not null,
    primary key (session_id, seq)
  );
  create index if not exists stream_index_ts on stream_index (session_id, ts, seq);
  create table if not exists stream_segments (
    session_id text not null,
    segment integer not null,
    bytes integer not null,
    sealed integer not null,
    stored integer not null,
    changes integer not null default 0,
    primary key (session_id, segment)
  );
  create table if not exists stream_stats (
    session_id text not null,
    stream_id text not null,
    events integer not null,
    bytes integer not null,
    min_ts integer not null,
    max_ts integer not null,
    primary key (session_id, stream_id)
  );
`;

/**
 * Recorded streams on local disk: each session's event bodies appended to segment files in
 * `DATA_DIR/segments/<session>/`, and one small index row per event (seq, stream, time, segment,
 * offset, length, checksum) in their own SQLite file (`DATA_DIR/streams.sqlite`), so that media
 * writes never queue behind metadata transactions. A body is written once, to its segment: the
 * database holds the index, not the media.
 *
 * Writes go to a worker thread that owns the segment files being appended to and the write
 * connection (sqlite-write-thread.ts): the appends, their fsyncs and the commits run beside the
 * event loop, not on it. Reads run here: index rows from a read-only connection (in WAL mode it
 * sees every committed batch and neither waits for the writer nor blocks it), bodies by positional
 * reads of the segments (segments.ts), each checked against its checksum.
 */
export function sqliteStreamStore(
  dataDir: string,
  options: { file?: string; objects?: SegmentObjects | null } = {},
): SqliteStreamStore {
  const file = options.file ?? 'streams.sqlite';
  const path = join(dataDir, file);
  const root = join(dataDir, file === 'streams.sqlite' ? 'segments' : `${file}.segments`);
  mkdirSync(root, { recursive: true });
  const db = new SQLite(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  migrateRowBodies(db, root);
  recoverTails(db, root);
  // From here on this connection only reads: every write goes through the thread, in order.
  db.pragma('query_only = ON');
  const writes = new SqliteWriteThread(path, root);
  const objects = options.objects ?? null;
  const reader = new SegmentReader(root, objects);
  const pending = db.prepare(
    'select session_id, segment, changes from stream_segments where sealed = 1 and stored = 0 order by session_id, segment',
  );
  let storing: Promise<void> = Promise.resolve();
  /**
   * Uploads every sealed segment that object storage does not hold as it is now (just sealed, or
   * changed by a redaction), one pass at a time; a failed upload is tried again by the next pass.
   */
  const storeSealed = (): Promise<void> => {
    if (!objects) return Promise.resolve();
    // A pass that failed (the bucket unreachable) must not stop the ones after it.
    storing = storing
      .catch(() => {})
      .then(async () => {
        for (const s of pending.all() as Array<{ session_id: string; segment: number; changes: number }>) {
          await objects.putFile(
            segmentKey(s.session_id, s.segment),
            segmentPath(root, s.session_id, s.segment),
          );
          await writes.stored(s.session_id, s.segment, s.changes);
        }
      });
    return storing;
  };
  // What the last run sealed and did not get to store.
  void storeSealed().catch(() => {});
  const withBodies = async function* (sessionId: string, rows: Row[]): AsyncGenerator<StreamEvent> {
    const bodies = await reader.bodies(sessionId, rows);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      yield { sessionId, seq: r.seq, streamId: r.stream_id, ts: r.ts, body: bodies[i]! };
    }
  };
  const COLUMNS = 'seq, stream_id, ts, segment, off, len, crc';
  const maxSeq = db.prepare('select coalesce(max(seq), 0) as m from stream_index where session_id = ?');
  const stats = db.prepare(
    'select stream_id, events, bytes, min_ts, max_ts from stream_stats where session_id = ? order by stream_id',
  );
  const firstFrom = db.prepare(
    'select seq, ts from stream_index where session_id = ? and seq >= ? and ts >= ? order by seq limit 1',
  );
  const nextTs = db.prepare(
    'select ts from stream_index where session_id = ? and ts >= ? order by ts limit 1',
  );
  // Where an answer ends: the last seq stamped in its window, from the covering (session, ts, seq) index.
  const slotBounds = db.prepare(
    'select max(seq) as hi from stream_index indexed by stream_index_ts where session_id = ? and ts >= ? and ts < ? and seq >= ?',
  );
  // Then its rows, SLOT_PAGE at a time, walking the primary key from the last row read as the
  // answer asks for more: an answer capped by its bytes uses a few hundred of the thousands of rows
  // a window may hold, and turning a row into a JS value is most of what reading it costs. Rows of
  // the range stamped in other windows (events that arrived late, or early) are returned in their
  // place: leaving them out would return them out of seq order, in another answer.
  // Named index: over a wide range the planner may prefer the ts index and a sort of all of it.
  const slotRows = db
    .prepare(
      `select ${COLUMNS} from stream_index indexed by sqlite_autoindex_stream_index_1 where session_id = ? and seq >= ? and seq <= ? and ts >= ? order by seq limit ?`,
    )
    .raw(true);

  return {
    files: [path, root],
    writes,
    appendBatch(events) {
      return writes.append(events);
    },
    async seal(sessionId) {
      await writes.seal(sessionId);
      await storeSealed();
    },
    async maxSeq(sessionId) {
      return (maxSeq.get(sessionId) as { m: number }).m;
    },
    async *read(sessionId, range: ReadRange) {
      let from = range.fromSeq ?? 0;
      let left = range.limit ?? Infinity;
      const where = ['session_id = ?', 'seq >= ?'];
      if (range.fromTs !== undefined) where.push('ts >= ?');
      if (range.toTs !== undefined) where.push('ts < ?');
      if (range.toSeq !== undefined) where.push('seq < ?');
      if (range.streamId !== undefined) where.push('stream_id = ?');
      if (range.streamIds !== undefined)
        where.push(`stream_id in (${range.streamIds.map(() => '?').join(', ')})`);
      const stmt = db.prepare(
        `select ${COLUMNS} from stream_index where ${where.join(' and ')} order by seq limit ?`,
      );
      for (let page = READ_FIRST_PAGE_ROWS; ;) {
        const params: unknown[] = [sessionId, from];
        if (range.fromTs !== undefined) params.push(range.fromTs);
        if (range.toTs !== undefined) params.push(range.toTs);
        if (range.toSeq !== undefined) params.push(range.toSeq);
        if (range.streamId !== undefined) params.push(range.streamId);
        if (range.streamIds !== undefined) params.push(...range.streamIds);
        const rows = stmt.all(...params, page) as Row[];
        if (rows.length === 0) return;
        from = rows[rows.length - 1]!.seq + 1;
        const wanted = range.streams ? rows.filter((r) => range.streams!(r.stream_id)) : rows;
        for await (const e of withBodies(sessionId, wanted.length > left ? wanted.slice(0, left) : wanted)) {
          yield e;
          if (--left <= 0) return;
        }
        if (rows.length < page) return;
        page = nextPageRows(rows);
      }
    },
    async stats(sessionId) {
      return (
        stats.all(sessionId) as Array<{
          stream_id: string;
          events: number;
          bytes: number;
          min_ts: number;
          max_ts: number;
        }>
      ).map((r): StreamStat => ({
        streamId: r.stream_id,
        events: r.events,
        bytes: r.bytes,
        minTs: r.min_ts,
        maxTs: r.max_ts,
      }));
    },
    async firstFrom(sessionId, fromSeq, fromTs) {
      return firstFrom.get(sessionId, fromSeq, fromTs) as { seq: number; ts: number } | undefined;
    },
    async nextTs(sessionId, ts) {
      return (nextTs.get(sessionId, ts) as { ts: number } | undefined)?.ts;
    },
    async *slot(sessionId, lo, hi, fromSeq, limit, fromTs) {
      type Raw = [number, string, number, number, number, number, number];
      const bounds = slotBounds.get(sessionId, lo, hi, fromSeq) as { hi: number | null };
      if (bounds.hi === null) return;
      for (let from = fromSeq, left = limit; left > 0;) {
        const rows = slotRows.all(sessionId, from, bounds.hi, fromTs, Math.min(SLOT_PAGE, left)) as Raw[];
        if (rows.length === 0) return;
        left -= rows.length;
        from = rows[rows.length - 1]![0] + 1;
        const bodies = await reader.bodies(
          sessionId,
          rows.map((r) => ({ seq: r[0], segment: r[3], off: r[4], len: r[5], crc: r[6] })),
        );
        yield rows.map((r, k) => ({ sessionId, seq: r[0], streamId: r[1], ts: r[2], body: bodies[k]! }));
      }
    },
    async deleteStreams(sessionId, streamIds) {
      if (streamIds.length === 0) return 0;
      // The thread overwrites the bodies with zeros in their segments, then deletes the rows and
      // truncates the WAL (see sqlite-write-worker.js): redacted bytes are left nowhere on disk.
      const { events } = await writes.deleteStreams(sessionId, streamIds);
      await storeSealed();
      return events;
    },
    async deleteSession(sessionId) {
      reader.forget(sessionId);
      const events = await writes.deleteSession(sessionId);
      await objects?.deletePrefix(sessionPrefix(sessionId));
      return events;
    },
    async replaceBody(sessionId, seq, body) {
      await writes.replaceBody(sessionId, seq, body);
      await storeSealed();
    },
    async close() {
      await storing.catch(() => {});
      await writes.close();
      reader.close();
      db.close();
    },
  };
}
