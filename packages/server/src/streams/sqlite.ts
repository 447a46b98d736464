import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { statsOf, type ReadRange, type StreamEvent, type StreamStat, type StreamStore } from './store.js';

const PAGE = 256;
/** rows per statement of a playback window: a page of media bodies is about a megabyte */
const SLOT_PAGE = 64;
type Row = { seq: number; stream_id: string; ts: number; body: Buffer };

/**
 * Recorded streams in their own SQLite file (`DATA_DIR/streams.sqlite`), so that media writes never
 * queue behind metadata transactions. better-sqlite3 is synchronous: a batch is one short
 * transaction on the event loop, which at media rates costs well under a millisecond.
 */
export function sqliteStreamStore(dataDir: string, file = 'streams.sqlite'): StreamStore {
  const db = new SQLite(join(dataDir, file));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // Redacted media must be gone from the file, not just unlinked from the b-tree.
  db.pragma('secure_delete = ON');
  db.exec(`
    create table if not exists stream_events (
      session_id text not null,
      seq integer not null,
      stream_id text not null,
      ts integer not null,
      body blob not null,
      primary key (session_id, seq)
    );
    create index if not exists stream_events_ts on stream_events (session_id, ts, seq);
    create table if not exists stream_stats (
      session_id text not null,
      stream_id text not null,
      events integer not null,
      bytes integer not null,
      min_ts integer not null,
      max_ts integer not null,
      primary key (session_id, stream_id)
    );
  `);
  const insert = db.prepare(
    'insert into stream_events (session_id, seq, stream_id, ts, body) values (?, ?, ?, ?, ?)',
  );
  const upsertStat = db.prepare(`
    insert into stream_stats (session_id, stream_id, events, bytes, min_ts, max_ts) values (?, ?, ?, ?, ?, ?)
    on conflict (session_id, stream_id) do update set
      events = events + excluded.events, bytes = bytes + excluded.bytes,
      min_ts = min(min_ts, excluded.min_ts), max_ts = max(max_ts, excluded.max_ts)`);
  const insertMany = db.transaction((events: StreamEvent[]) => {
    for (const e of events) insert.run(e.sessionId, e.seq, e.streamId, e.ts, e.body);
    for (const s of statsOf(events).values())
      upsertStat.run(s.sessionId, s.streamId, s.events, s.bytes, s.minTs, s.maxTs);
  });
  const maxSeq = db.prepare('select coalesce(max(seq), 0) as m from stream_events where session_id = ?');
  const stats = db.prepare(
    'select stream_id, events, bytes, min_ts, max_ts from stream_stats where session_id = ? order by stream_id',
  );
  const firstFrom = db.prepare(
    'select seq, ts from stream_events where session_id = ? and seq >= ? and ts >= ? order by seq limit 1',
  );
  const nextTs = db.prepare(
    'select ts from stream_events where session_id = ? and ts >= ? order by ts limit 1',
  );
  const minSeqIn = db.prepare(
    'select min(seq) as s from stream_events where session_id = ? and ts >= ? and ts < ?',
  );
  // The seq range of a window from the covering (session, ts, seq) index: without the hint the
  // planner may walk the primary key from fromSeq to the session's end, testing ts row by row.
  const slotBounds = db.prepare(
    'select min(seq) as lo, max(seq) as hi from stream_events indexed by stream_events_ts where session_id = ? and ts >= ? and ts < ? and seq >= ?',
  );
  const slotPage = db.prepare(
    'select seq, stream_id, ts, body from stream_events where session_id = ? and seq >= ? and seq <= ? and ts >= ? and ts < ? order by seq limit ?',
  );
  const bySeq = db.prepare(
    'select seq, stream_id, ts, body from stream_events where session_id = ? and seq = ?',
  );

  return {
    async appendBatch(events) {
      insertMany(events);
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
      if (range.streamId !== undefined) where.push('stream_id = ?');
      const stmt = db.prepare(
        `select seq, stream_id, ts, body from stream_events where ${where.join(' and ')} order by seq limit ?`,
      );
      for (;;) {
        const params: unknown[] = [sessionId, from];
        if (range.fromTs !== undefined) params.push(range.fromTs);
        if (range.toTs !== undefined) params.push(range.toTs);
        if (range.streamId !== undefined) params.push(range.streamId);
        const rows = stmt.all(...params, PAGE) as Row[];
        for (const r of rows) {
          from = r.seq + 1;
          if (range.streams && !range.streams(r.stream_id)) continue;
          yield { sessionId, seq: r.seq, streamId: r.stream_id, ts: r.ts, body: r.body };
          if (--left <= 0) return;
        }
        if (rows.length < PAGE) return;
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
    async minSeqIn(sessionId, lo, hi) {
      return (minSeqIn.get(sessionId, lo, hi) as { s: number | null }).s ?? undefined;
    },
    async *slot(sessionId, lo, hi, fromSeq, limit) {
      const bounds = slotBounds.get(sessionId, lo, hi, fromSeq) as { lo: number | null; hi: number | null };
      if (bounds.lo === null || bounds.hi === null) return;
      let from = bounds.lo;
      let left = limit;
      while (left > 0) {
        const n = Math.min(SLOT_PAGE, left);
        const rows = slotPage.all(sessionId, from, bounds.hi, lo, hi, n) as Row[];
        for (const r of rows) yield { sessionId, seq: r.seq, streamId: r.stream_id, ts: r.ts, body: r.body };
        if (rows.length < n) return;
        left -= n;
        from = rows[rows.length - 1]!.seq + 1;
      }
    },
    async deleteStreams(sessionId, streamIds) {
      if (streamIds.length === 0) return 0;
      const marks = streamIds.map(() => '?').join(',');
      const deleted = db.transaction(() => {
        db.prepare(`delete from stream_stats where session_id = ? and stream_id in (${marks})`).run(
          sessionId,
          ...streamIds,
        );
        return db
          .prepare(`delete from stream_events where session_id = ? and stream_id in (${marks})`)
          .run(sessionId, ...streamIds).changes;
      })();
      // secure_delete zeroes the freed space in the new page versions; the old versions sit in the
      // WAL until a checkpoint. Truncating it leaves the deleted bytes nowhere on disk.
      db.pragma('wal_checkpoint(TRUNCATE)');
      return deleted;
    },
    async deleteSession(sessionId) {
      return db.transaction(() => {
        db.prepare('delete from stream_stats where session_id = ?').run(sessionId);
        return db.prepare('delete from stream_events where session_id = ?').run(sessionId).changes;
      })();
    },
    async replaceBody(sessionId, seq, body) {
      db.transaction(() => {
        const old = bySeq.get(sessionId, seq) as Row | undefined;
        if (!old) return;
        db.prepare('update stream_events set body = ? where session_id = ? and seq = ?').run(
          body,
          sessionId,
          seq,
        );
        db.prepare('update stream_stats set bytes = bytes + ? where session_id = ? and stream_id = ?').run(
          body.length - old.body.length,
          sessionId,
          old.stream_id,
        );
      })();
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    async close() {
      db.close();
    },
  };
}
