import { closeSync, fdatasyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type pg from 'pg';
import { SEGMENT_MAX_BYTES, segmentKey, segmentPath, sessionDir } from './segment-files.js';
import type { SealedSegments } from './segments.js';

/** rows read at a time while sealing (a page of camera frames is a few MiB) */
const SEAL_PAGE = 128;

/** A segment being packed: its file, and where each body went in it. */
interface Packing {
  segment: number;
  path: string;
  fd: number;
  size: number;
  seqs: number[];
  offs: number[];
  lens: number[];
  crcs: number[];
}

function writeAll(fd: number, buf: Buffer, at: number): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, at + done);
}

/**
 * Seals a session's recording on PostgreSQL: the bodies still in its rows are packed, in seq
 * order, into segment files of at most SEGMENT_MAX_BYTES (written under DATA_DIR/segments, where
 * they stay as a read cache), each uploaded to object storage; then, in the same transaction that
 * read them, the rows let go of their bodies and keep where each one is. One process seals a
 * session at a time (an advisory lock). A sealing cut short commits nothing: the rows keep their
 * bodies, and the next attempt numbers its segments the same way and overwrites what the cut one
 * uploaded.
 */
export async function sealRows(pool: pg.Pool, segments: SealedSegments, sessionId: string): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`vss seal ${sessionId}`]);
    let next = Number(
      (
        await client.query(
          'select coalesce(max(segment), -1) + 1 as n from stream_events where session_id = $1',
          [sessionId],
        )
      ).rows[0].n,
    );
    mkdirSync(sessionDir(segments.cacheDir, sessionId), { recursive: true });
    let cur: Packing | null = null;
    let sealed = 0;
    const finish = async (p: Packing) => {
      fdatasyncSync(p.fd);
      closeSync(p.fd);
      await segments.objects.putFile(segmentKey(sessionId, p.segment), p.path);
      await client.query(
        `update stream_events e set body = null, segment = $2, off = v.off, len = v.len, crc = v.crc
         from unnest($3::bigint[], $4::bigint[], $5::int[], $6::bigint[]) as v(seq, off, len, crc)
         where e.session_id = $1 and e.seq = v.seq`,
        [sessionId, p.segment, p.seqs, p.offs, p.lens, p.crcs],
      );
      sealed += p.seqs.length;
    };
    try {
      for (let after = -1; ;) {
        const { rows } = await client.query(
          'select seq, body from stream_events where session_id = $1 and seq > $2 and body is not null order by seq limit $3',
          [sessionId, after, SEAL_PAGE],
        );
        for (const r of rows as Array<{ seq: string; body: Buffer }>) {
          if (cur && cur.size > 0 && cur.size + r.body.length > SEGMENT_MAX_BYTES) {
            await finish(cur);
            cur = null;
          }
          if (!cur) {
            const path = segmentPath(segments.cacheDir, sessionId, next);
            cur = {
              segment: next++,
              path,
              fd: openSync(path, 'w'),
              size: 0,
              seqs: [],
              offs: [],
              lens: [],
              crcs: [],
            };
          }
          writeAll(cur.fd, r.body, cur.size);
          cur.seqs.push(Number(r.seq));
          cur.offs.push(cur.size);
          cur.lens.push(r.body.length);
          cur.crcs.push(crc32(r.body));
          cur.size += r.body.length;
          after = Number(r.seq);
        }
        if (rows.length < SEAL_PAGE) break;
      }
      if (cur) {
        const last: Packing = cur;
        cur = null;
        await finish(last);
      }
    } finally {
      if (cur) closeSync(cur.fd);
    }
    await client.query('commit');
    return sealed;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Overwrites byte ranges of a session's sealed segments with zeros, in the local copy and in
 * object storage (objects cannot be changed in place: the zeroed copy replaces the object). A
 * segment this node has no copy of is fetched whole first.
 */
export async function rewriteZeroed(
  segments: SealedSegments,
  sessionId: string,
  ranges: Array<{ segment: number; off: number; len: number }>,
): Promise<void> {
  const bySegment = new Map<number, Array<{ off: number; len: number }>>();
  for (const r of ranges) bySegment.set(r.segment, [...(bySegment.get(r.segment) ?? []), r]);
  for (const [segment, list] of bySegment) {
    const key = segmentKey(sessionId, segment);
    const path = segmentPath(segments.cacheDir, sessionId, segment);
    mkdirSync(sessionDir(segments.cacheDir, sessionId), { recursive: true });
    let fd: number;
    try {
      fd = openSync(path, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const size = await segments.objects.size(key);
      if (size === undefined) continue;
      fd = openSync(path, 'w+');
      writeAll(fd, await segments.objects.read(key, 0, size), 0);
    }
    try {
      for (const r of list) writeAll(fd, Buffer.alloc(r.len), r.off);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await segments.objects.putFile(key, path);
  }
}
