import { BINARY_PUBLISH, LIVE_ERRORS, decodeBinaryFrame } from '@vss/protocol';
import type { IncomingPublish } from './publish-rules.js';
import { MAX_CONTROL_BYTES, MAX_JSON_DEPTH, MAX_MESSAGE_BYTES, jsonDepthWithin } from './wire-limits.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A client message as read off the wire: what it asks for, or why it is refused. */
export type ClientMessage =
  | { kind: 'publish'; msg: IncomingPublish }
  | { kind: 'unpublish'; streamType: string }
  | { kind: 'keyframe'; userId: string; track: string }
  | { kind: 'invalid'; code: string; message: string; id?: string };

const invalid = (code: string, message: string, id?: string): ClientMessage => ({
  kind: 'invalid',
  code,
  message,
  ...(id !== undefined ? { id } : {}),
});

const tooLargeForControl = (id?: string) =>
  invalid(
    LIVE_ERRORS.TOO_LARGE,
    `messages other than media publishes are limited to ${MAX_CONTROL_BYTES} bytes`,
    id,
  );

/**
 * Decodes one client message, JSON text or binary frame. The wire's limits apply here, before
 * anything else is done with it: 2 MiB for a media publish and 64 KiB for anything else, JSON
 * nesting bounded before it is parsed. A message that is not well formed is `invalid`, with the
 * client's `id` when it can be read; what it publishes is judged by the publish rules.
 */
export function decodeClientMessage(data: Buffer, isBinary: boolean): ClientMessage {
  if (data.length > MAX_MESSAGE_BYTES)
    return invalid(
      LIVE_ERRORS.TOO_LARGE,
      `messages are limited to ${MAX_MESSAGE_BYTES} bytes`,
      cheapId(data, isBinary),
    );
  if (isBinary) {
    let frame;
    try {
      frame = decodeBinaryFrame(data);
    } catch (err) {
      return invalid(LIVE_ERRORS.BAD_MESSAGE, (err as Error).message);
    }
    if (frame.kind !== BINARY_PUBLISH)
      return invalid(LIVE_ERRORS.BAD_MESSAGE, 'clients send binary publish frames (kind 1)');
    if (!frame.streamType.startsWith('media/') && data.length > MAX_CONTROL_BYTES)
      return tooLargeForControl(frame.id);
    return {
      kind: 'publish',
      msg: {
        streamType: frame.streamType,
        timestampMs: frame.timestampMs,
        payload: Buffer.from(frame.payload.buffer, frame.payload.byteOffset, frame.payload.byteLength),
        wireBytes: data.length,
        ...(frame.id !== undefined ? { id: frame.id } : {}),
        ...(frame.layer !== undefined ? { layer: frame.layer } : {}),
      },
    };
  }
  // A text message too large for anything but media is refused unread unless it says it is media:
  // parsing it first would let a 2 MiB chat or garbage message cost a full parse.
  if (data.length > MAX_CONTROL_BYTES && !namesMediaStream(data))
    return tooLargeForControl(cheapId(data, false));
  if (!jsonDepthWithin(data))
    return invalid(LIVE_ERRORS.BAD_MESSAGE, `JSON messages nest at most ${MAX_JSON_DEPTH} levels deep`);
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error();
  } catch {
    return invalid(LIVE_ERRORS.BAD_MESSAGE, 'messages are JSON objects');
  }
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? String(m.id) : undefined;
  const media = typeof m.stream_type === 'string' && m.stream_type.startsWith('media/');
  if (data.length > MAX_CONTROL_BYTES && !(m.type === 'publish' && media)) return tooLargeForControl(id);
  if (m.type === 'unpublish' && typeof m.stream_type === 'string')
    return { kind: 'unpublish', streamType: m.stream_type };
  if (m.type === 'keyframe') {
    if (typeof m.user_id !== 'string' || typeof m.track !== 'string')
      return invalid(LIVE_ERRORS.BAD_MESSAGE, 'keyframe needs user_id and track strings', id);
    return { kind: 'keyframe', userId: m.user_id, track: m.track };
  }
  if (m.type !== 'publish')
    return invalid(LIVE_ERRORS.BAD_MESSAGE, 'type must be "publish", "unpublish" or "keyframe"', id);
  if (typeof m.stream_type !== 'string')
    return invalid(LIVE_ERRORS.BAD_MESSAGE, 'stream_type must be a string', id);
  if (typeof m.body !== 'string' || !BASE64.test(m.body))
    return invalid(LIVE_ERRORS.BAD_MESSAGE, 'body must be base64', id);
  if (m.layer !== undefined && (typeof m.layer !== 'number' || !Number.isSafeInteger(m.layer)))
    return invalid(LIVE_ERRORS.BAD_LAYER, 'layer must be an integer (0, 1 or 2)', id);
  if (
    m.timestamp_ms !== undefined &&
    (typeof m.timestamp_ms !== 'number' || !Number.isSafeInteger(m.timestamp_ms))
  )
    return invalid(LIVE_ERRORS.BAD_MESSAGE, 'timestamp_ms must be an integer', id);
  return {
    kind: 'publish',
    msg: {
      streamType: m.stream_type,
      payload: Buffer.from(m.body, 'base64'),
      wireBytes: data.length,
      ...(m.timestamp_ms !== undefined ? { timestampMs: m.timestamp_ms as number } : {}),
      ...(id !== undefined ? { id } : {}),
      ...(m.layer !== undefined ? { layer: m.layer as number } : {}),
    },
  };
}

const STREAM_TYPE_KEY = Buffer.from('"stream_type"');
const MEDIA_VALUE = /^\s*:\s*"media\//;

/**
 * True when the JSON text's first `"stream_type"` member names a media stream. A cheap look (a
 * native search, which finds it near the start where the client library puts it, before the
 * body) that only decides whether a large message is worth parsing; the parsed message decides.
 */
function namesMediaStream(data: Buffer): boolean {
  const at = data.indexOf(STREAM_TYPE_KEY);
  return at >= 0 && MEDIA_VALUE.test(data.toString('latin1', at + STREAM_TYPE_KEY.length, at + 64));
}

/**
 * The client id of a message, when it can be read without parsing the whole message: a binary
 * frame's header, a small JSON message, or an `"id"` member near the end of a large one (where the
 * client library puts it, after the body).
 */
export function cheapId(data: Buffer, isBinary: boolean): string | undefined {
  try {
    if (isBinary) return decodeBinaryFrame(data).id;
    if (data.length <= MAX_CONTROL_BYTES && jsonDepthWithin(data)) {
      const m = JSON.parse(data.toString('utf8')) as { id?: unknown };
      return typeof m.id === 'string' || typeof m.id === 'number' ? String(m.id) : undefined;
    }
    const tail = /"id"\s*:\s*(?:"((?:[^"\\]|\\.){0,200})"|(\d{1,20}))\s*}\s*$/.exec(
      data.subarray(-256).toString('latin1'),
    );
    return tail ? (tail[1] ?? tail[2]) : undefined;
  } catch {
    return undefined;
  }
}
