/**
 * The recording the playback benchmark reads: participants publishing a JPEG-like cam track and an
 * EVC1/opus mic track, written straight into the server's stream store (no live WebSocket), with
 * one seq per session increasing in time order, as a live recording would have.
 *
 * Every body carries its own seq (stamped at STAMP), so that a reader can prove that the bytes it
 * got for an event are that event's bytes.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { encodeEvc1 } from '@vss/client';
import type { StreamEvent, StreamStore } from '@vss/server/tools';

export interface FixtureSpec {
  minutes: number;
  participants: number;
  camFps: number;
  /** bytes of one cam frame, JPEG markers included */
  camBytes: number;
  micPerS: number;
  /** bytes of opus data in one mic packet (the EVC1 header comes on top) */
  micDataBytes: number;
  /** ms since 1970 of the first event */
  epochMs: number;
  /** events per appendBatch */
  batch: number;
}

/** What was written: enough for a reader to check that it got every event exactly once. */
export interface Fixture {
  sessionId: string;
  events: number;
  camEvents: number;
  micEvents: number;
  /** the sum of the body lengths */
  payloadBytes: number;
  /** seqs are 1..maxSeq, every one used */
  maxSeq: number;
  minTs: number;
  maxTs: number;
  streams: string[];
}

/** The 2026-11-21 10:00:00.000 UTC epoch: timestamps do not depend on when the benchmark runs. */
export const FIXED_EPOCH_MS = Date.UTC(2026, 10, 21, 10, 0, 0);

/** Where each body carries its seq (uint32, big-endian): after the JFIF APP0 segment, inside the EVC1 data. */
export const JPEG_STAMP = 20;

/** A JFIF start (SOI + APP0), random bytes, the event's seq, EOI at the end. */
function camFrame(template: Buffer, seq: number): Buffer {
  const b = Buffer.allocUnsafe(template.length);
  template.copy(b);
  b.writeUInt32BE(seq, JPEG_STAMP);
  return b;
}

function camTemplate(bytes: number): Buffer {
  const b = randomBytes(bytes);
  // SOI, APP0 "JFIF\0" v1.1, no density units, 1x1, no thumbnail
  Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
    0x01, 0x00, 0x00,
  ]).copy(b, 0);
  b[bytes - 2] = 0xff;
  b[bytes - 1] = 0xd9;
  return b;
}

function micPacket(data: Buffer, seq: number, tsMs: number, epochMs: number): Buffer {
  const d = Buffer.from(data);
  d.writeUInt32BE(seq, 0);
  const chunk = encodeEvc1({
    key: true,
    codec: 'opus',
    timestampUs: (tsMs - epochMs) * 1000,
    durationUs: 20_000,
    description: new Uint8Array(0),
    data: d,
  });
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Reads the seq stamped into a body (cam: after APP0; mic: first bytes of the EVC1 data). */
export function stampOf(body: Buffer, kind: 'cam' | 'mic'): number {
  if (kind === 'cam') return body.readUInt32BE(JPEG_STAMP);
  // EVC1: magic(4) version(1) flags(1) codecLen(2) codec timestamp(8) duration(4) descLen(4) desc data
  const codecLen = body.readUInt16BE(6);
  const descLen = body.readUInt32BE(8 + codecLen + 12);
  return body.readUInt32BE(8 + codecLen + 16 + descLen);
}

/**
 * The compiled server's SQLite stream store (what the server itself opens on DATA_DIR), loaded when
 * it is first wanted: the reader child and its verifier thread load this module without needing it.
 */
export async function openSqliteStreamStore(dataDir: string): Promise<StreamStore> {
  const { sqliteStreamStore } = await import('@vss/server/tools');
  return sqliteStreamStore(dataDir);
}

/**
 * Writes the recording of `sessionId` through `store.appendBatch`, second by second in time order:
 * each participant's cam frames at camFps and mic packets at micPerS, offset a few ms per
 * participant, sorted by time; seq 1, 2, 3 … in that order.
 */
export async function writeFixture(
  store: StreamStore,
  sessionId: string,
  spec: FixtureSpec,
  onProgress?: (doneS: number, totalS: number) => void,
): Promise<Fixture> {
  const users = Array.from({ length: spec.participants }, () => randomUUID());
  const cams = users.map((u) => `media/${u}/cam`);
  const mics = spec.micPerS > 0 ? users.map((u) => `media/${u}/mic`) : [];
  const templates = users.map(() => camTemplate(spec.camBytes));
  const micData = randomBytes(spec.micDataBytes);
  const totalS = spec.minutes * 60;
  let seq = 0;
  let payloadBytes = 0;
  let camEvents = 0;
  let micEvents = 0;
  let batch: StreamEvent[] = [];
  type Slot = { ts: number; order: number; p: number; cam: boolean };
  for (let s = 0; s < totalS; s++) {
    const base = spec.epochMs + s * 1000;
    const slots: Slot[] = [];
    for (let p = 0; p < spec.participants; p++) {
      for (let f = 0; f < spec.camFps; f++)
        slots.push({ ts: base + Math.round((f * 1000) / spec.camFps) + p * 5, order: p * 2, p, cam: true });
      for (let m = 0; m < spec.micPerS; m++)
        slots.push({
          ts: base + Math.round((m * 1000) / spec.micPerS) + p * 3,
          order: p * 2 + 1,
          p,
          cam: false,
        });
    }
    slots.sort((a, b) => a.ts - b.ts || a.order - b.order);
    for (const x of slots) {
      seq++;
      const body = x.cam ? camFrame(templates[x.p]!, seq) : micPacket(micData, seq, x.ts, spec.epochMs);
      if (x.cam) camEvents++;
      else micEvents++;
      payloadBytes += body.length;
      batch.push({ sessionId, seq, streamId: x.cam ? cams[x.p]! : mics[x.p]!, ts: x.ts, body });
      if (batch.length >= spec.batch) {
        await store.appendBatch(batch);
        batch = [];
      }
    }
    if (onProgress && (s + 1) % 60 === 0) onProgress(s + 1, totalS);
  }
  if (batch.length) await store.appendBatch(batch);
  const lastSlot = Math.max(
    Math.round(((spec.camFps - 1) * 1000) / spec.camFps) + (spec.participants - 1) * 5,
    spec.micPerS > 0
      ? Math.round(((spec.micPerS - 1) * 1000) / spec.micPerS) + (spec.participants - 1) * 3
      : 0,
  );
  return {
    sessionId,
    events: seq,
    camEvents,
    micEvents,
    payloadBytes,
    maxSeq: seq,
    minTs: spec.epochMs,
    maxTs: spec.epochMs + (totalS - 1) * 1000 + lastSlot,
    streams: [...cams, ...mics].sort(),
  };
}
