/**
 * The baseline of the playback benchmark: the same payload bytes read straight from the session's
 * segment files (in the page cache) and base64-encoded, with nothing else around it. Run in a
 * child process of the benchmark (`fork`, one task per IPC message), as the other readers are, so
 * that it has a core of its own.
 *
 * Before the clock starts the child reads the session's index (streams.sqlite, read-only): for each
 * event its seq, stream, time and where its body lies (segment, offset, length). Timed: the bodies
 * in seq order (the order of the recording), fetched by positional reads (`readSync` at an offset)
 * of runs of bodies that follow one another in one segment, each read at most READ_BYTES (a body
 * larger than that is read alone) into one reused buffer, then `toString('base64')` of each body,
 * one string per body as a playback answer holds them. No checksum, no SQL, no JSON, no HTTP: the
 * floor under what a playback answer costs.
 *
 * The bodies are grouped as the server's answers are (30 s windows of `ts` from `fromTs`, cut at
 * 5000 events or 4 MiB of payload), so that its per-group times compare with the answers' times.
 * Like the other readers it checks that every seq arrived once, that the payload bytes add up, and
 * that each body is its own (the seq stamped into it).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { JPEG_STAMP, stampOf } from './playback-fixture.ts';
import type { AnswerCaps, Expect } from './playback-check.ts';
import type { ReaderResult } from './playback-reader.ts';

/** The most bytes one positional read fetches (a body larger than this is read alone). */
export const READ_BYTES = 1 << 20;

export interface BaselineTask {
  dataDir: string;
  sessionId: string;
  fromTs: number;
  windowSize: number;
  expect: Expect;
  /** the caps of one answer, as the server pages it */
  caps: AnswerCaps;
  /** stop after this many groups (warm-up); the checks of completeness are then skipped */
  maxAnswers?: number;
}

export type BaselineResult = Omit<ReaderResult, 'mode'> & {
  mode: 'baseline';
  /** base64 characters produced, over all bodies */
  base64Chars: number;
  /** positional reads made */
  reads: number;
};

/** The session's index, in seq order, as flat arrays (read before the clock starts). */
interface Index {
  seq: Float64Array;
  /** 1 for a cam frame, 0 for a mic packet */
  cam: Uint8Array;
  ts: Float64Array;
  segment: Int32Array;
  off: Float64Array;
  len: Float64Array;
  segments: number[];
}

function readIndex(dataDir: string, sessionId: string): Index {
  const db = new SQLite(join(dataDir, 'streams.sqlite'), { readonly: true });
  try {
    const rows = db
      .prepare(
        'select seq, stream_id, ts, segment, off, len from stream_index where session_id = ? order by seq',
      )
      .raw()
      .all(sessionId) as Array<[number, string, number, number, number, number]>;
    const n = rows.length;
    const ix: Index = {
      seq: new Float64Array(n),
      cam: new Uint8Array(n),
      ts: new Float64Array(n),
      segment: new Int32Array(n),
      off: new Float64Array(n),
      len: new Float64Array(n),
      segments: [],
    };
    const segs = new Set<number>();
    rows.forEach(([seq, stream, ts, segment, off, len], i) => {
      if (stream.endsWith('/cam')) ix.cam[i] = 1;
      else if (!stream.endsWith('/mic')) throw new Error(`unexpected stream ${stream}`);
      ix.seq[i] = seq;
      ix.ts[i] = ts;
      ix.segment[i] = segment;
      ix.off[i] = off;
      ix.len[i] = len;
      segs.add(segment);
    });
    ix.segments = [...segs].sort((a, b) => a - b);
    return ix;
  } finally {
    db.close();
  }
}

/**
 * Where each group ends (exclusive index into the seq order): a new group at each 30 s window of
 * `ts` and wherever an answer would be capped.
 */
function groupEnds(ix: Index, fromTs: number, windowSize: number, caps: AnswerCaps): number[] {
  const ends: number[] = [];
  let window = NaN;
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < ix.seq.length; i++) {
    const w = Math.floor((ix.ts[i]! - fromTs) / windowSize);
    const len = ix.len[i]!;
    if (i > 0 && (w !== window || count >= caps.events || (count > 0 && bytes + len > caps.bytes))) {
      ends.push(i);
      count = 0;
      bytes = 0;
    }
    window = w;
    count++;
    bytes += len;
  }
  if (ix.seq.length > 0) ends.push(ix.seq.length);
  return ends;
}

/** Runs one task and measures it. */
export async function runBaseline(task: BaselineTask): Promise<BaselineResult> {
  const out: BaselineResult = {
    mode: 'baseline',
    readers: 1,
    events: 0,
    bytes: 0,
    answers: 0,
    wallS: 0,
    latencyMs: [],
    ttfbMs: [],
    answerBytes: [],
    cpuS: 0,
    complete: false,
    base64Chars: 0,
    reads: 0,
  };
  // The server's own naming of segment files, from the compiled server the benchmark runs.
  const files = await import('@vss/server/tools');
  const ix = readIndex(task.dataDir, task.sessionId);
  const ends = groupEnds(ix, task.fromTs, task.windowSize, task.caps);
  let maxLen = 0;
  for (const l of ix.len) if (l > maxLen) maxLen = l;
  const buf = Buffer.allocUnsafe(Math.max(READ_BYTES, maxLen));
  const seen = new Uint8Array(task.expect.maxSeq + 1);
  const root = join(task.dataDir, 'segments');

  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const fds = new Map<number, number>();
  try {
    for (const s of ix.segments) fds.set(s, openSync(files.segmentPath(root, task.sessionId, s), 'r'));
    let i = 0;
    for (const end of ends) {
      const a0 = performance.now();
      let groupBytes = 0;
      while (i < end) {
        // A run of bodies that follow one another in one segment, up to READ_BYTES: one read.
        const segment = ix.segment[i]!;
        const start = ix.off[i]!;
        let stop = start + ix.len[i]!;
        let j = i + 1;
        while (
          j < end &&
          ix.segment[j] === segment &&
          ix.off[j] === stop &&
          stop + ix.len[j]! - start <= READ_BYTES
        )
          stop += ix.len[j++]!;
        const want = stop - start;
        const fd = fds.get(segment)!;
        for (let got = 0; got < want;) {
          const n = readSync(fd, buf, got, want - got, start + got);
          if (n === 0) throw new Error(`segment ${segment} ends before byte ${start + want}`);
          got += n;
        }
        out.reads++;
        for (let k = i; k < j; k++) {
          const a = ix.off[k]! - start;
          const len = ix.len[k]!;
          out.base64Chars += buf.toString('base64', a, a + len).length;
          const seq = ix.seq[k]!;
          const kind = ix.cam[k] ? 'cam' : 'mic';
          const own =
            kind === 'cam'
              ? buf[a] === 0xff && buf[a + 1] === 0xd8 && buf.readUInt32BE(a + JPEG_STAMP) === seq
              : stampOf(buf.subarray(a, a + len), kind) === seq;
          if (!own) throw new Error(`body of seq ${seq} is not its own`);
          if (!(seq >= 1 && seq <= task.expect.maxSeq) || seen[seq])
            throw new Error(`seq ${seq} twice or unknown`);
          seen[seq] = 1;
          out.events++;
          out.bytes += len;
          groupBytes += len;
        }
        i = j;
      }
      out.latencyMs.push(performance.now() - a0);
      out.answerBytes.push(groupBytes);
      out.answers++;
      if (task.maxAnswers !== undefined && out.answers >= task.maxAnswers) break;
    }
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
  out.wallS = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  out.cpuS = (used.user + used.system) / 1e6;

  out.complete = task.maxAnswers === undefined;
  if (out.complete) {
    if (out.events !== task.expect.events)
      throw new Error(`baseline: read ${out.events} events, the recording holds ${task.expect.events}`);
    for (let s = 1; s <= task.expect.maxSeq; s++)
      if (!seen[s]) throw new Error(`baseline: seq ${s} never read`);
    if (out.bytes !== task.expect.payloadBytes)
      throw new Error(
        `baseline: read ${out.bytes} payload bytes, the recording holds ${task.expect.payloadBytes}`,
      );
    if (out.base64Chars !== ix.len.reduce((a, l) => a + 4 * Math.ceil(l / 3), 0))
      throw new Error('baseline: the base64 text is not the length of the bodies');
  }
  return out;
}

// The forked child: one task per message, one answer per task.
if (process.env.VSS_PLAYBACK_BASELINE === '1' && process.send) {
  process.on('message', (msg: { id: number; task: BaselineTask }) => {
    runBaseline(msg.task).then(
      (result) => process.send!({ id: msg.id, result }),
      (err: Error) => process.send!({ id: msg.id, error: err.stack ?? err.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
