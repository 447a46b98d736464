import type { FanoutMessage } from '../../bus/fanout.js';
import { controlText, messageBinary, messageText } from './frames.js';
import type { LiveConnection } from './connection.js';

/** Sends one connection a control message of its own (an ack, an error, its welcome). */
export function sendControl(
  conn: LiveConnection,
  event: string,
  userId: string,
  data: Record<string, unknown>,
): void {
  conn.sendText(controlText(event, userId, Date.now(), data), false);
}

/** Refuses a message: an `error` control to its sender, with the message's `id` when it had one. */
export function sendError(conn: LiveConnection, code: string, message: string, id?: string): void {
  sendControl(conn, 'error', conn.userId, { code, message, ...(id !== undefined ? { id } : {}) });
}

/**
 * Delivers a message to this process's connections of a session, except its sender. Each
 * representation (JSON text, binary frame) is built at most once and the same bytes go to every
 * receiver: nothing per receiver but the send. The text is encoded to UTF-8 once here: handed a
 * string, ws would encode it again for each receiver.
 */
export function deliver(members: Iterable<{ conn: LiveConnection }>, m: FanoutMessage): void {
  let text: Buffer | undefined;
  let binary: Buffer | undefined;
  const isMedia = m.kind === 'message' && m.streamType!.startsWith('media/');
  for (const { conn } of members) {
    if (conn.id === m.fromConn) continue;
    if (isMedia && conn.binary) {
      binary ??= binaryMessage(m);
      conn.sendBinary(binary);
    } else {
      text ??= Buffer.from(textFrame(m), 'utf8');
      conn.sendText(text, isMedia);
    }
  }
}

function textFrame(m: FanoutMessage): string {
  if (m.kind === 'control') return controlText(m.event!, m.userId!, m.timestampMs, m.data ?? {});
  return messageText(m.streamType!, m.timestampMs, m.seq!, m.payload!);
}

function binaryMessage(m: FanoutMessage): Buffer {
  return messageBinary(m.streamType!, m.timestampMs, m.seq ?? 0, m.payload!);
}
