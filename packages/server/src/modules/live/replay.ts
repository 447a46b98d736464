import type { StreamStore } from '../../streams/store.js';
import { controlText, messageBinary, messageText } from './frames.js';
import type { LiveConnection } from './connection.js';

/**
 * Plays a recording to one replay connection: every event from `fromTs` in seq order (only the
 * `focus` stream, or that user's media, when given), paced so that recorded time passes `speed`
 * times faster, then `control`/`end`. Reads page by page: memory stays bounded.
 */
export async function playRecording(opts: {
  store: StreamStore;
  conn: LiveConnection;
  sessionId: string;
  fromTs: number;
  speed: number;
  focus: string | null;
  /** true once the socket is gone: stop reading */
  stopped: () => boolean;
}): Promise<void> {
  const { conn, speed, focus } = opts;
  const streams = focus ? (id: string) => id === focus || id.startsWith(`media/${focus}/`) : undefined;
  const started = Date.now();
  let firstTs: number | null = null;
  for await (const e of opts.store.read(opts.sessionId, { fromTs: opts.fromTs, streams })) {
    if (opts.stopped()) return;
    firstTs ??= e.ts;
    const due = started + (e.ts - firstTs) / speed;
    const wait = due - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (opts.stopped()) return;
    const isMedia = e.streamId.startsWith('media/');
    if (isMedia && conn.binary) conn.sendBinary(messageBinary(e.streamId, e.ts, e.seq, e.body));
    else conn.sendText(messageText(e.streamId, e.ts, e.seq, e.body), false);
  }
  if (opts.stopped()) return;
  conn.sendText(
    controlText('end', 'system', Date.now(), { reason: 'replay finished', elapsed_ms: Date.now() - started }),
    false,
  );
}
