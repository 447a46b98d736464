/**
 * Checking one playback answer's bytes against what the fixture wrote (`AnswerChecker`, run by the
 * http reader's verifier thread, bench/lib/playback-verifier.ts).
 *
 * The checker does not JSON.parse an answer. Turning an answer of ~11 MB into a string and parsing
 * it runs at about 100 MB/s on this machine, slower than the server sends, so the benchmark
 * measured its own reader. The server writes one fixed shape
 * (`{"data":{"events":[{"seq":N,"timestamp_ms":N,"stream_id":"…","body_base64":"…"},…],
 * "base_seq":N,"next_base_seq":N|null},"error":null}` and a newline), and the checker walks the answer's bytes
 * along it: the seq is read first, and everything after it is compared with what was written for
 * that seq. A body's base64 text is compared with the canonical base64 of the body written (same
 * text, same bytes, and the text need not be decoded): only the few characters that encode the
 * per-event fields (the stamped seq, a mic packet's EVC1 timestamp) are encoded per event; the rest
 * of the text is the same for every body of a stream and is compared with `Buffer#compare`. Any
 * other shape fails the answer (JSON.parse is then used only to say what the answer was).
 */
import { kindOf, type Checker } from './playback-check.ts';
import { stampOf } from './playback-fixture.ts';
import { fieldsOf, stampFields, writtenBody, type Field, type Truth } from './playback-truth.ts';

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
const TAIL_END = Buffer.from('},"error":null}\n');

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
