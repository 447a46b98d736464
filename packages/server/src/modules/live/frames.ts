import { BINARY_MESSAGE, encodeBinaryFrame, type ControlEvent } from '@vss/protocol';

/** The JSON `message` frame, written by hand: it is built once per message on the hot path. */
export function messageText(streamType: string, timestampMs: number, seq: number, payload: Buffer): string {
  return `{"type":"message","stream_type":${JSON.stringify(streamType)},"timestamp_ms":${timestampMs},"body":"${payload.toString('base64')}","seq":${seq}}`;
}

/** The binary `message` frame of `format=binary` connections. */
export function messageBinary(streamType: string, timestampMs: number, seq: number, payload: Buffer): Buffer {
  const f = encodeBinaryFrame({ kind: BINARY_MESSAGE, streamType, timestampMs, seq, payload });
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

/** A `control` frame. */
export function controlText(
  event: ControlEvent,
  userId: string,
  timestampMs: number,
  data: Record<string, unknown>,
): string {
  return JSON.stringify({ type: 'control', event, user_id: userId, timestamp_ms: timestampMs, data });
}
