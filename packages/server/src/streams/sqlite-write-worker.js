// The worker thread that writes the embedded stream store (see sqlite-write-thread.ts): event
// bodies appended to segment files, and their index rows in streams.sqlite. Plain JavaScript on
// purpose: the same file runs from src (vitest, tsx) and from dist (tsc copies it), without a
// TypeScript loader in the worker.
import { Buffer } from 'node:buffer';
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import SQLite from 'better-sqlite3';
import { SEGMENT_MAX_AGE_MS, SEGMENT_MAX_BYTES, segmentPath, sessionDir } from './segment-files.js';

/** @typedef {import('./sqlite-write-thread.js').WriteRequest} WriteRequest */

const { path, segments: root } = /** @type {{ path: string; segments: string }} */ (workerData);
const db = new SQLite(path);
db.pragma('journal_mode = WAL');
// FULL: the WAL is synced at every commit, so an acknowledged batch survives a power loss too, not
// only a crash of the process. The rows are small (the bodies are in the segments), so the sync is.
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
// Redacted rows must be gone from the file, not just unlinked from the b-tree.
db.pragma('secure_delete = ON');

const insert = db.prepare(
  'insert into stream_index (session_id, seq, stream_id, ts, segment, off, len, crc) values (?, ?, ?, ?, ?, ?, ?, ?)',
);
const upsertStat = db.prepare(`
  insert into stream_stats (session_id, stream_id, events, bytes, min_ts, max_ts) values (?, ?, ?, ?, ?, ?)
  on conflict (session_id, stream_id) do update set
    events = events + excluded.events, bytes = bytes + excluded.bytes,
    min_ts = min(min_ts, excluded.min_ts), max_ts = max(max_ts, excluded.max_ts)`);
const nextSegment = db.prepare(
  'select coalesce(max(segment), -1) + 1 as n from stream_segments where session_id = ?',
);
const addSegment = db.prepare(
  'insert into stream_segments (session_id, segment, bytes, sealed, stored) values (?, ?, 0, 0, 0)',
);
const setSegmentBytes = db.prepare(
  'update stream_segments set bytes = ? where session_id = ? and segment = ?',
);
const sealSegment = db.prepare('update stream_segments set sealed = 1 where session_id = ? and segment = ?');
const markChanged = db.prepare(
  'update stream_segments set stored = 0, changes = changes + 1 where session_id = ? and segment = ?',
);
// Stored as it is only if it has not changed since the upload read it (a redaction meanwhile).
const markStored = db.prepare(
  'update stream_segments set stored = 1 where session_id = ? and segment = ? and changes = ?',
);
const bySeq = db.prepare(
  'select stream_id, segment, off, len from stream_index where session_id = ? and seq = ?',
);
const setBody = db.prepare(
  'update stream_index set segment = ?, off = ?, len = ?, crc = ? where session_id = ? and seq = ?',
);
const addBytes = db.prepare(
  'update stream_stats set bytes = bytes + ? where session_id = ? and stream_id = ?',
);
const dropSessionStats = db.prepare('delete from stream_stats where session_id = ?');
const dropSessionIndex = db.prepare('delete from stream_index where session_id = ?');
const dropSessionSegments = db.prepare('delete from stream_segments where session_id = ?');

/**
 * The segment each session appends to in this thread, open for writing. A thread never appends to
 * a segment an earlier one left: every session starts a new segment here, so a tail torn by a crash
 * is never written after (the store truncates such tails when it opens).
 * @type {Map<string, { segment: number; fd: number; size: number; opened: number }>}
 */
const open = new Map();

/** Syncs a folder, so that a file just created in it survives a power loss. */
function syncDir(/** @type {string} */ dir) {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The session's open segment, starting a new one when it has none or the current one is full or old. */
function segmentFor(/** @type {string} */ sessionId) {
  const cur = open.get(sessionId);
  if (cur && cur.size < SEGMENT_MAX_BYTES && Date.now() - cur.opened < SEGMENT_MAX_AGE_MS) return cur;
  if (cur) seal(sessionId);
  const n = /** @type {{ n: number }} */ (nextSegment.get(sessionId)).n;
  // The segment is known to the index before any byte of it is written: a crash between the two
  // leaves a row whose file is absent or empty, which opening the store cleans up, never a file
  // that nothing points at.
  addSegment.run(sessionId, n);
  const dir = sessionDir(root, sessionId);
  mkdirSync(dir, { recursive: true });
  const fd = openSync(segmentPath(root, sessionId, n), 'wx');
  syncDir(dir);
  syncDir(root);
  const seg = { segment: n, fd, size: 0, opened: Date.now() };
  open.set(sessionId, seg);
  return seg;
}

/** Closes a session's open segment and marks it sealed: nothing is appended to it again. */
function seal(/** @type {string} */ sessionId) {
  const cur = open.get(sessionId);
  if (!cur) return undefined;
  open.delete(sessionId);
  closeSync(cur.fd);
  sealSegment.run(sessionId, cur.segment);
  return cur.segment;
}

/** Writes all of buf at the end of a segment. */
function writeAll(/** @type {number} */ fd, /** @type {Buffer} */ buf, /** @type {number} */ at) {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, at + done);
}

const commitAppend = db.transaction(
  /**
   * @param {Extract<WriteRequest, { op: 'append' }>} r
   * @param {Buffer} bodies
   * @param {Int32Array} segments the segment of each event
   * @param {Float64Array} offsets where each event's body starts in its segment
   * @param {Array<{ sessionId: string; segment: number; size: number }>} placed
   */
  (r, bodies, segments, offsets, placed) => {
    let off = 0;
    for (let i = 0; i < r.streams.length; i++) {
      const len = /** @type {number} */ (r.nums[i * 3 + 2]);
      const body = bodies.subarray(off, off + len);
      insert.run(
        r.sessions[i],
        r.nums[i * 3],
        r.streams[i],
        r.nums[i * 3 + 1],
        segments[i],
        offsets[i],
        len,
        crc32(body),
      );
      off += len;
    }
    for (const s of r.stats) upsertStat.run(...s);
    for (const p of placed) setSegmentBytes.run(p.size, p.sessionId, p.segment);
  },
);

/**
 * Appends a batch: each session's bodies (contiguous in the buffer, see sqlite-write-thread.ts)
 * go to the end of its open segment in one write, every segment written is synced, and only then
 * do the index rows pointing at those bytes commit, in one transaction. A batch whose rows fail
 * (a seq taken twice) takes its bytes back off the segments, so nothing unreferenced stays behind.
 * @param {Extract<WriteRequest, { op: 'append' }>} r
 */
function append(r) {
  const bodies = Buffer.from(r.bodies);
  const n = r.streams.length;
  const segments = new Int32Array(n);
  const offsets = new Float64Array(n);
  /** @type {Array<{ sessionId: string; segment: number; size: number; was: number; fd: number }>} */
  const placed = [];
  let off = 0;
  for (let i = 0; i < n;) {
    // A run: the events of one session, one after another in the batch and in the buffer.
    const sessionId = /** @type {string} */ (r.sessions[i]);
    const seg = segmentFor(sessionId);
    const was = seg.size;
    const start = off;
    for (; i < n && r.sessions[i] === sessionId; i++) {
      segments[i] = seg.segment;
      offsets[i] = was + off - start;
      off += /** @type {number} */ (r.nums[i * 3 + 2]);
    }
    writeAll(seg.fd, bodies.subarray(start, off), was);
    seg.size = was + off - start;
    placed.push({ sessionId, segment: seg.segment, size: seg.size, was, fd: seg.fd });
  }
  for (const p of placed) fdatasyncSync(p.fd);
  try {
    commitAppend(r, bodies, segments, offsets, placed);
  } catch (err) {
    for (const p of placed) {
      const seg = open.get(p.sessionId);
      if (seg && seg.segment === p.segment) {
        ftruncateSync(seg.fd, p.was);
        seg.size = p.was;
      }
    }
    throw err;
  }
}

/** Overwrites byte ranges of segments with zeros and syncs them; returns the segments touched. */
function zeroRanges(
  /** @type {string} */ sessionId,
  /** @type {Array<{ segment: number; off: number; len: number }>} */ ranges,
) {
  /** @type {Set<number>} */
  const touched = new Set();
  /** @type {Map<number, number>} */
  const fds = new Map();
  try {
    for (const r of ranges) {
      if (r.len === 0) continue;
      let fd = fds.get(r.segment);
      if (fd === undefined) {
        const cur = open.get(sessionId);
        if (cur && cur.segment === r.segment) fd = cur.fd;
        else {
          try {
            fd = openSync(segmentPath(root, sessionId, r.segment), 'r+');
          } catch (err) {
            // A segment that is only in object storage: the caller rewrites it there.
            if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') {
              touched.add(r.segment);
              continue;
            }
            throw err;
          }
        }
        fds.set(r.segment, fd);
      }
      writeAll(fd, Buffer.alloc(r.len), r.off);
      touched.add(r.segment);
    }
    for (const fd of fds.values()) fdatasyncSync(fd);
    // A copy in object storage still holds the old bytes: the segment is to be stored again.
    for (const segment of touched) markChanged.run(sessionId, segment);
  } finally {
    for (const [segment, fd] of fds) if (open.get(sessionId)?.segment !== segment) closeSync(fd);
  }
  return [...touched];
}

/**
 * Deletes the named streams of a session: their bytes are overwritten with zeros in the segments
 * (and synced) before their index rows go, so a redacted participant's media is left nowhere on
 * this disk. Returns how many events went and which segments changed (to be stored again where a
 * copy sits in object storage).
 * @param {string} sessionId @param {string[]} streamIds
 */
function deleteStreams(sessionId, streamIds) {
  const marks = streamIds.map(() => '?').join(',');
  const ranges = /** @type {Array<{ segment: number; off: number; len: number }>} */ (
    db
      .prepare(
        `select segment, off, len from stream_index where session_id = ? and stream_id in (${marks}) order by segment, off`,
      )
      .all(sessionId, ...streamIds)
  );
  const segments = zeroRanges(sessionId, ranges);
  const events = db.transaction(() => {
    db.prepare(`delete from stream_stats where session_id = ? and stream_id in (${marks})`).run(
      sessionId,
      ...streamIds,
    );
    return db
      .prepare(`delete from stream_index where session_id = ? and stream_id in (${marks})`)
      .run(sessionId, ...streamIds).changes;
  })();
  return { events, segments };
}

/** Deletes a session's whole recording: its rows and its segment files. */
function deleteSession(/** @type {string} */ sessionId) {
  const cur = open.get(sessionId);
  if (cur) {
    open.delete(sessionId);
    closeSync(cur.fd);
  }
  const events = db.transaction(() => {
    dropSessionStats.run(sessionId);
    dropSessionSegments.run(sessionId);
    return dropSessionIndex.run(sessionId).changes;
  })();
  rmSync(sessionDir(root, sessionId), { recursive: true, force: true });
  return events;
}

/**
 * Replaces one event's body (a redacted chat message): the new body is appended to the session's
 * segment, the old bytes are overwritten with zeros, and the row points at the new ones. Returns
 * the segments that changed.
 * @param {string} sessionId @param {number} seq @param {Buffer} body
 */
function replaceBody(sessionId, seq, body) {
  const old = /** @type {{ stream_id: string; segment: number; off: number; len: number } | undefined} */ (
    bySeq.get(sessionId, seq)
  );
  if (!old) return [];
  const seg = segmentFor(sessionId);
  const at = seg.size;
  writeAll(seg.fd, body, at);
  fdatasyncSync(seg.fd);
  seg.size += body.length;
  db.transaction(() => {
    setBody.run(seg.segment, at, body.length, crc32(body), sessionId, seq);
    addBytes.run(body.length - old.len, sessionId, old.stream_id);
    setSegmentBytes.run(seg.size, sessionId, seg.segment);
  })();
  const touched = zeroRanges(sessionId, [old]);
  return [...new Set([seg.segment, ...touched])];
}

// secure_delete zeroes the freed space in the new page versions; the old versions sit in the WAL
// until a checkpoint. Truncating it leaves deleted rows nowhere on disk.
const truncateWal = () => db.pragma('wal_checkpoint(TRUNCATE)');

/** @param {WriteRequest} r @returns {unknown} */
function run(r) {
  switch (r.op) {
    case 'append':
      return append(r);
    case 'seal': {
      const n = seal(r.sessionId);
      return n === undefined ? [] : [n];
    }
    case 'stored':
      markStored.run(r.sessionId, r.segment, r.changes);
      return undefined;
    case 'deleteStreams': {
      const out = deleteStreams(r.sessionId, r.streamIds);
      truncateWal();
      return out;
    }
    case 'deleteSession':
      return deleteSession(r.sessionId);
    case 'replaceBody': {
      const out = replaceBody(r.sessionId, r.seq, Buffer.from(r.body));
      truncateWal();
      return out;
    }
    case 'close':
      for (const sessionId of [...open.keys()]) seal(sessionId);
      db.close();
      return undefined;
  }
}

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
port.on('message', (/** @type {WriteRequest} */ r) => {
  try {
    const value = run(r);
    // An append's body buffer goes back to be filled again (see `spare` in sqlite-write-thread.ts).
    if (r.op === 'append') port.postMessage({ id: r.id, ok: true, value, give: r.bodies }, [r.bodies]);
    else port.postMessage({ id: r.id, ok: true, value });
  } catch (err) {
    const e = /** @type {Error & { code?: string }} */ (err);
    port.postMessage({ id: r.id, ok: false, message: String(e?.message ?? e), code: e?.code });
  }
});
