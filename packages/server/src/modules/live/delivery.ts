import { isEvc1, parseMediaStream, type ControlEvent, type Layer } from '@vss/protocol';
import type { FanoutControl, FanoutMedia } from '../../bus/fanout.js';
import type { LayerRates, MediaInfo } from './layers.js';
import { controlText, messageBinary, messageText } from './frames.js';
import type { LiveConnection } from './connection.js';

/** Sends one connection a control message of its own (an ack, an error, its welcome). */
export function sendControl(
  conn: LiveConnection,
  event: ControlEvent,
  userId: string,
  data: Record<string, unknown>,
): void {
  conn.sendText(controlText(event, userId, Date.now(), data));
}

/** Refuses a message: an `error` control to its sender, with the message's `id` when it had one. */
export function sendError(conn: LiveConnection, code: string, message: string, id?: string): void {
  sendControl(conn, 'error', conn.userId, { code, message, ...(id !== undefined ? { id } : {}) });
}

/**
 * Delivers a message to this process's connections of a session, except its sender. Each
 * representation (JSON text, binary frame) is built at most once and the same bytes go to every
 * receiver: nothing per receiver but the send, and for media its pacer's choice (the layer it
 * gets, whether its link has room). The text is encoded to UTF-8 once here: handed a string, ws
 * would encode it again for each receiver.
 */
export function deliver(
  members: Iterable<{ conn: LiveConnection }>,
  m: FanoutMedia | FanoutControl,
  rates?: LayerRates,
): void {
  let text: Buffer | undefined;
  let binary: Buffer | undefined;
  const media = m.kind === 'message' ? m : undefined;
  const info = media ? mediaInfo(media) : null;
  if (media && info && !info.audio)
    rates?.saw(info.track, info.layer, media.payload.length, Date.now(), info.key);
  const build = (asBinary: boolean) =>
    asBinary && media ? (binary ??= binaryMessage(media)) : (text ??= Buffer.from(textFrame(m), 'utf8'));
  for (const { conn } of members) {
    if (conn.id === m.fromConn) continue;
    if (info) conn.sendMedia(info, build);
    else conn.sendText(build(false));
  }
}

/** What receivers need to know of a media message: whose track, which layer, a key frame or not. */
function mediaInfo(m: FanoutMedia): MediaInfo | null {
  const media = parseMediaStream(m.streamType);
  if (!media) return null;
  const payload = m.payload;
  const audio = media.kind === 'mic';
  // EVC1 flags bit 0 (docs/protocol.md §5); a JPEG picture stands alone.
  const key = audio || (isEvc1(payload) ? payload.length > 5 && (payload[5]! & 1) === 1 : true);
  return {
    track: `${media.userId}/${media.kind}`,
    publisher: media.userId,
    kind: media.kind,
    layer: (m.layer ?? 0) as Layer,
    key,
    audio,
    ts: m.timestampMs,
  };
}

function textFrame(m: FanoutMedia | FanoutControl): string {
  if (m.kind === 'control') return controlText(m.event, m.userId, m.timestampMs, m.data);
  return messageText(m.streamType, m.timestampMs, m.seq ?? 0, m.payload);
}

function binaryMessage(m: FanoutMedia): Buffer {
  return messageBinary(m.streamType, m.timestampMs, m.seq ?? 0, m.payload);
}
