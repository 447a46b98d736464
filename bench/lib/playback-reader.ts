/**
 * The readers of the playback benchmark, run in a child process of it (`fork`, one task per IPC
 * message) so that the reading side has its own core, as a real client would:
 *
 * - `http`: GET /v1/sessions/{id}/playback from `from_ts`, then again with `base_seq =
 *   next_base_seq` (same from_ts) until it is null, by `readers` concurrent readers
 *   each reading the whole recording. A reader sends its next request as soon as an answer has
 *   arrived (its tail names `next_base_seq`) and hands the answer to a verifier thread, which
 *   checks it meanwhile: one request in flight per reader, and the socket is read while earlier
 *   answers are checked.
 * - `store`: the same answers (same paging, same caps) straight from the compiled server's
 *   stream store (`firstFrom`, `slot`) on the same DATA_DIR: no HTTP.
 *
 * Each checks that every seq 1..maxSeq arrived exactly once and that the payload bytes add up
 * (bench/lib/playback-check.ts). The store reader checks that each body is the one recorded for its
 * seq (markers, and the seq stamped into it). The http reader checks every event against what the
 * fixture wrote (the `Truth`, captured on its way into the store, bench/lib/playback-truth.ts): its
 * stream, its timestamp and its body's exact bytes, walking the answer's bytes without JSON.parse
 * (bench/lib/playback-answer.ts) in a thread of its own (bench/lib/playback-verifier.ts).
 */
import { Agent, request } from 'node:http';
import { isMainThread } from 'node:worker_threads';
import type { StreamEvent, StreamStore } from '@vss/server/tools';
import { Checker, checkBody, type AnswerCaps, type Expect } from './playback-check.ts';
import { openSqliteStreamStore } from './playback-fixture.ts';
import { Verifier } from './playback-verifier.ts';

interface Common {
  sessionId: string;
  fromTs: number;
  windowSize: number;
  expect: Expect;
  /** the caps of one answer, as the server pages it */
  caps: AnswerCaps;
  /** stop after this many answers (warm-up); the checks of completeness are then skipped */
  maxAnswers?: number;
}

export type ReaderTask =
  | (Common & {
      mode: 'http';
      base: string;
      headers: Record<string, string>;
      readers: number;
      /** the file `saveTruth` wrote for this recording */
      truthFile: string;
    })
  | (Common & { mode: 'store'; dataDir: string });

export interface ReaderResult {
  mode: ReaderTask['mode'];
  readers: number;
  /** events received, over all readers */
  events: number;
  /** payload bytes received (decoded body lengths), over all readers */
  bytes: number;
  /** HTTP answers (or store answers), over all readers */
  answers: number;
  /** wall time from the first request to the last event checked */
  wallS: number;
  /** per answer: request sent → last byte received (http), or the answer's read time (store) */
  latencyMs: number[];
  /** per answer: request sent → response headers (http only) */
  ttfbMs: number[];
  /** answer sizes as sent (http: JSON bytes) */
  answerBytes: number[];
  /** CPU seconds of this reader process (all its threads) during the task */
  cpuS: number;
  complete: boolean;
}

// ---------------------------------------------------------------- http

interface Fetched {
  status: number;
  body: Buffer;
  ttfbMs: number;
  totalMs: number;
}

function get(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  alloc: (bytes: number) => Buffer,
): Promise<Fetched> {
  return new Promise((resolveGet, reject) => {
    const t0 = performance.now();
    const req = request(url, { agent, headers }, (res) => {
      const ttfbMs = performance.now() - t0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const totalMs = performance.now() - t0;
        const body = alloc(chunks.reduce((n, c) => n + c.length, 0));
        let o = 0;
        for (const c of chunks) o += c.copy(body, o);
        resolveGet({ status: res.statusCode ?? 0, body, ttfbMs, totalMs });
      });
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`GET ${url}: no answer within 60 s`)));
    req.on('error', reject);
    req.end();
  });
}

const TAIL = /"next_base_seq":(null|\d+)\},"error":null\}\s*$/;

/** One reader: answer after answer, the next request out as soon as this answer has arrived. */
async function httpReader(
  task: Extract<ReaderTask, { mode: 'http' }>,
  agent: Agent,
  verifier: Verifier,
  reader: number,
  out: ReaderResult,
): Promise<boolean> {
  const url = (baseSeq: number | undefined) =>
    `${task.base}/v1/sessions/${task.sessionId}/playback?from_ts=${task.fromTs}&window_size=${task.windowSize}` +
    (baseSeq === undefined ? '' : `&base_seq=${baseSeq}`);
  let asked: number | undefined = undefined;
  let answers = 0;
  for (;;) {
    const a = await get(agent, url(asked), task.headers, (n) => verifier.alloc(n));
    if (a.status !== 200)
      throw new Error(`GET ${url(asked)}: ${a.status} ${a.body.toString('utf8').slice(0, 300)}`);
    answers++;
    out.latencyMs.push(a.totalMs);
    out.ttfbMs.push(a.ttfbMs);
    out.answerBytes.push(a.body.length);
    const tail = a.body.subarray(-100).toString('latin1');
    const m = TAIL.exec(tail);
    if (!m) throw new Error(`answer without next_base_seq at its end: …${tail}`);
    const next = m[1] === 'null' ? null : Number(m[1]);
    verifier.post(reader, a.body, asked, next);
    if (next === null || (task.maxAnswers !== undefined && answers >= task.maxAnswers)) break;
    asked = next;
  }
  const complete = task.maxAnswers === undefined;
  const got = await verifier.finish(reader, complete);
  out.events += got.events;
  out.bytes += got.bytes;
  out.answers += answers;
  return complete;
}

// ---------------------------------------------------------------- store (same paging, no HTTP)

/** One answer exactly as the recordings service pages it, without the JSON. */
async function storeAnswer(
  store: StreamStore,
  sessionId: string,
  fromTs: number,
  windowSize: number,
  baseSeq: number | undefined,
  caps: AnswerCaps,
): Promise<{ events: StreamEvent[]; next: number | null }> {
  const first = await store.firstFrom(sessionId, baseSeq ?? 0, fromTs);
  if (!first) return { events: [], next: null };
  const lo = fromTs + Math.floor((first.ts - fromTs) / windowSize) * windowSize;
  const hi = lo + windowSize;
  const events: StreamEvent[] = [];
  let bytes = 0;
  let next: number | null = null;
  // The store yields pages of events (one promise per page, not per event), as the service reads them.
  pages: for await (const page of store.slot(sessionId, lo, hi, first.seq, caps.events + 1, fromTs)) {
    for (const e of page) {
      if (events.length >= caps.events || (events.length > 0 && bytes + e.body.length > caps.bytes)) {
        next = e.seq;
        break pages;
      }
      bytes += e.body.length;
      events.push(e);
    }
  }
  next ??= (await store.firstFrom(sessionId, (events.at(-1)?.seq ?? first.seq) + 1, fromTs))?.seq ?? null;
  return { events, next };
}

async function storeReader(
  task: Extract<ReaderTask, { mode: 'store' }>,
  out: ReaderResult,
): Promise<boolean> {
  const store = await openSqliteStreamStore(task.dataDir);
  try {
    const check = new Checker(task.expect);
    const t0 = performance.now();
    let base: number | undefined = undefined;
    for (;;) {
      const a0 = performance.now();
      const a = await storeAnswer(store, task.sessionId, task.fromTs, task.windowSize, base, task.caps);
      out.latencyMs.push(performance.now() - a0);
      out.answers++;
      let last = 0;
      for (const e of a.events) {
        if (e.seq <= last) throw new Error(`seq ${e.seq} after ${last} inside one answer`);
        last = e.seq;
        checkBody(e.seq, e.streamId, e.body);
        check.see(e.seq, e.body.length);
      }
      if (a.next === null || (task.maxAnswers !== undefined && out.answers >= task.maxAnswers)) break;
      base = a.next;
    }
    out.wallS = (performance.now() - t0) / 1000;
    const complete = task.maxAnswers === undefined;
    if (complete) check.finish();
    out.events = check.events;
    out.bytes = check.bytes;
    return complete;
  } finally {
    await store.close();
  }
}

/** Runs one task and measures it. */
export async function runTask(task: ReaderTask): Promise<ReaderResult> {
  const out: ReaderResult = {
    mode: task.mode,
    readers: task.mode === 'http' ? task.readers : 1,
    events: 0,
    bytes: 0,
    answers: 0,
    wallS: 0,
    latencyMs: [],
    ttfbMs: [],
    answerBytes: [],
    cpuS: 0,
    complete: false,
  };
  let cpu = process.cpuUsage();
  if (task.mode === 'http') {
    const agent = new Agent({ keepAlive: true, maxSockets: task.readers });
    const verifier = new Verifier(task.expect, task.truthFile);
    try {
      // The verifier's start (a thread, tsx, the Truth) is not part of what is measured.
      await verifier.ready;
      cpu = process.cpuUsage();
      const t0 = performance.now();
      const done = await Promise.all(
        Array.from({ length: task.readers }, (_, i) => httpReader(task, agent, verifier, i, out)),
      );
      out.wallS = (performance.now() - t0) / 1000;
      out.complete = done.every(Boolean);
    } finally {
      agent.destroy();
      await verifier.stop();
    }
  } else out.complete = await storeReader(task, out);
  const used = process.cpuUsage(cpu);
  out.cpuS = (used.user + used.system) / 1e6;
  return out;
}

// The forked child: one task per message, one answer per task.
if (isMainThread && process.env.VSS_PLAYBACK_READER === '1' && process.send) {
  process.on('message', (msg: { id: number; task: ReaderTask }) => {
    runTask(msg.task).then(
      (result) => process.send!({ id: msg.id, result }),
      (err: Error) => process.send!({ id: msg.id, error: err.stack ?? err.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
