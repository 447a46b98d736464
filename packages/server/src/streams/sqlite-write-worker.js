// The worker thread that owns the write connection of streams.sqlite (see sqlite-write-thread.ts).
// Plain JavaScript on purpose: the same file runs from src (vitest, tsx) and from dist (tsc copies
// it), without a TypeScript loader in the worker.
import { Buffer } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

/** @typedef {import('./sqlite-write-thread.js').WriteRequest} WriteRequest */

const db = new SQLite(/** @type {{ path: string }} */ (workerData).path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
// Redacted media must be gone from the file, not just unlinked from the b-tree.
db.pragma('secure_delete = ON');

const insert = db.prepare(
  'insert into stream_events (session_id, seq, stream_id, ts, body) values (?, ?, ?, ?, ?)',
);
const upsertStat = db.prepare(`
  insert into stream_stats (session_id, stream_id, events, bytes, min_ts, max_ts) values (?, ?, ?, ?, ?, ?)
  on conflict (session_id, stream_id) do update set
    events = events + excluded.events, bytes = bytes + excluded.bytes,
    min_ts = min(min_ts, excluded.min_ts), max_ts = max(max_ts, excluded.max_ts)`);
const bySeq = db.prepare(
  'select stream_id, length(body) as n from stream_events where session_id = ? and seq = ?',
);
const setBody = db.prepare('update stream_events set body = ? where session_id = ? and seq = ?');
const addBytes = db.prepare(
  'update stream_stats set bytes = bytes + ? where session_id = ? and stream_id = ?',
);
const dropSessionStats = db.prepare('delete from stream_stats where session_id = ?');
const dropSessionEvents = db.prepare('delete from stream_events where session_id = ?');

/** @param {Extract<WriteRequest, { op: 'append' }>} r */
const append = db.transaction((r) => {
  const bodies = Buffer.from(r.bodies);
  let off = 0;
  for (let i = 0; i < r.streams.length; i++) {
    const len = r.nums[i * 3 + 2];
    insert.run(
      r.sessions[i],
      r.nums[i * 3],
      r.streams[i],
      r.nums[i * 3 + 1],
      bodies.subarray(off, off + len),
    );
    off += len;
  }
  for (const s of r.stats) upsertStat.run(...s);
});

/** @param {string} sessionId @param {string[]} streamIds */
const deleteStreams = db.transaction((sessionId, streamIds) => {
  const marks = streamIds.map(() => '?').join(',');
  db.prepare(`delete from stream_stats where session_id = ? and stream_id in (${marks})`).run(
    sessionId,
    ...streamIds,
  );
  return db
    .prepare(`delete from stream_events where session_id = ? and stream_id in (${marks})`)
    .run(sessionId, ...streamIds).changes;
});

/** @param {string} sessionId */
const deleteSession = db.transaction((sessionId) => {
  dropSessionStats.run(sessionId);
  return dropSessionEvents.run(sessionId).changes;
});

/** @param {string} sessionId @param {number} seq @param {Buffer} body */
const replaceBody = db.transaction((sessionId, seq, body) => {
  const old = /** @type {{ stream_id: string; n: number } | undefined} */ (bySeq.get(sessionId, seq));
  if (!old) return;
  setBody.run(body, sessionId, seq);
  addBytes.run(body.length - old.n, sessionId, old.stream_id);
});

// secure_delete zeroes the freed space in the new page versions; the old versions sit in the WAL
// until a checkpoint. Truncating it leaves deleted bytes nowhere on disk.
const truncateWal = () => db.pragma('wal_checkpoint(TRUNCATE)');

/** @param {WriteRequest} r @returns {unknown} */
function run(r) {
  switch (r.op) {
    case 'append':
      return append(r);
    case 'deleteStreams': {
      const n = deleteStreams(r.sessionId, r.streamIds);
      truncateWal();
      return n;
    }
    case 'deleteSession':
      return deleteSession(r.sessionId);
    case 'replaceBody':
      replaceBody(r.sessionId, r.seq, Buffer.from(r.body));
      truncateWal();
      return undefined;
    case 'close':
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
