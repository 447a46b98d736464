/**
 * The readers of the playback benchmark, run in a child process of it (`fork`, one task per IPC
 * message) so that the reading side has its own core, as a real client would:
 *
 * - `http`: GET /v1/sessions/{id}/playback from `from_ts`, then again with `base_seq =
 *   next_base_seq` (same from_ts) until it is null, by `readers` concurrent readers
 *   each reading the whole recording. A reader sends its next request as soon as an answer has
 *   arrived (its tail names `next_base_seq`) and hands the answer to a verifier thread, which
 *   parses and checks it meanwhile: one request in flight per reader, and the socket is read
 *   while earlier answers are parsed.
 * - `store`: the same answers (same paging, same caps) straight from the compiled server's
 *   SQLite stream store (`firstFrom`, `slot`, `nextTs`, `minSeqIn`) on the same file: no HTTP.
 * - `sqlite`: better-sqlite3 directly, read-only: one ordered range query per time window.
 *
 * Each checks that every seq 1..maxSeq arrived exactly once, that the payload bytes add up, and that
 * each body is the one recorded for its seq (markers, and the seq stamped into it).
 */
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { StreamEvent, StreamStore } from '../../packages/server/src/streams/store.js';
import { openSqliteStreamStore, stampOf } from './playback-fixture.ts';

/** The caps of one playback answer (MAX_WINDOW_* in the recordings service). */
export const MAX_ANSWER_EVENTS = 5000;
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** What a reader must find. */
export interface Expect {
  events: number;
  maxSeq: number;
  payloadBytes: number;
}

interface Common {
  sessionId: string;
  fromTs: number;
  windowSize: number;
  expect: Expect;
  /** stop after this many answers (warm-up); the checks of completeness are then skipped */
  maxAnswers?: number;
}

export type ReaderTask =
  | (Common & { mode: 'http'; base: string; headers: Record<string, string>; readers: number })
  | (Common & { mode: 'store'; dataDir: string })
  | (Common & { mode: 'sqlite'; dataDir: string; maxTs: number });

export interface ReaderResult {
  mode: ReaderTask['mode'];
  readers: number;
  /** events received, over all readers */
  events: number;
  /** payload bytes received (decoded body lengths), over all readers */
  bytes: number;
  /** HTTP answers (or store answers, or SQLite windows), over all readers */
  answers: number;
  /** wall time from the first request to the last event checked */
  wallS: number;
  /** per answer: request sent → last byte received (http), or the answer's read time (direct) */
  latencyMs: number[];
  /** per answer: request sent → response headers (http only) */
  ttfbMs: number[];
  /** answer sizes as sent (http: JSON bytes) */
  answerBytes: number[];
  /** CPU seconds of this reader process during the task */
  cpuS: number;
  complete: boolean;
}

/** Every seq exactly once, bytes adding up, and each body belonging to its seq. */
class Checker {
  private seen: Uint8Array;
  events = 0;
  bytes = 0;

  constructor(private readonly expect: Expect) {
    this.seen = new Uint8Array(expect.maxSeq + 1);
  }

  see(seq: number, bytes: number): void {
    if (!(seq >= 1 && seq <= this.expect.maxSeq)) throw new Error(`seq ${seq} is not in the recording`);
    if (this.seen[seq]) throw new Error(`seq ${seq} received twice`);
    this.seen[seq] = 1;
    this.events++;
    this.bytes += bytes;
  }

  finish(): void {
    if (this.events !== this.expect.events)
      throw new Error(`received ${this.events} events, the recording holds ${this.expect.events}`);
    for (let s = 1; s <= this.expect.maxSeq; s++)
      if (!this.seen[s]) throw new Error(`seq ${s} never received`);
    if (this.bytes !== this.expect.payloadBytes)
      throw new Error(
        `received ${this.bytes} payload bytes, the recording holds ${this.expect.payloadBytes}`,
      );
  }
}

const kindOf = (streamId: string): 'cam' | 'mic' => {
  if (streamId.endsWith('/cam')) return 'cam';
  if (streamId.endsWith('/mic')) return 'mic';
  throw new Error(`unexpected stream ${streamId}`);
};

/** A body read from the store: JPEG markers or the EVC1 magic, and its own seq inside. */
function checkBody(seq: number, streamId: string, body: Buffer): void {
  const kind = kindOf(streamId);
  const good =
    kind === 'cam'
      ? body[0] === 0xff &&
        body[1] === 0xd8 &&
        body[2] === 0xff &&
        body[3] === 0xe0 &&
        body[body.length - 2] === 0xff &&
        body[body.length - 1] === 0xd9
      : body[0] === 0x45 && body[1] === 0x56 && body[2] === 0x43 && body[3] === 0x31;
  if (!good || stampOf(body, kind) !== seq)
    throw new Error(`body of seq ${seq} (${streamId}) is not its own`);
}

/** The last two bytes are the JPEG EOI marker (the last two base64 quanta hold them). */
function jpegEnd(b64: string): boolean {
  const tail = Buffer.from(b64.slice(-8), 'base64');
  return tail[tail.length - 2] === 0xff && tail[tail.length - 1] === 0xd9;
}

/** Decoded length of base64 text. */
function b64Bytes(s: string): number {
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - pad;
}

// ---------------------------------------------------------------- http

interface Fetched {
  status: number;
  body: Buffer;
  ttfbMs: number;
  totalMs: number;
}

function get(agent: Agent, url: string, headers: Record<string, string>): Promise<Fetched> {
  return new Promise((resolveGet, reject) => {
    const t0 = performance.now();
    const req = request(url, { agent, headers }, (res) => {
      const ttfbMs = performance.now() - t0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const totalMs = performance.now() - t0;
        // A buffer of its own (not a slice of a pooled one), so that it can move to the verifier.
        const body = Buffer.allocUnsafeSlow(chunks.reduce((n, c) => n + c.length, 0));
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

interface Answer {
  data: {
    events: Array<{ seq: number; timestamp_ms: number; stream_id: string; body_base64: string }>;
    base_seq: number;
    next_base_seq: number | null;
  };
}

/**
 * Parses and checks answers in a worker thread, so that the reader's main thread is free to take
 * the next answer off the socket meanwhile (as a browser's network and decoding are apart).
 */
class Verifier {
  private readonly worker: Worker;
  private failure: Error | null = null;
  private readonly finishing = new Map<
    number,
    { ok: (r: { events: number; bytes: number }) => void; fail: (e: Error) => void }
  >();

  constructor(expect: Expect) {
    // The worker loads this TypeScript file through tsx's API (`--import tsx` does not reach workers).
    const self = JSON.stringify(import.meta.url);
    const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    this.worker = new Worker(`import(${api}).then((tsx) => tsx.tsImport(${self}, ${self}));`, {
      eval: true,
      workerData: { role: VERIFY_ROLE, expect },
    });
    this.worker.on('message', (m: VerifyReply) => {
      if (m.type === 'error') this.failure ??= new Error(m.message);
      const f = this.finishing.get(m.reader);
      if (!f) return;
      this.finishing.delete(m.reader);
      if (m.type === 'error') f.fail(new Error(m.message));
      else f.ok({ events: m.events, bytes: m.bytes });
    });
    this.worker.on('error', (err) => {
      this.failure ??= err;
      for (const f of this.finishing.values()) f.fail(err);
      this.finishing.clear();
    });
  }

  /** Hands an answer over (its memory moves to the worker); throws if an earlier one failed. */
  post(reader: number, body: Buffer, asked: number | undefined, next: number | null): void {
    if (this.failure) throw this.failure;
    const msg: VerifyRequest = { type: 'answer', reader, body: body.buffer as ArrayBuffer, asked, next };
    this.worker.postMessage(msg, [msg.body]);
  }

  /** Resolves once every answer of the reader is checked (and, when complete, the whole set). */
  finish(reader: number, complete: boolean): Promise<{ events: number; bytes: number }> {
    return new Promise((ok, fail) => {
      this.finishing.set(reader, { ok, fail });
      const msg: VerifyRequest = { type: 'finish', reader, complete };
      this.worker.postMessage(msg);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

const VERIFY_ROLE = 'playback-verify';
type VerifyRequest =
  | { type: 'answer'; reader: number; body: ArrayBuffer; asked: number | undefined; next: number | null }
  | { type: 'finish'; reader: number; complete: boolean };
type VerifyReply =
  | { type: 'done'; reader: number; events: number; bytes: number }
  | { type: 'error'; reader: number; message: string };

/** The worker side: a Checker per reader; a reader's first error is reported, the rest ignored. */
function verifierThread(expect: Expect): void {
  const checks = new Map<number, Checker>();
  const failed = new Set<number>();
  const reply = (m: VerifyReply) => parentPort!.postMessage(m);
  parentPort!.on('message', (m: VerifyRequest) => {
    if (failed.has(m.reader)) {
      if (m.type === 'finish')
        reply({ type: 'error', reader: m.reader, message: 'the reader failed earlier' });
      return;
    }
    let check = checks.get(m.reader);
    if (!check) checks.set(m.reader, (check = new Checker(expect)));
    try {
      if (m.type === 'answer') checkAnswer(check, Buffer.from(m.body), m.asked, m.next);
      else {
        if (m.complete) check.finish();
        reply({ type: 'done', reader: m.reader, events: check.events, bytes: check.bytes });
      }
    } catch (err) {
      failed.add(m.reader);
      reply({ type: 'error', reader: m.reader, message: (err as Error).message });
    }
  });
}

/** One answer: base_seq and next_base_seq as expected, seqs rising, each body its own. */
function checkAnswer(check: Checker, body: Buffer, asked: number | undefined, next: number | null): void {
  const { data } = JSON.parse(body.toString('utf8')) as Answer;
  if (asked !== undefined && data.base_seq !== asked)
    throw new Error(`asked base_seq ${asked}, the answer says ${data.base_seq}`);
  if (data.next_base_seq !== next) throw new Error('next_base_seq differs from the tail');
  let last = 0;
  for (let i = 0; i < data.events.length; i++) {
    const e = data.events[i]!;
    if (e.seq <= last) throw new Error(`seq ${e.seq} after ${last} inside one answer`);
    last = e.seq;
    const b64 = e.body_base64;
    const kind = kindOf(e.stream_id);
    const good = kind === 'cam' ? b64.startsWith('/9j/4') && jpegEnd(b64) : b64.startsWith('RVZDMQ');
    if (!good) throw new Error(`body of seq ${e.seq} (${e.stream_id}) does not look like its kind`);
    if (e.seq % 61 === 0) {
      const decoded = Buffer.from(b64, 'base64');
      if (stampOf(decoded, kind) !== e.seq) throw new Error(`body of seq ${e.seq} is not its own`);
    }
    check.see(e.seq, b64Bytes(b64));
  }
}

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
    const a = await get(agent, url(asked), task.headers);
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
): Promise<{ events: StreamEvent[]; next: number | null }> {
  let k = 0;
  if (baseSeq !== undefined) {
    const first = await store.firstFrom(sessionId, baseSeq, fromTs);
    if (!first) return { events: [], next: null };
    k = Math.floor((first.ts - fromTs) / windowSize);
  }
  const lo = fromTs + k * windowSize;
  const hi = lo + windowSize;
  const events: StreamEvent[] = [];
  let bytes = 0;
  let next: number | null = null;
  for await (const e of store.slot(sessionId, lo, hi, baseSeq ?? 0, MAX_ANSWER_EVENTS + 1)) {
    if (
      events.length >= MAX_ANSWER_EVENTS ||
      (events.length > 0 && bytes + e.body.length > MAX_ANSWER_BYTES)
    ) {
      next = e.seq;
      break;
    }
    bytes += e.body.length;
    events.push(e);
  }
  if (next === null) {
    const after = await store.nextTs(sessionId, hi);
    if (after !== undefined) {
      const k2 = Math.floor((after - fromTs) / windowSize);
      next =
        (await store.minSeqIn(sessionId, fromTs + k2 * windowSize, fromTs + (k2 + 1) * windowSize)) ?? null;
    }
  }
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
      const a = await storeAnswer(store, task.sessionId, task.fromTs, task.windowSize, base);
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

// ---------------------------------------------------------------- better-sqlite3 directly

type Row = { seq: number; stream_id: string; ts: number; body: Buffer };

function sqliteReader(task: Extract<ReaderTask, { mode: 'sqlite' }>, out: ReaderResult): boolean {
  const db = new SQLite(join(task.dataDir, 'streams.sqlite'), { readonly: true });
  try {
    const windowRows = db.prepare(
      'select seq, stream_id, ts, body from stream_events where session_id = ? and ts >= ? and ts < ? order by seq',
    );
    const check = new Checker(task.expect);
    const t0 = performance.now();
    for (let lo = task.fromTs; lo <= task.maxTs; lo += task.windowSize) {
      const a0 = performance.now();
      let last = 0;
      for (const r of windowRows.iterate(task.sessionId, lo, lo + task.windowSize) as IterableIterator<Row>) {
        if (r.seq <= last) throw new Error(`seq ${r.seq} after ${last} inside one window`);
        last = r.seq;
        checkBody(r.seq, r.stream_id, r.body);
        check.see(r.seq, r.body.length);
      }
      out.latencyMs.push(performance.now() - a0);
      out.answers++;
      if (task.maxAnswers !== undefined && out.answers >= task.maxAnswers) break;
    }
    out.wallS = (performance.now() - t0) / 1000;
    const complete = task.maxAnswers === undefined;
    if (complete) check.finish();
    out.events = check.events;
    out.bytes = check.bytes;
    return complete;
  } finally {
    db.close();
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
  const cpu = process.cpuUsage();
  if (task.mode === 'http') {
    const agent = new Agent({ keepAlive: true, maxSockets: task.readers });
    const verifier = new Verifier(task.expect);
    try {
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
  } else if (task.mode === 'store') out.complete = await storeReader(task, out);
  else out.complete = sqliteReader(task, out);
  const used = process.cpuUsage(cpu);
  out.cpuS = (used.user + used.system) / 1e6;
  return out;
}

// The verifier thread of an http task.
if (!isMainThread && (workerData as { role?: string } | null)?.role === VERIFY_ROLE)
  verifierThread((workerData as { expect: Expect }).expect);

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
