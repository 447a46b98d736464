/** The binary media frame (docs/protocol.md §4). */
import { decodeUtf8, utf8 } from './utf8.js';

const MAGIC = 0x56; // 'V'
/** Binary frame kinds. */
export const BINARY_PUBLISH = 1;
export const BINARY_MESSAGE = 2;
/** A publish of a reduced layer: kind 1 with one byte, the layer, after `timestamp_ms`. */
export const BINARY_PUBLISH_LAYER = 3;

/** A media frame in binary form (no base64): what `format=binary` connections send and receive. */
export interface BinaryFrame {
  kind: typeof BINARY_PUBLISH | typeof BINARY_MESSAGE;
  streamType: string;
  timestampMs: number;
  /** publish only: the client's message id, acked once written */
  id?: string;
  /** publish only: the video layer (absent: 0); a layer other than 0 is sent as kind 3 */
  layer?: number;
  /** message only */
  seq?: number;
  payload: Uint8Array;
}

/**
 * Encodes a binary frame: `0x56`, kind (1 publish, 2 message), uint8 stream-type length, the
 * stream type (UTF-8), uint64 timestamp_ms; then for publish a uint8 id length and the id
 * (length 0: no ack wanted), for message a uint64 seq; then the payload. Big-endian. A publish of
 * a reduced layer is kind 3, with a uint8 layer between timestamp_ms and the id length.
 */
export function encodeBinaryFrame(frame: BinaryFrame): Uint8Array {
  const st = utf8.encode(frame.streamType);
  if (st.length > 255) throw new RangeError('stream type longer than 255 bytes');
  const id = frame.kind === BINARY_PUBLISH && frame.id ? utf8.encode(frame.id) : new Uint8Array(0);
  if (id.length > 255) throw new RangeError('id longer than 255 bytes');
  const layer = frame.kind === BINARY_PUBLISH ? (frame.layer ?? 0) : 0;
  if (!Number.isInteger(layer) || layer < 0 || layer > 255) throw new RangeError('layer out of range');
  const tail = frame.kind === BINARY_PUBLISH ? (layer ? 2 : 1) + id.length : 8;
  const out = new Uint8Array(3 + st.length + 8 + tail + frame.payload.length);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = MAGIC;
  out[1] = layer ? BINARY_PUBLISH_LAYER : frame.kind;
  out[2] = st.length;
  out.set(st, 3);
  let o = 3 + st.length;
  view.setBigUint64(o, BigInt(Math.max(0, Math.trunc(frame.timestampMs))));
  o += 8;
  if (layer) out[o++] = layer;
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
  const wireKind = data[1];
  if (wireKind !== BINARY_PUBLISH && wireKind !== BINARY_MESSAGE && wireKind !== BINARY_PUBLISH_LAYER)
    throw new RangeError(`unknown binary frame kind ${wireKind}`);
  const kind = wireKind === BINARY_MESSAGE ? BINARY_MESSAGE : BINARY_PUBLISH;
  const stLen = data[2]!;
  let o = 3 + stLen;
  if (data.length < o + 8) throw new RangeError('binary frame truncated');
  const streamType = decodeUtf8(data.subarray(3, o), 'stream type');
  const timestampMs = Number(view.getBigUint64(o));
  o += 8;
  if (kind === BINARY_PUBLISH) {
    const layer = wireKind === BINARY_PUBLISH_LAYER ? data[o++] : undefined;
    if (data.length < o + 1) throw new RangeError('binary frame truncated');
    const idLen = data[o]!;
    if (data.length < o + 1 + idLen) throw new RangeError('binary frame truncated');
    const id = idLen ? decodeUtf8(data.subarray(o + 1, o + 1 + idLen), 'id') : undefined;
    o += 1 + idLen;
    return {
      kind,
      streamType,
      timestampMs,
      ...(id ? { id } : {}),
      ...(layer !== undefined ? { layer } : {}),
      payload: data.subarray(o),
    };
  }
  if (data.length < o + 8) throw new RangeError('binary frame truncated');
  const seq = Number(view.getBigUint64(o));
  return { kind, streamType, timestampMs, seq, payload: data.subarray(o + 8) };
}
