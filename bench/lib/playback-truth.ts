/**
 * What the playback fixture wrote, event by event (the `Truth`): recorded on its way into the stream
 * store, kept in DATA_DIR next to bench-fixture.json, and what the http reader checks every event
 * of every answer against (its stream, its timestamp and its body's exact bytes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { StreamEvent, StreamStore } from '@vss/server/tools';
import { kindOf } from './playback-check.ts';
import { JPEG_STAMP } from './playback-fixture.ts';

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
export interface Field {
  off: number;
  width: 4 | 8;
  value: 'seq' | 'tsUs';
}

/** The per-event fields of a stream's bodies, read off its first body. */
export function fieldsOf(streamId: string, template: Buffer): Field[] {
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
export function stampFields(body: Buffer, fields: Field[], seq: number, ts: number, epochMs: number): void {
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
