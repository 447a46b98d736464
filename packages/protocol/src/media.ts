/** The EVC1 container of WebCodecs chunks, and which media each track takes. */
import type { TrackKind } from './messages.js';
import { decodeUtf8, utf8 } from './utf8.js';

/** One WebCodecs encoded chunk in the EVC1 container. */
export interface Evc1Chunk {
  version: number;
  key: boolean;
  /** WebCodecs codec string: `vp8`, `vp09…`, `avc1…`, `opus`, `pcm-s16` */
  codec: string;
  timestampUs: number;
  durationUs: number;
  /** decoder description (avcC for avc1, JSON {sampleRate, numberOfChannels} for pcm-s16); may be empty */
  description: Uint8Array;
  data: Uint8Array;
}

const EVC1 = [0x45, 0x56, 0x43, 0x31];

/** True when the bytes start with the EVC1 magic. */
export function isEvc1(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && EVC1.every((b, i) => bytes[i] === b);
}

/** True when the bytes look like a JPEG image (SOI marker). */
export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/**
 * Builds an EVC1 chunk: ASCII `EVC1`, version, flags (bit 0 key frame), uint16 codec length and
 * codec string, uint64 timestamp µs, uint32 duration µs, uint32 description length and the
 * description, then the chunk bytes. Big-endian.
 */
export function encodeEvc1(chunk: Omit<Evc1Chunk, 'version'> & { version?: number }): Uint8Array {
  const codec = utf8.encode(chunk.codec);
  if (codec.length > 0xffff) throw new RangeError('codec string longer than 65535 bytes');
  if (!Number.isSafeInteger(chunk.timestampUs) || chunk.timestampUs < 0)
    throw new RangeError('timestampUs must be a non-negative integer');
  const out = new Uint8Array(
    4 + 1 + 1 + 2 + codec.length + 8 + 4 + 4 + chunk.description.length + chunk.data.length,
  );
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out.set(EVC1, 0);
  out[4] = chunk.version ?? 1;
  out[5] = chunk.key ? 1 : 0;
  view.setUint16(6, codec.length);
  out.set(codec, 8);
  let o = 8 + codec.length;
  view.setBigUint64(o, BigInt(Math.trunc(chunk.timestampUs)));
  view.setUint32(o + 8, chunk.durationUs >>> 0);
  view.setUint32(o + 12, chunk.description.length);
  o += 16;
  out.set(chunk.description, o);
  out.set(chunk.data, o + chunk.description.length);
  return out;
}

/** Parses an EVC1 chunk; throws a RangeError naming what is wrong. */
export function decodeEvc1(bytes: Uint8Array): Evc1Chunk {
  if (!isEvc1(bytes)) throw new RangeError('not an EVC1 chunk');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8) throw new RangeError('EVC1 chunk truncated');
  const codecLen = view.getUint16(6);
  let o = 8 + codecLen;
  if (bytes.length < o + 16) throw new RangeError('EVC1 chunk truncated');
  const codec = decodeUtf8(bytes.subarray(8, o), 'codec');
  const timestampUs = Number(view.getBigUint64(o));
  const durationUs = view.getUint32(o + 8);
  const descLen = view.getUint32(o + 12);
  o += 16;
  if (bytes.length < o + descLen) throw new RangeError('EVC1 description truncated');
  return {
    version: bytes[4]!,
    key: (bytes[5]! & 1) === 1,
    codec,
    timestampUs,
    durationUs,
    description: bytes.subarray(o, o + descLen),
    data: bytes.subarray(o + descLen),
  };
}

/**
 * The width and height of a video picture where its header tells them without decoding: a JPEG
 * (its start-of-frame segment) or a VP8 key frame in EVC1. Null otherwise (a VP8 delta frame keeps
 * its key frame's size; other codecs' headers are not read).
 */
export function pictureSize(payload: Uint8Array): { width: number; height: number } | null {
  if (isJpeg(payload)) return jpegSize(payload);
  if (!isEvc1(payload)) return null;
  let chunk: Evc1Chunk;
  try {
    chunk = decodeEvc1(payload);
  } catch {
    return null;
  }
  const d = chunk.data;
  // A VP8 key frame: a 3-byte frame tag (bit 0 clear), the start code 9d 01 2a, then 14-bit
  // little-endian width and height.
  if (chunk.codec !== 'vp8' || d.length < 10 || (d[0]! & 1) !== 0) return null;
  if (d[3] !== 0x9d || d[4] !== 0x01 || d[5] !== 0x2a) return null;
  return { width: (d[6]! | (d[7]! << 8)) & 0x3fff, height: (d[8]! | (d[9]! << 8)) & 0x3fff };
}

function jpegSize(b: Uint8Array): { width: number; height: number } | null {
  let o = 2;
  while (o + 9 < b.length) {
    if (b[o] !== 0xff) return null;
    const marker = b[o + 1]!;
    if (marker === 0xff) {
      o += 1;
      continue;
    }
    const len = (b[o + 2]! << 8) | b[o + 3]!;
    // Start of frame: SOF0–SOF15 but DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: (b[o + 5]! << 8) | b[o + 6]!, width: (b[o + 7]! << 8) | b[o + 8]! };
    if (marker === 0xda || marker === 0xd9 || len < 2) return null;
    o += 2 + len;
  }
  return null;
}

/** Video codecs export can read. */
export function isVideoCodec(codec: string): boolean {
  return codec === 'vp8' || codec.startsWith('vp09.') || codec.startsWith('avc1.');
}

/** Audio codecs export can read. */
export function isAudioCodec(codec: string): boolean {
  return codec === 'opus' || codec === 'pcm-s16';
}

/**
 * Why a media payload is not acceptable for a track kind, or null when it is: cam and screen
 * take JPEG or EVC1 video, mic takes EVC1 audio.
 */
export function mediaProblem(kind: TrackKind, payload: Uint8Array): string | null {
  if (kind !== 'mic' && isJpeg(payload)) return null;
  if (!isEvc1(payload))
    return kind === 'mic'
      ? 'mic payloads must be EVC1 audio (opus or pcm-s16)'
      : 'payload is neither JPEG nor EVC1';
  let chunk: Evc1Chunk;
  try {
    chunk = decodeEvc1(payload);
  } catch (err) {
    return (err as Error).message;
  }
  if (kind === 'mic' ? !isAudioCodec(chunk.codec) : !isVideoCodec(chunk.codec))
    return `codec "${chunk.codec}" is not allowed on a ${kind} track`;
  return null;
}

/** Splits `media/<user>/<kind>` into its parts, or null. */
export function parseMediaStream(streamType: string): { userId: string; kind: TrackKind } | null {
  const m = /^media\/(.+)\/(cam|mic|screen)$/.exec(streamType);
  return m ? { userId: m[1]!, kind: m[2] as TrackKind } : null;
}

/**
 * A name card's background: one muted colour per participant (by the order they first appear),
 * so that a tile with no picture never looks like video. The export draws its name tiles in them
 * and the replay player its name cards, so a participant has the same colour in both.
 */
export const NAME_CARD_COLOURS = [
  '#34495e',
  '#5b4a7a',
  '#2e6b5e',
  '#7a5b3a',
  '#6b3a4f',
  '#3a5f7a',
  '#55703a',
  '#7a4a3a',
] as const;

/**
 * Whom the presenter layout features: the director's focus while they are present, else the first
 * participant present (in the order they joined), else the focus as set (nobody is present). One
 * rule for the live room, the replay player and the export: a participant who left is never kept
 * large.
 */
export function shownFocus(focus: string | null, present: readonly string[]): string | null {
  if (focus !== null && present.includes(focus)) return focus;
  return present[0] ?? focus;
}

/** Base64 of bytes, in browsers and Node. */
export function toBase64(bytes: Uint8Array): string {
  if (typeof Buffer !== 'undefined')
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Bytes of base64, in browsers and Node. */
export function fromBase64(text: string): Uint8Array {
  if (typeof Buffer !== 'undefined') return new Uint8Array(Buffer.from(text, 'base64'));
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
