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
 * Each checks that every seq 1..maxSeq arrived exactly once and that the payload bytes add up. The
 * store reader checks that each body is the one recorded for its seq (markers, and the seq stamped
 * into it). The http reader checks every event against what the fixture wrote (the `Truth`,
 * captured on its way into the store): its stream, its timestamp and its body's exact bytes.
 *
 * The verifier does not JSON.parse an answer. Turning an answer of ~11 MB into a string and parsing
 * it runs at about 100 MB/s on this machine, slower than the server sends, so the benchmark
 * measured its own reader. The server writes one fixed shape
 * (`{"data":{"events":[{"seq":N,"timestamp_ms":N,"stream_id":"…","body_base64":"…"},…],
 * "base_seq":N,"next_base_seq":N|null},"error":null}`), and the verifier walks the answer's bytes
 * along it: the seq is read first, and everything after it is compared with what was written for
 * that seq. A body's base64 text is compared with the canonical base64 of the body written (same
 * text, same bytes, and the text need not be decoded): only the few characters that encode the
 * per-event fields (the stamped seq, a mic packet's EVC1 timestamp) are encoded per event; the rest
 * of the text is the same for every body of a stream and is compared with `Buffer#compare`. Any
 * other shape fails the answer (JSON.parse is then used only to say what the answer was).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { StreamEvent, StreamStore } from '../../packages/server/src/streams/store.js';
import { JPEG_STAMP, openSqliteStreamStore, stampOf } from './playback-fixture.ts';

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

/** Every seq exactly once, bytes adding up. */
export class Checker {
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

// ---------------------------------------------------------------- what the fixture wrote

/** Where the benchmark keeps the Truth of its fixture, next to bench-fixture.json in DATA_DIR. */
export const TRUTH_FILE = 'bench-truth.json';

/**
 * What the fixture wrote, event by event: what the http reader checks every answer against. The
 * bodies of one stream are all alike but for the fields stamped per event (the seq, and a mic
 * packet's EVC1 timestamp), so that a stream's first body is enough to know all of them.
 */
export interface Truth {
  /** time 0 of the EVC1 timestamps in mic bodies (ms since 1970) */
  epochMs: number;
  streams: string[];
  /** per stream: its first body as written */
  templates: Buffer[];
  /** per seq (index 0 unused): the index of its stream in `streams` */
  stream: Uint8Array;
  /** per seq (index 0 unused): its timestamp, ms since 1970 */
  ts: Float64Array;
}

/** A field of a body that differs from event to event: its offset, width and what it holds. */
interface Field {
  off: number;
  width: 4 | 8;
  value: 'seq' | 'tsUs';
}

/** The per-event fields of a stream's bodies, read off its first body. */
function fieldsOf(streamId: string, template: Buffer): Field[] {
  const kind = kindOf(streamId);
  if (kind === 'cam') {
    const jpeg =
      template.length >= JPEG_STAMP + 6 &&
      template[0] === 0xff &&
      template[1] === 0xd8 &&
      template[template.length - 2] === 0xff &&
      template[template.length - 1] === 0xd9;
    if (!jpeg) throw new Error(`the first body of ${streamId} is not a JPEG frame`);
    return [{ off: JPEG_STAMP, width: 4, value: 'seq' }];
  }
  const evc1 =
    template.length >= 24 &&
    template[0] === 0x45 &&
    template[1] === 0x56 &&
    template[2] === 0x43 &&
    template[3] === 0x31;
  if (!evc1) throw new Error(`the first body of ${streamId} is not an EVC1 packet`);
  // EVC1: magic(4) version(1) flags(1) codecLen(2) codec timestamp(8) duration(4) descLen(4) desc data
  const codecLen = template.readUInt16BE(6);
  const descLen = template.readUInt32BE(8 + codecLen + 12);
  const stamp = 8 + codecLen + 16 + descLen;
  if (template.length < stamp + 4) throw new Error(`the first body of ${streamId} has no room for its seq`);
  return [
    { off: 8 + codecLen, width: 8, value: 'tsUs' },
    { off: stamp, width: 4, value: 'seq' },
  ];
}

/** Writes the fields of the event `seq` at `ts` into a copy of its stream's first body. */
function stampFields(body: Buffer, fields: Field[], seq: number, ts: number, epochMs: number): void {
  for (const f of fields) {
    if (f.value === 'seq') body.writeUInt32BE(seq, f.off);
    else {
      // A uint64 of µs, as two halves: no BigInt per event.
      const us = (ts - epochMs) * 1000;
      body.writeUInt32BE(Math.floor(us / 0x1_0000_0000), f.off);
      body.writeUInt32BE(us >>> 0, f.off + 4);
    }
  }
}

/** The exact bytes the fixture wrote for `seq`. */
export function writtenBody(truth: Truth, seq: number): Buffer {
  const s = truth.stream[seq]!;
  const body = Buffer.from(truth.templates[s]!);
  stampFields(body, fieldsOf(truth.streams[s]!, body), seq, truth.ts[seq]!, truth.epochMs);
  return body;
}

/**
 * Collects the Truth from the batches the fixture hands to the store (`wrap`), at the cost of two
 * numbers per event and a copy of each stream's first body.
 */
export class TruthRecorder {
  private readonly index = new Map<string, number>();
  private readonly streams: string[] = [];
  private readonly templates: Buffer[] = [];
  private readonly stream: number[] = [0];
  private readonly ts: number[] = [0];

  constructor(private readonly epochMs: number) {}

  /** The store, recording each batch before it is written. */
  wrap(store: StreamStore): StreamStore {
    const append = (events: StreamEvent[]) => {
      this.add(events);
      return store.appendBatch(events);
    };
    return new Proxy(store, {
      get: (target, prop) => {
        if (prop === 'appendBatch') return append;
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }

  add(events: StreamEvent[]): void {
    for (const e of events) {
      if (e.seq !== this.ts.length)
        throw new Error(`the fixture wrote seq ${e.seq} after ${this.ts.length - 1}: seqs must be 1, 2, 3 …`);
      let s = this.index.get(e.streamId);
      if (s === undefined) {
        if (this.streams.length === 255) throw new Error('more than 255 streams in the fixture');
        s = this.streams.length;
        this.index.set(e.streamId, s);
        this.streams.push(e.streamId);
        this.templates.push(Buffer.from(e.body));
        fieldsOf(e.streamId, e.body); // a body of a shape the reader cannot check fails here, not later
      }
      this.stream.push(s);
      this.ts.push(e.ts);
    }
  }

  truth(): Truth {
    return {
      epochMs: this.epochMs,
      streams: [...this.streams],
      templates: [...this.templates],
      stream: Uint8Array.from(this.stream),
      ts: Float64Array.from(this.ts),
    };
  }
}

interface TruthJson {
  epochMs: number;
  streams: string[];
  templates: string[];
  stream: string;
  ts: string;
}

export function saveTruth(file: string, truth: Truth): void {
  const b64 = (a: Uint8Array | Float64Array) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  const json: TruthJson = {
    epochMs: truth.epochMs,
    streams: truth.streams,
    templates: truth.templates.map((t) => t.toString('base64')),
    stream: b64(truth.stream),
    ts: b64(truth.ts),
  };
  writeFileSync(file, JSON.stringify(json));
}

export function loadTruth(file: string): Truth {
  const json = JSON.parse(readFileSync(file, 'utf8')) as TruthJson;
  const bytes = (s: string) => {
    // Copied into a buffer of its own: a Float64Array needs an offset that is a multiple of 8.
    const b = Buffer.from(s, 'base64');
    const own = new ArrayBuffer(b.length);
    new Uint8Array(own).set(b);
    return own;
  };
  const truth: Truth = {
    epochMs: json.epochMs,
    streams: json.streams,
    templates: json.templates.map((t) => Buffer.from(t, 'base64')),
    stream: new Uint8Array(bytes(json.stream)),
    ts: new Float64Array(bytes(json.ts)),
  };
  if (truth.stream.length !== truth.ts.length || truth.templates.length !== truth.streams.length)
    throw new Error(`${file}: inconsistent lengths`);
  for (let seq = 1; seq < truth.stream.length; seq++)
    if (truth.stream[seq]! >= truth.streams.length) throw new Error(`${file}: seq ${seq} has no stream`);
  return truth;
}

// ---------------------------------------------------------------- checking an answer's bytes

const B64 = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'latin1');
const PAD = 0x3d; // '='
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/**
 * True when buf[at…] holds the base64 of src[b0, b1) (b0 at a multiple of 3 from the body's start,
 * b1 a multiple of 3 or the body's end), padding included.
 */
function encodedAt(buf: Buffer, at: number, src: Buffer, b0: number, b1: number): boolean {
  let p = at;
  for (let i = b0; i < b1; i += 3) {
    const n = b1 - i;
    const a = src[i]!;
    const b = n > 1 ? src[i + 1]! : 0;
    const c = n > 2 ? src[i + 2]! : 0;
    if (buf[p] !== B64[a >> 2]) return false;
    if (buf[p + 1] !== B64[((a & 3) << 4) | (b >> 4)]) return false;
    if (buf[p + 2] !== (n > 1 ? B64[((b & 15) << 2) | (c >> 6)] : PAD)) return false;
    if (buf[p + 3] !== (n > 2 ? B64[c & 63] : PAD)) return false;
    p += 4;
  }
  return true;
}

/** One stream as the verifier checks it: its id as JSON, and its bodies' base64 text. */
class StreamModel {
  /** `"media/…/cam"`, as the answer holds it */
  readonly idJson: Buffer;
  /** the canonical base64 text of the stream's first body */
  readonly text: Buffer;
  /** decoded length of every body of the stream */
  readonly bytes: number;
  private readonly body: Buffer;
  private readonly fields: Field[];
  /** where the per-event fields are: whole base64 quanta, [b0, b1) in the body, [c0, c1) in the text */
  private readonly spans: Array<{ b0: number; b1: number; c0: number; c1: number }> = [];

  constructor(
    readonly id: string,
    template: Buffer,
    private readonly epochMs: number,
  ) {
    this.idJson = Buffer.from(JSON.stringify(id), 'utf8');
    this.body = Buffer.from(template);
    this.bytes = template.length;
    this.text = Buffer.from(template.toString('base64'), 'latin1');
    this.fields = fieldsOf(id, template);
    const sorted = [...this.fields].sort((x, y) => x.off - y.off);
    for (const f of sorted) {
      const q0 = Math.floor(f.off / 3);
      const q1 = Math.ceil((f.off + f.width) / 3);
      const last = this.spans[this.spans.length - 1];
      if (last && last.c1 >= q0 * 4) {
        last.b1 = Math.max(last.b1, Math.min(this.bytes, q1 * 3));
        last.c1 = Math.max(last.c1, q1 * 4);
      } else this.spans.push({ b0: q0 * 3, b1: Math.min(this.bytes, q1 * 3), c0: q0 * 4, c1: q1 * 4 });
    }
    // The fields agree with where the fixture stamps the seq.
    stampFields(this.body, this.fields, 0x01020304, epochMs, epochMs);
    if (stampOf(this.body, kindOf(id)) !== 0x01020304)
      throw new Error(`${id}: the seq is not where the fixture stamps it`);
  }

  /**
   * True when buf[at, at + text.length) is the base64 of the body written for `seq` at `ts`: the
   * spans of the per-event fields encoded here, the rest compared with the first body's text.
   */
  matches(buf: Buffer, at: number, seq: number, ts: number): boolean {
    stampFields(this.body, this.fields, seq, ts, this.epochMs);
    let c = 0;
    for (const s of this.spans) {
      if (s.c0 > c && buf.compare(this.text, c, s.c0, at + c, at + s.c0) !== 0) return false;
      if (!encodedAt(buf, at + s.c0, this.body, s.b0, s.b1)) return false;
      c = s.c1;
    }
    return (
      c >= this.text.length ||
      buf.compare(this.text, c, this.text.length, at + c, at + this.text.length) === 0
    );
  }
}

/** What the verifier of one task checks answers against. */
export class AnswerChecker {
  private readonly models: StreamModel[];

  constructor(private readonly truth: Truth) {
    this.models = truth.streams.map((id, i) => new StreamModel(id, truth.templates[i]!, truth.epochMs));
  }

  /**
   * Checks one answer: its shape, each event (seq rising, never seen before; its timestamp, stream
   * and body as written), base_seq (as asked; the first event's on the first request) and
   * next_base_seq (as the reader read it off the tail). Returns the events it held.
   */
  check(seen: Checker, answer: Buffer, asked: number | undefined, next: number | null): number {
    try {
      return this.walk(seen, answer, asked, next);
    } catch (err) {
      if (err instanceof ShapeError) throw new Error(describeShape(answer, err));
      throw err;
    }
  }

  private walk(seen: Checker, a: Buffer, asked: number | undefined, next: number | null): number {
    const { truth } = this;
    let p = lit(a, 0, HEAD);
    let last = 0;
    let first = 0;
    let n = 0;
    if (a[p] !== CLOSE_BRACKET)
      for (;;) {
        p = lit(a, p, SEQ_KEY);
        const seq = num(a, p);
        p = lit(a, numEnd, TS_KEY);
        const ts = num(a, p);
        p = lit(a, numEnd, STREAM_KEY);
        if (!(seq >= 1 && seq < truth.stream.length)) throw new Error(`seq ${seq} is not in the recording`);
        if (seq <= last) throw new Error(`seq ${seq} after ${last} inside one answer`);
        last = seq;
        if (n === 0) first = seq;
        if (ts !== truth.ts[seq]) throw new Error(`seq ${seq}: timestamp_ms ${ts}, written ${truth.ts[seq]}`);
        const m = this.models[truth.stream[seq]!]!;
        if (
          p + m.idJson.length > a.length ||
          a.compare(m.idJson, 0, m.idJson.length, p, p + m.idJson.length) !== 0
        )
          throw new Error(`seq ${seq}: stream_id ${quoted(a, p)}, written ${m.idJson.toString()}`);
        p = lit(a, p + m.idJson.length, BODY_KEY);
        const end = p + m.text.length;
        if (a[end] !== QUOTE) {
          const close = a.indexOf(QUOTE, p);
          if (close < 0) throw new ShapeError(p, 'the body’s closing quote');
          throw new Error(
            `seq ${seq} (${m.id}): ${close - p} characters of base64, the body written encodes to ${m.text.length}`,
          );
        }
        if (!m.matches(a, p, seq, ts)) throw new Error(bodyDifference(truth, seq, a, p, end));
        p = lit(a, end + 1, EVENT_END);
        seen.see(seq, m.bytes);
        n++;
        if (a[p] !== COMMA) break;
        p++;
      }
    p = lit(a, p, BASE_KEY);
    const base = num(a, p);
    p = lit(a, numEnd, NEXT_KEY);
    let said: number | null = null;
    if (a[p] === 0x6e /* n */) p = lit(a, p, NULL);
    else {
      said = num(a, p);
      p = numEnd;
    }
    p = lit(a, p, TAIL_END);
    if (p !== a.length) throw new ShapeError(p, 'the end of the answer');
    if (asked !== undefined && base !== asked)
      throw new Error(`asked base_seq ${asked}, the answer says ${base}`);
    if (asked === undefined && n > 0 && base !== first)
      throw new Error(`the first answer says base_seq ${base}, its first event is seq ${first}`);
    if (said !== next)
      throw new Error(`next_base_seq ${said} differs from the one read off the tail (${next})`);
    return n;
  }
}

const HEAD = Buffer.from('{"data":{"events":[');
const SEQ_KEY = Buffer.from('{"seq":');
const TS_KEY = Buffer.from(',"timestamp_ms":');
const STREAM_KEY = Buffer.from(',"stream_id":');
const BODY_KEY = Buffer.from(',"body_base64":"');
const EVENT_END = Buffer.from('}');
const BASE_KEY = Buffer.from('],"base_seq":');
const NEXT_KEY = Buffer.from(',"next_base_seq":');
const NULL = Buffer.from('null');
const TAIL_END = Buffer.from('},"error":null}');

/** The answer is not of the shape the server writes: where, and what was expected there. */
class ShapeError extends Error {
  constructor(
    readonly at: number,
    readonly wanted: string,
  ) {
    super(`${wanted} expected at byte ${at}`);
  }
}

/** Expects the bytes of `l` at `at`; returns where they end. */
function lit(a: Buffer, at: number, l: Buffer): number {
  if (at + l.length > a.length) throw new ShapeError(at, JSON.stringify(l.toString()));
  for (let i = 0; i < l.length; i++)
    if (a[at + i] !== l[i]) throw new ShapeError(at, JSON.stringify(l.toString()));
  return at + l.length;
}

/** Where the last number read by `num` ends (a module variable: no object per number). */
let numEnd = 0;

/** A non-negative integer as JSON writes it (no sign, fraction or leading zero), at most 15 digits. */
function num(a: Buffer, at: number): number {
  let v = 0;
  let i = at;
  for (; i < a.length; i++) {
    const d = a[i]! - 0x30;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
  }
  if (i === at || i - at > 15 || (a[at] === 0x30 && i - at > 1)) throw new ShapeError(at, 'an integer');
  numEnd = i;
  return v;
}

/** The JSON string at `at`, for a message. */
function quoted(a: Buffer, at: number): string {
  const close = a.indexOf(QUOTE, at + 1);
  return a.toString('latin1', at, close < 0 ? Math.min(a.length, at + 80) : Math.min(close + 1, at + 200));
}

/** Why a body's text is not the written body's: decoded here, on the way to failing only. */
function bodyDifference(truth: Truth, seq: number, a: Buffer, p: number, end: number): string {
  const stream = truth.streams[truth.stream[seq]!]!;
  const want = writtenBody(truth, seq);
  const got = Buffer.from(a.toString('latin1', p, end), 'base64');
  if (got.equals(want))
    return `seq ${seq} (${stream}): the body's base64 is not the canonical text of the body written`;
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  return `seq ${seq} (${stream}): ${got.length} bytes, the body written has ${want.length}; first difference at byte ${i}`;
}

/** Where and how an answer left the expected shape, and what JSON.parse makes of it. */
function describeShape(a: Buffer, e: ShapeError): string {
  const around = JSON.stringify(a.toString('latin1', Math.max(0, e.at - 80), Math.min(a.length, e.at + 80)));
  let what: string;
  try {
    const parsed = JSON.parse(a.toString('utf8')) as unknown;
    // Its outline: long strings cut, arrays down to their first two items.
    const short = JSON.stringify(parsed, (_k, v: unknown) =>
      typeof v === 'string' && v.length > 40
        ? `${v.slice(0, 40)}…`
        : Array.isArray(v) && v.length > 2
          ? [...v.slice(0, 2), `… ${v.length - 2} more`]
          : v,
    );
    what = `it is JSON of another form: ${short.length > 1000 ? `${short.slice(0, 1000)}…` : short}`;
  } catch (err) {
    what = `it is not JSON (${(err as Error).message})`;
  }
  return `answer of ${a.length} bytes not of the expected shape: ${e.wanted} expected at byte ${e.at}, around it ${around}; ${what}`;
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

/**
 * Checks answers in a worker thread, so that the reader's main thread is free to take the next
 * answer off the socket meanwhile (as a browser's network and decoding are apart).
 */
class Verifier {
  private readonly worker: Worker;
  private failure: Error | null = null;
  private readonly finishing = new Map<
    number,
    { ok: (r: { events: number; bytes: number }) => void; fail: (e: Error) => void }
  >();
  /** Resolves once the worker has loaded the Truth and can check answers. */
  readonly ready: Promise<void>;
  /**
   * Answer buffers the worker has handed back. Each answer is copied into memory of its own (to
   * move it to the worker); fresh memory of ~11 MB an answer costs page faults and frees that took
   * the reader as long as checking, so the same few buffers go back and forth instead.
   */
  private readonly spare: ArrayBuffer[] = [];

  constructor(expect: Expect, truthFile: string) {
    // The worker loads this TypeScript file through tsx's API (`--import tsx` does not reach workers).
    const self = JSON.stringify(import.meta.url);
    const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    this.worker = new Worker(`import(${api}).then((tsx) => tsx.tsImport(${self}, ${self}));`, {
      eval: true,
      workerData: { role: VERIFY_ROLE, expect, truthFile },
    });
    let started!: () => void;
    let refused!: (e: Error) => void;
    this.ready = new Promise((ok, fail) => {
      started = ok;
      refused = fail;
    });
    this.worker.on('message', (m: VerifyReply) => {
      if (m.type === 'ready') return started();
      if (m.type === 'spare') return void this.spare.push(m.buffer);
      if (m.type === 'error') {
        this.failure ??= new Error(m.message);
        if (m.reader < 0) return refused(this.failure);
      }
      const f = this.finishing.get(m.reader);
      if (!f) return;
      this.finishing.delete(m.reader);
      if (m.type === 'error') f.fail(new Error(m.message));
      else f.ok({ events: m.events, bytes: m.bytes });
    });
    this.worker.on('error', (err) => {
      this.failure ??= err;
      refused(err);
      for (const f of this.finishing.values()) f.fail(err);
      this.finishing.clear();
    });
    this.worker.on('exit', (code) => refused(new Error(`the verifier thread exited (${code})`)));
  }

  /** A buffer for an answer of `bytes`, to be handed over by `post`. */
  alloc(bytes: number): Buffer {
    const i = this.spare.findIndex((b) => b.byteLength >= bytes);
    const ab = i >= 0 ? this.spare.splice(i, 1)[0]! : new ArrayBuffer(Math.max(bytes, SPARE_BYTES));
    return Buffer.from(ab, 0, bytes);
  }

  /** Hands an answer over (its memory moves to the worker); throws if an earlier one failed. */
  post(reader: number, body: Buffer, asked: number | undefined, next: number | null): void {
    if (this.failure) throw this.failure;
    if (body.byteOffset !== 0) throw new Error('an answer must start its buffer (see alloc)');
    const buffer = body.buffer as ArrayBuffer;
    const msg: VerifyRequest = { type: 'answer', reader, buffer, length: body.length, asked, next };
    this.worker.postMessage(msg, [buffer]);
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
/** The size of a new answer buffer: room for the largest answers (~11.4 MB of JSON at 8 MiB of payload). */
const SPARE_BYTES = 12 << 20;
type VerifyRequest =
  | {
      type: 'answer';
      reader: number;
      /** the answer is its first `length` bytes */
      buffer: ArrayBuffer;
      length: number;
      asked: number | undefined;
      next: number | null;
    }
  | { type: 'finish'; reader: number; complete: boolean };
type VerifyReply =
  | { type: 'ready' }
  /** an answer's buffer, checked, back for the next answer */
  | { type: 'spare'; buffer: ArrayBuffer }
  | { type: 'done'; reader: number; events: number; bytes: number }
  /** reader -1: the worker could not start */
  | { type: 'error'; reader: number; message: string };

/** The worker side: a Checker per reader; a reader's first error is reported, the rest ignored. */
function verifierThread(expect: Expect, truthFile: string): void {
  const reply = (m: VerifyReply) => parentPort!.postMessage(m);
  let answers: AnswerChecker;
  try {
    const truth = loadTruth(truthFile);
    if (truth.stream.length !== expect.maxSeq + 1)
      throw new Error(
        `${truthFile} holds seqs 1..${truth.stream.length - 1}, the recording 1..${expect.maxSeq}`,
      );
    answers = new AnswerChecker(truth);
  } catch (err) {
    reply({ type: 'error', reader: -1, message: (err as Error).message });
    return;
  }
  const checks = new Map<number, Checker>();
  const failed = new Set<number>();
  parentPort!.on('message', (m: VerifyRequest) => {
    try {
      handle(m);
    } finally {
      if (m.type === 'answer') parentPort!.postMessage({ type: 'spare', buffer: m.buffer }, [m.buffer]);
    }
  });
  const handle = (m: VerifyRequest) => {
    if (failed.has(m.reader)) {
      if (m.type === 'finish')
        reply({ type: 'error', reader: m.reader, message: 'the reader failed earlier' });
      return;
    }
    let check = checks.get(m.reader);
    if (!check) checks.set(m.reader, (check = new Checker(expect)));
    try {
      if (m.type === 'answer') answers.check(check, Buffer.from(m.buffer, 0, m.length), m.asked, m.next);
      else {
        if (m.complete) check.finish();
        reply({ type: 'done', reader: m.reader, events: check.events, bytes: check.bytes });
      }
    } catch (err) {
      failed.add(m.reader);
      reply({ type: 'error', reader: m.reader, message: (err as Error).message });
    }
  };
  reply({ type: 'ready' });
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
): Promise<{ events: StreamEvent[]; next: number | null }> {
  const first = await store.firstFrom(sessionId, baseSeq ?? 0, fromTs);
  if (!first) return { events: [], next: null };
  const lo = fromTs + Math.floor((first.ts - fromTs) / windowSize) * windowSize;
  const hi = lo + windowSize;
  const events: StreamEvent[] = [];
  let bytes = 0;
  let next: number | null = null;
  // The store yields pages of events (one promise per page, not per event), as the service reads them.
  pages: for await (const page of store.slot(sessionId, lo, hi, first.seq, MAX_ANSWER_EVENTS + 1, fromTs)) {
    for (const e of page) {
      if (
        events.length >= MAX_ANSWER_EVENTS ||
        (events.length > 0 && bytes + e.body.length > MAX_ANSWER_BYTES)
      ) {
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

// The verifier thread of an http task.
if (!isMainThread && (workerData as { role?: string } | null)?.role === VERIFY_ROLE) {
  const d = workerData as { expect: Expect; truthFile: string };
  verifierThread(d.expect, d.truthFile);
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
