import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { crc32 } from 'node:zlib';
import type SQLite from 'better-sqlite3';
import { segmentPath, sessionDir } from './segment-files.js';

/**
 * Makes the segments the last run left open whole again, before anything is written: each is cut
 * back to the bytes its committed index rows cover (a crash between a segment's write and its
 * commit leaves a torn tail that no row points at, and no acknowledgement was sent for it), and
 * sealed, since a new run starts new segments. A segment with no committed bytes is removed.
 */
export function recoverTails(db: SQLite.Database, root: string): void {
  const open = db
    .prepare('select session_id, segment, bytes from stream_segments where sealed = 0')
    .all() as Array<{ session_id: string; segment: number; bytes: number }>;
  const seal = db.prepare('update stream_segments set sealed = 1 where session_id = ? and segment = ?');
  const drop = db.prepare('delete from stream_segments where session_id = ? and segment = ?');
  for (const s of open) {
    const path = segmentPath(root, s.session_id, s.segment);
    let size: number | null = null;
    try {
      size = statSync(path).size;
    } catch {
      size = null;
    }
    if (s.bytes === 0) {
      rmSync(path, { force: true });
      drop.run(s.session_id, s.segment);
      continue;
    }
    if (size !== null && size > s.bytes) truncateSync(path, s.bytes);
    seal.run(s.session_id, s.segment);
  }
}

/**
 * Moves recordings made before segment files (event bodies in rows of `stream_events`) into
 * segments, one session at a time: its bodies are written to a new segment and synced, then its
 * index rows are inserted and its old rows deleted in one transaction. Interrupted, it leaves each
 * session either moved or not; the segment of one that was not is cut away by recoverTails and
 * the move starts over at the next start. The old table goes once it is empty, and the file is
 * vacuumed, so that the space (and the bytes) of the moved bodies go with it.
 */
export function migrateRowBodies(db: SQLite.Database, root: string): void {
  const legacy = db
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'stream_events'")
    .get();
  if (!legacy) return;
  // A move cut short last time: its segment's bytes are not committed; start it again.
  recoverTails(db, root);
  const sessions = db.prepare('select distinct session_id from stream_events').pluck().all() as string[];
  const next = db.prepare(
    'select coalesce(max(segment), -1) + 1 as n from stream_segments where session_id = ?',
  );
  const addSegment = db.prepare(
    'insert into stream_segments (session_id, segment, bytes, sealed, stored) values (?, ?, 0, 0, 0)',
  );
  const rows = db.prepare(
    'select seq, stream_id, ts, body from stream_events where session_id = ? and seq > ? order by seq limit 512',
  );
  const insert = db.prepare(
    'insert into stream_index (session_id, seq, stream_id, ts, segment, off, len, crc) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const finish = db.prepare(
    'update stream_segments set bytes = ?, sealed = 1 where session_id = ? and segment = ?',
  );
  const dropOld = db.prepare('delete from stream_events where session_id = ?');
  for (const sessionId of sessions) {
    const segment = (next.get(sessionId) as { n: number }).n;
    addSegment.run(sessionId, segment);
    mkdirSync(sessionDir(root, sessionId), { recursive: true });
    const fd = openSync(segmentPath(root, sessionId, segment), 'w');
    const index: Array<[number, string, number, number, number, number]> = [];
    let size = 0;
    try {
      for (let after = -1; ;) {
        const page = rows.all(sessionId, after) as Array<{
          seq: number;
          stream_id: string;
          ts: number;
          body: Buffer;
        }>;
        if (page.length === 0) break;
        for (const r of page) {
          let done = 0;
          while (done < r.body.length) done += writeSync(fd, r.body, done, r.body.length - done, size + done);
          index.push([r.seq, r.stream_id, r.ts, size, r.body.length, crc32(r.body)]);
          size += r.body.length;
          after = r.seq;
        }
      }
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    db.transaction(() => {
      for (const [seq, stream, ts, off, len, crc] of index)
        insert.run(sessionId, seq, stream, ts, segment, off, len, crc);
      finish.run(size, sessionId, segment);
      dropOld.run(sessionId);
    })();
  }
  db.exec('drop table stream_events');
  // The bodies' old pages would stay in the file as free space (and readable bytes): give the
  // space back and leave the moved media only in the segments.
  db.exec('vacuum');
  db.pragma('wal_checkpoint(TRUNCATE)');
}
