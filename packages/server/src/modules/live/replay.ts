import { CLOSE, LIVE_ERRORS } from '@vss/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { StreamStore } from '../../streams/store.js';
import type { LiveConnection } from './connection.js';
import { sendControl } from './delivery.js';
import { controlText, messageBinary, messageText } from './frames.js';
import { cutClock, pausedSpans, type Span } from '../../lib/recording.js';
import { MessageGuard, TOO_MANY_INVALID } from './message-guard.js';

/**
 * Plays a recording to one replay connection: every event from `fromTs` in seq order (only the
 * `focus` stream, or that user's media, when given), paced so that recorded time passes `speed`
 * times faster, then `control`/`end`. A span in which recording was paused takes no time: a
 * `control` `skip` `{ from_ts, to_ts }` says where it jumps. Reads page by page: memory stays bounded.
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
  const paused = await pausedSpansOf(opts.store, opts.sessionId);
  const clock = cutClock(paused);
  const started = Date.now();
  let firstTs: number | null = null;
  let lastTs = -Infinity;
  for await (const e of opts.store.read(opts.sessionId, { fromTs: opts.fromTs, streams })) {
    if (opts.stopped()) return;
    firstTs ??= e.ts;
    // Paused spans take no time: the player is told where the recording jumps.
    for (const span of paused)
      if (span.start >= lastTs && span.start < e.ts && lastTs > -Infinity)
        sendControl(conn, 'skip', 'system', {
          from_ts: span.start,
          to_ts: span.end ?? e.ts,
          reason: 'paused',
        });
    lastTs = e.ts;
    const due = started + (clock(e.ts) - clock(firstTs)) / speed;
    const wait = due - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (opts.stopped()) return;
    const isMedia = e.streamId.startsWith('media/');
    if (isMedia && conn.binary) conn.sendBinary(messageBinary(e.streamId, e.ts, e.seq, e.body));
    else conn.sendText(messageText(e.streamId, e.ts, e.seq, e.body));
  }
  if (opts.stopped()) return;
  conn.sendText(
    controlText('end', 'system', Date.now(), { reason: 'replay finished', elapsed_ms: Date.now() - started }),
  );
}

/** The paused spans of a recording, from its timeline. */
async function pausedSpansOf(store: StreamStore, sessionId: string): Promise<Span[]> {
  const events: Array<{ type: string; ts: number }> = [];
  for await (const e of store.read(sessionId, { streamId: 'events' })) {
    const type = (JSON.parse(e.body.toString('utf8')) as { type?: string }).type ?? '';
    if (type.startsWith('recording.')) events.push({ type, ts: e.ts });
  }
  return pausedSpans(events);
}

/**
 * Serves a replay-mode connection: its welcome, then the recording, then a close (1000 when it
 * was played to the end, 1011 when it could not be read). Whatever the client sends is refused
 * (`REPLAY_ONLY`), at the rate every connection is held to; one that keeps sending is closed with
 * 1008.
 */
export function serveReplay(opts: {
  socket: WebSocket;
  conn: LiveConnection;
  store: StreamStore;
  sessionId: string;
  claims: { from_ts: number | null; speed: number; focus: string | null };
  log: FastifyBaseLogger;
}): void {
  const { socket, conn } = opts;
  let stopped = false;
  socket.on('close', () => (stopped = true));
  const guard = new MessageGuard();
  socket.on('message', () => {
    if (!guard.take()) return;
    sendControl(conn, 'error', conn.userId, {
      code: LIVE_ERRORS.REPLAY_ONLY,
      message: 'replay connections cannot publish',
    });
    if (guard.strike()) conn.close(CLOSE.POLICY_VIOLATION, TOO_MANY_INVALID);
  });
  sendControl(conn, 'welcome', conn.userId, {
    session_id: opts.sessionId,
    user_id: conn.userId,
    mode: 'replay',
    participants: [],
  });
  void playRecording({
    store: opts.store,
    conn,
    sessionId: opts.sessionId,
    fromTs: opts.claims.from_ts ?? 0,
    speed: opts.claims.speed,
    focus: opts.claims.focus,
    stopped: () => stopped,
  })
    .then(() => !stopped && socket.close(CLOSE.NORMAL, 'replay finished'))
    .catch((err) => {
      opts.log.error({ err }, 'replay failed');
      socket.close(CLOSE.INTERNAL_ERROR, 'replay failed');
    });
}
