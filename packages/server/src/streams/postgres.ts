import type pg from 'pg';
import type { ReadRange, StreamStore } from './store.js';

const PAGE = 256;
/** rows per INSERT statement (5 parameters each, well under PostgreSQL's 65535) */
const ROWS_PER_STATEMENT = 1000;

/**
 * Recorded streams in a PostgreSQL table beside the metadata. Batches are multi-row INSERTs in one
 * transaction. The schema is created by the metadata migrations (002-live).
 */
export function postgresStreamStore(pool: pg.Pool): StreamStore {
  return {
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
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async maxSeq(sessionId) {
      const { rows } = await pool.query(
        'select coalesce(max(seq), 0) as m from stream_events where session_id = $1',
        [sessionId],
      );
      return Number(rows[0].m);
    },
    async *read(sessionId, range: ReadRange) {
      let from = range.fromSeq ?? 0;
      let left = range.limit ?? Infinity;
      for (;;) {
        const params: unknown[] = [sessionId, from];
        let where = 'session_id = $1 and seq >= $2';
        if (range.fromTs !== undefined) where += ` and ts >= $${params.push(range.fromTs)}`;
        if (range.toTs !== undefined) where += ` and ts < $${params.push(range.toTs)}`;
        const { rows } = await pool.query(
          `select seq, stream_id, ts, body from stream_events where ${where} order by seq limit ${PAGE}`,
          params,
        );
        for (const r of rows as Array<{
          seq: string | number;
          stream_id: string;
          ts: string | number;
          body: Buffer;
        }>) {
          const seq = Number(r.seq);
          from = seq + 1;
          if (range.streams && !range.streams(r.stream_id)) continue;
          yield { sessionId, seq, streamId: r.stream_id, ts: Number(r.ts), body: r.body };
          if (--left <= 0) return;
        }
        if (rows.length < PAGE) return;
      }
    },
    async deleteStreams(sessionId, streamIds) {
      if (streamIds.length === 0) return 0;
      const res = await pool.query(
        'delete from stream_events where session_id = $1 and stream_id = any($2)',
        [sessionId, streamIds],
      );
      return res.rowCount ?? 0;
    },
    async deleteSession(sessionId) {
      const res = await pool.query('delete from stream_events where session_id = $1', [sessionId]);
      return res.rowCount ?? 0;
    },
    async close() {
      await pool.end();
    },
  };
}
