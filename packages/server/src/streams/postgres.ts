import { rmSync } from 'node:fs';
import type pg from 'pg';
import { sessionDir, sessionPrefix } from './segment-files.js';
import { rewriteZeroed, sealRows } from './pg-segments.js';
import { SegmentReader, type SealedSegments } from './segments.js';
import {
  nextPageRows,
  READ_FIRST_PAGE_ROWS,
  statsOf,
  type ReadRange,
  type StreamEvent,
  type StreamStat,
  type StreamStore,
} from './store.js';

/** seqs per statement of a playback window: a page of media bodies is about a megabyte */
const SLOT_PAGE = 64;
/** rows per INSERT statement (5 parameters each, well under PostgreSQL's 65535) */
const ROWS_PER_STATEMENT = 1000;
type Row = {
  seq: string | number;
  stream_id: string;
  ts: string | number;
  body: Buffer | null;
  segment: number | null;
  off: string | null;
  len: number | null;
  crc: string | null;
};
const COLUMNS = 'seq, stream_id, ts, body, segment, off, len, crc';

/**
 * Recorded streams in a PostgreSQL table beside the metadata. Batches are multi-row INSERTs in one
 * transaction, with the per-stream statistics upserted in it: PostgreSQL is where every process
 * can read what any of them acknowledged, so a recording being made stays in rows there. With
 * object storage configured, a session's rows are sealed once it ends: their bodies are packed
 * into segment objects in the bucket and the rows keep only where each body is (segment, offset,
 * length, CRC-32), so the database holds the index, not the media, and any process reads any
 * recording. The schema is created by the metadata migrations (002-live, 003-recordings,
 * 008-segments).
 */
export function postgresStreamStore(pool: pg.Pool, segments: SealedSegments | null = null): StreamStore {
  const one = async <T>(text: string, values: unknown[]): Promise<T | undefined> =>
    (await pool.query(text, values)).rows[0] as T | undefined;
  const reader = segments ? new SegmentReader(segments.cacheDir, segments.objects) : null;
  /** The events of rows of one session: bodies from the rows, or read from their segments. */
  const events = async (sessionId: string, rows: Row[]): Promise<StreamEvent[]> => {
    const sealed = rows.filter((r) => r.body === null);
    if (sealed.length && !reader)
      throw new Error(
        `session ${sessionId} was sealed into object storage, which is not configured (S3_BUCKET): its media cannot be read`,
      );
    const bodies = sealed.length
      ? await reader!.bodies(
          sessionId,
          sealed.map((r) => ({
            seq: Number(r.seq),
            segment: r.segment!,
            off: Number(r.off),
            len: r.len!,
            crc: Number(r.crc),
          })),
        )
      : [];
    let k = 0;
    return rows.map((r) => ({
      sessionId,
      seq: Number(r.seq),
      streamId: r.stream_id,
      ts: Number(r.ts),
      body: r.body ?? bodies[k++]!,
    }));
  };
  return {
    files: [],
    async appendBatch(events) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        for (let i = 0; i < events.length; i += ROWS_PER_STATEMENT) {
          const chunk = events.slice(i, i + ROWS_PER_STATEMENT);
          const values: unknown[] = [];
          const rows = chunk.map((e, j) => {
            values.push(e.sessionId, e.seq, e.streamId, e.ts, e.body);
            const b = j * 5;
            return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5})`;
          });
          await client.query(
            `insert into stream_events (session_id, seq, stream_id, ts, body) values ${rows.join(',')}`,
            values,
          );
        }
        for (const s of statsOf(events).values()) {
          await client.query(
            `insert into stream_stats (session_id, stream_id, events, bytes, min_ts, max_ts) values ($1, $2, $3, $4, $5, $6)
             on conflict (session_id, stream_id) do update set
               events = stream_stats.events + excluded.events, bytes = stream_stats.bytes + excluded.bytes,
               min_ts = least(stream_stats.min_ts, excluded.min_ts), max_ts = greatest(stream_stats.max_ts, excluded.max_ts)`,
            [s.sessionId, s.streamId, s.events, s.bytes, s.minTs, s.maxTs],
          );
        }
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async seal(sessionId) {
      if (segments) await sealRows(pool, segments, sessionId);
    },
    async maxSeq(sessionId) {
      return Number(
        (await one<{ m: string }>(
          'select coalesce(max(seq), 0) as m from stream_events where session_id = $1',
          [sessionId],
        ))!.m,
      );
    },
    async *read(sessionId, range: ReadRange) {
      let from = range.fromSeq ?? 0;
      let left = range.limit ?? Infinity;
      for (let page = READ_FIRST_PAGE_ROWS; ;) {
        const params: unknown[] = [sessionId, from];
        let where = 'session_id = $1 and seq >= $2';
        if (range.fromTs !== undefined) where += ` and ts >= $${params.push(range.fromTs)}`;
        if (range.toTs !== undefined) where += ` and ts < $${params.push(range.toTs)}`;
        if (range.toSeq !== undefined) where += ` and seq < $${params.push(range.toSeq)}`;
        if (range.streamId !== undefined) where += ` and stream_id = $${params.push(range.streamId)}`;
        if (range.streamIds !== undefined) where += ` and stream_id = any($${params.push(range.streamIds)})`;
        const rows = (
          await pool.query(
            `select ${COLUMNS} from stream_events where ${where} order by seq limit ${page}`,
            params,
          )
        ).rows as Row[];
        if (rows.length === 0) return;
        from = Number(rows[rows.length - 1]!.seq) + 1;
        const wanted = range.streams ? rows.filter((r) => range.streams!(r.stream_id)) : rows;
        for (const e of await events(sessionId, wanted.length > left ? wanted.slice(0, left) : wanted)) {
          yield e;
          if (--left <= 0) return;
        }
        if (rows.length < page) return;
        page = nextPageRows(rows.map((r) => ({ len: r.body ? r.body.length : r.len! })));
      }
    },
    async stats(sessionId) {
      const { rows } = await pool.query(
        'select stream_id, events, bytes, min_ts, max_ts from stream_stats where session_id = $1 order by stream_id',
        [sessionId],
      );
      return rows.map((r): StreamStat => ({
        streamId: r.stream_id,
        events: Number(r.events),
        bytes: Number(r.bytes),
        minTs: Number(r.min_ts),
        maxTs: Number(r.max_ts),
      }));
    },
    async firstFrom(sessionId, fromSeq, fromTs) {
      const r = await one<{ seq: string; ts: string }>(
        'select seq, ts from stream_events where session_id = $1 and seq >= $2 and ts >= $3 order by seq limit 1',
        [sessionId, fromSeq, fromTs],
      );
      return r ? { seq: Number(r.seq), ts: Number(r.ts) } : undefined;
    },
    async nextTs(sessionId, ts) {
      const r = await one<{ ts: string }>(
        'select ts from stream_events where session_id = $1 and ts >= $2 order by ts limit 1',
        [sessionId, ts],
      );
      return r ? Number(r.ts) : undefined;
    },
    async *slot(sessionId, lo, hi, fromSeq, limit, fromTs) {
      // Where the answer ends, the window's last seq, from the (session, ts, seq) index: `seq + 0`
      // keeps the planner from answering max by walking the primary key, filtering ts row by row.
      const bounds = await one<{ hi: string | null }>(
        'select max(seq + 0) as hi from stream_events where session_id = $1 and ts >= $2 and ts < $3 and seq >= $4',
        [sessionId, lo, hi, fromSeq],
      );
      if (bounds?.hi == null) return;
      const last = Number(bounds.hi);
      let left = limit;
      // Then the rows of that seq range stamped from fromTs on (whatever window they are stamped in:
      // leaving out those of other windows would return them out of seq order), SLOT_PAGE seqs at a
      // time along the primary key: a short key range is always read through it (a LIMIT over the
      // whole range may be planned as a scan and sort of all of it).
      for (let from = fromSeq; from <= last && left > 0; from += SLOT_PAGE) {
        const rows = (
          await pool.query(
            `select ${COLUMNS} from stream_events where session_id = $1 and seq >= $2 and seq <= $3 and ts >= $4 order by seq limit $5`,
            [sessionId, from, Math.min(from + SLOT_PAGE - 1, last), fromTs, left],
          )
        ).rows as Row[];
        if (rows.length) yield await events(sessionId, rows);
        left -= rows.length;
      }
    },
    async deleteStreams(sessionId, streamIds) {
      if (streamIds.length === 0) return 0;
      // Sealed bodies first: overwritten with zeros in their segments (the bucket's objects and
      // the local copies), before the rows that say where they were go.
      if (segments) {
        const { rows } = await pool.query(
          'select segment, off, len from stream_events where session_id = $1 and stream_id = any($2) and body is null order by segment, off',
          [sessionId, streamIds],
        );
        await rewriteZeroed(
          segments,
          sessionId,
          rows.map((r) => ({ segment: r.segment as number, off: Number(r.off), len: r.len as number })),
        );
        reader!.forget(sessionId);
      }
      await pool.query('delete from stream_stats where session_id = $1 and stream_id = any($2)', [
        sessionId,
        streamIds,
      ]);
      const res = await pool.query(
        'delete from stream_events where session_id = $1 and stream_id = any($2)',
        [sessionId, streamIds],
      );
      // The deleted rows' bytes stay in the table's pages until vacuumed: redaction must remove them.
      await pool.query('vacuum stream_events');
      return res.rowCount ?? 0;
    },
    async deleteSession(sessionId) {
      await pool.query('delete from stream_stats where session_id = $1', [sessionId]);
      const res = await pool.query('delete from stream_events where session_id = $1', [sessionId]);
      if (segments) {
        reader!.forget(sessionId);
        await segments.objects.deletePrefix(sessionPrefix(sessionId));
        rmSync(sessionDir(segments.cacheDir, sessionId), { recursive: true, force: true });
      }
      return res.rowCount ?? 0;
    },
    async replaceBody(sessionId, seq, body) {
      const old = await one<{ segment: number | null; off: string | null; len: number | null }>(
        'select segment, off, len from stream_events where session_id = $1 and seq = $2 and body is null',
        [sessionId, seq],
      );
      await pool.query(
        `with old as (select stream_id, coalesce(length(body), len) as n from stream_events where session_id = $1 and seq = $2)
         update stream_stats s set bytes = s.bytes + $3 - old.n from old where s.session_id = $1 and s.stream_id = old.stream_id`,
        [sessionId, seq, body.length],
      );
      // A sealed body goes back into its row (the recording's tail, as before sealing), and its old
      // bytes are overwritten with zeros in the segment.
      await pool.query(
        'update stream_events set body = $3, segment = null, off = null, len = null, crc = null where session_id = $1 and seq = $2',
        [sessionId, seq, body],
      );
      if (segments && old?.segment != null) {
        await rewriteZeroed(segments, sessionId, [
          { segment: old.segment, off: Number(old.off), len: old.len! },
        ]);
        reader!.forget(sessionId);
      }
    },
    async close() {
      reader?.close();
      await pool.end();
    },
  };
}
