import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import type { ReadRange, StreamEvent, StreamStore } from './store.js';

const PAGE = 256;

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
    create index if not exists stream_events_ts on stream_events (session_id, ts);
  `);
  const insert = db.prepare(
    'insert into stream_events (session_id, seq, stream_id, ts, body) values (?, ?, ?, ?, ?)',
  );
  const insertMany = db.transaction((events: StreamEvent[]) => {
    for (const e of events) insert.run(e.sessionId, e.seq, e.streamId, e.ts, e.body);
  });
  const maxSeq = db.prepare('select coalesce(max(seq), 0) as m from stream_events where session_id = ?');

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
      const args: unknown[] = [sessionId];
      if (range.fromTs !== undefined) where.push('ts >= ?');
      if (range.toTs !== undefined) where.push('ts < ?');
      const stmt = db.prepare(
        `select seq, stream_id, ts, body from stream_events where ${where.join(' and ')} order by seq limit ?`,
      );
      for (;;) {
        const params = [...args, from];
        if (range.fromTs !== undefined) params.push(range.fromTs);
        if (range.toTs !== undefined) params.push(range.toTs);
        const rows = stmt.all(...params, PAGE) as Array<{
          seq: number;
          stream_id: string;
          ts: number;
          body: Buffer;
        }>;
        for (const r of rows) {
          from = r.seq + 1;
          if (range.streams && !range.streams(r.stream_id)) continue;
          yield { sessionId, seq: r.seq, streamId: r.stream_id, ts: r.ts, body: r.body };
          if (--left <= 0) return;
        }
        if (rows.length < PAGE) return;
      }
    },
    async deleteStreams(sessionId, streamIds) {
      if (streamIds.length === 0) return 0;
      const res = db
        .prepare(
          `delete from stream_events where session_id = ? and stream_id in (${streamIds.map(() => '?').join(',')})`,
        )
        .run(sessionId, ...streamIds);
      return res.changes;
    },
    async deleteSession(sessionId) {
      return db.prepare('delete from stream_events where session_id = ?').run(sessionId).changes;
    },
    async close() {
      db.close();
    },
  };
}
