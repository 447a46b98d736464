/**
 * The live protocol's wire formats, shared by the server and every client: JSON messages,
 * the binary media frame, and the EVC1 container of WebCodecs chunks.
 * Works on Uint8Array so that it runs in browsers and in Node alike.
 */

/** Streams a client may publish to. Media streams are `media/<own user_id>/<kind>`. */
export type TrackKind = 'cam' | 'mic' | 'screen';
export const TRACK_KINDS: readonly TrackKind[] = ['cam', 'mic', 'screen'];

/** Control events the server sends. */
export type ControlEvent =
  | 'welcome'
  | 'join'
  | 'leave'
  | 'track.published'
  | 'track.unpublished'
  | 'ack'
  | 'end'
  | 'error'
  /** the server is draining: it closes with 1001 next, and the client connects again */
  | 'reconnect';

/** Server → client: recorded data of a stream. `body` is base64 of the payload bytes. */
export interface MessageFrame {
  type: 'message';
  stream_type: string;
  timestamp_ms: number;
  body: string;
  /** the message's place in the session's one sequence over all streams */
  seq: number;
}

/** Server → client: lifecycle and protocol signals. */
export interface ControlFrame {
  type: 'control';
  event: ControlEvent;
  user_id: string;
  timestamp_ms: number;
  data: Record<string, unknown>;
}

/** The `welcome` control frame: the first message of every connection. */
export interface WelcomeFrame extends ControlFrame {
  event: 'welcome';
  data: {
    session_id: string;
    user_id: string;
    /** `live`, or `replay` for a replay connection */
    mode: 'live' | 'replay';
    /** user ids present in the session, this one included (empty in replay) */
    participants: string[];
  };
}

/** Client → server: publish to a stream; with `id`, the server acks once it is durably written. */
export interface PublishFrame {
  type: 'publish';
  stream_type: string;
  timestamp_ms?: number;
  body: string;
  id?: string;
}

/** Client → server: stop a media track (emits `track.unpublished`). */
export interface UnpublishFrame {
  type: 'unpublish';
  stream_type: string;
}

export type ServerFrame = MessageFrame | ControlFrame;
export type ClientFrame = PublishFrame | UnpublishFrame;

/** Error codes carried by `control`/`error` messages. */
export const LIVE_ERRORS = {
  BAD_MESSAGE: 'BAD_MESSAGE',
  FORBIDDEN_STREAM: 'FORBIDDEN_STREAM',
  TOO_LARGE: 'TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  BAD_CODEC: 'BAD_CODEC',
  REDACTED: 'REDACTED',
  REPLAY_ONLY: 'REPLAY_ONLY',
  SERVER_ERROR: 'SERVER_ERROR',
  /** the server is draining (restarting): the message was not recorded; send it again once reconnected */
  UNAVAILABLE: 'UNAVAILABLE',
  /** a newer connection of the same user_id joined the session: this one no longer publishes */
  REPLACED: 'REPLACED',
  /**
   * the organisation has no subscription and its free-tier storage is used up: media is refused
   * (chat and director commands are still recorded)
   */
  USAGE_LIMITS_EXCEEDED: 'USAGE_LIMITS_EXCEEDED',
} as const;

/** WebSocket close codes the server uses. */
export const CLOSE = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  /** the client kept sending invalid messages */
  POLICY_VIOLATION: 1008,
  /** the connection stayed over the hard send-buffer bound: a receiver too slow to keep */
  TRY_AGAIN_LATER: 1013,
  /** the server failed (the join could not be recorded, a replay could not be read) */
  INTERNAL_ERROR: 1011,
  /** the server is draining (restarting) and takes no new joins: connect again, to another server */
  SERVICE_RESTART: 1012,
  /** reserved (the session ended): this server does not send it; clients treat it as final */
  SESSION_ENDED: 4000,
  /** reserved (the participant was removed): this server does not send it; clients treat it as final */
  REMOVED: 4001,
  /**
   * a newer connection of the same user_id joined the session (another tab, another device) and
   * took this one's place: final, a client must not reconnect (it would replace the newer one)
   */
  REPLACED: 4409,
} as const;

const MAGIC = 0x56; // 'V'
/** Binary frame kinds. */
export const BINARY_PUBLISH = 1;
export const BINARY_MESSAGE = 2;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly; a RangeError names what was not valid. */
function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return fromUtf8.decode(bytes);
  } catch {
    throw new RangeError(`${what} is not valid UTF-8`);
  }
}

/** A media frame in binary form (no base64): what `format=binary` connections send and receive. */
export interface BinaryFrame {
  kind: typeof BINARY_PUBLISH | typeof BINARY_MESSAGE;
  streamType: string;
  timestampMs: number;
  /** publish only: the client's message id, acked once written */
  id?: string;
  /** message only */
  seq?: number;
  payload: Uint8Array;
}

/**
 * Encodes a binary frame: `0x56`, kind (1 publish, 2 message), uint8 stream-type length, the
 * stream type (UTF-8), uint64 timestamp_ms; then for publish a uint8 id length and the id
 * (length 0: no ack wanted), for message a uint64 seq; then the payload. Big-endian.
 */
export function encodeBinaryFrame(frame: BinaryFrame): Uint8Array {
  const st = utf8.encode(frame.streamType);
  if (st.length > 255) throw new RangeError('stream type longer than 255 bytes');
  const id = frame.kind === BINARY_PUBLISH && frame.id ? utf8.encode(frame.id) : new Uint8Array(0);
  if (id.length > 255) throw new RangeError('id longer than 255 bytes');
  const tail = frame.kind === BINARY_PUBLISH ? 1 + id.length : 8;
  const out = new Uint8Array(3 + st.length + 8 + tail + frame.payload.length);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = MAGIC;
  out[1] = frame.kind;
  out[2] = st.length;
  out.set(st, 3);
  let o = 3 + st.length;
  view.setBigUint64(o, BigInt(Math.max(0, Math.trunc(frame.timestampMs))));
  o += 8;
  if (frame.kind === BINARY_PUBLISH) {
    out[o] = id.length;
    out.set(id, o + 1);
    o += 1 + id.length;
  } else {
    view.setBigUint64(o, BigInt(frame.seq ?? 0));
    o += 8;
  }
  out.set(frame.payload, o);
  return out;
}

/** Decodes a binary frame; throws a RangeError naming what is wrong. */
export function decodeBinaryFrame(data: Uint8Array): BinaryFrame {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 12 || data[0] !== MAGIC) throw new RangeError('not a vss binary frame');
  const kind = data[1];
  if (kind !== BINARY_PUBLISH && kind !== BINARY_MESSAGE)
    throw new RangeError(`unknown binary frame kind ${kind}`);
  const stLen = data[2]!;
  let o = 3 + stLen;
  if (data.length < o + 8) throw new RangeError('binary frame truncated');
  const streamType = decodeUtf8(data.subarray(3, o), 'stream type');
  const timestampMs = Number(view.getBigUint64(o));
  o += 8;
  if (kind === BINARY_PUBLISH) {
    if (data.length < o + 1) throw new RangeError('binary frame truncated');
    const idLen = data[o]!;
    if (data.length < o + 1 + idLen) throw new RangeError('binary frame truncated');
    const id = idLen ? decodeUtf8(data.subarray(o + 1, o + 1 + idLen), 'id') : undefined;
    o += 1 + idLen;
    return { kind, streamType, timestampMs, ...(id ? { id } : {}), payload: data.subarray(o) };
  }
  if (data.length < o + 8) throw new RangeError('binary frame truncated');
  const seq = Number(view.getBigUint64(o));
  return { kind, streamType, timestampMs, seq, payload: data.subarray(o + 8) };
}

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
