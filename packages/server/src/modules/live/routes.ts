import { BINARY_PUBLISH, CLOSE, LIVE_ERRORS, decodeBinaryFrame } from '@vss/client';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { envelope, ok } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { KEY_USER_OR_RESTRICTED } from '../../http/principal.js';
import type { LiveService } from './service.js';
import type { SessionHub } from './hub.js';
import type { StreamStore } from '../../streams/store.js';
import { controlText } from './frames.js';
import type { LiveConnection } from './connection.js';
import type { IncomingPublish } from './publish-rules.js';
import { MessageGuard, RATE_PER_S } from './message-guard.js';
import { MAX_CONTROL_BYTES, MAX_JSON_DEPTH, MAX_MESSAGE_BYTES, jsonDepthWithin } from './wire-limits.js';
import { playRecording } from './replay.js';
import { ConnectionRequest, ConnectionToken } from './schemas.js';
import type { Ticket } from './service.js';
import { SessionParams } from '../../http/shared-schemas.js';

/** Above this many bytes queued to a receiver, its media frames are dropped (chat and control never are). */
export const SOFT_BUFFER_BYTES = 1024 * 1024;
/** A receiver that stays above this many queued bytes for HARD_BUFFER_MS is closed with 1013. */
export const HARD_BUFFER_BYTES = 8 * 1024 * 1024;
const HARD_BUFFER_MS = 5000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

declare module 'fastify' {
  interface FastifyRequest {
    liveTicket?: Ticket;
  }
}

/** What the live routes need. */
export interface LiveRoutesOptions {
  /** seconds between WebSocket pings */
  heartbeatS: number;
  hub: SessionHub;
  live: LiveService;
  /** read by replay connections */
  streams: StreamStore;
}

/** The connection operation (interface §4.4) and the WebSocket gateway `/ws` (interface §4.5, decisions §6). */
export const liveRoutes: FastifyPluginAsyncTypebox<LiveRoutesOptions> = async (app, deps) => {
  // Registered here, not on the app: the plugin's hooks then run for these routes only.
  // Media is already compressed: per-message deflate would cost CPU for nothing.
  await app.register(websocket, {
    options: { maxPayload: 16 * 1024 * 1024, perMessageDeflate: false },
    // On shutdown every client is told why (1001, as docs/protocol.md says; the plugin's own close
    // sends no code). A socket paused for storage reads nothing, not even the answer to a close:
    // it is resumed first, or the shutdown would wait out ws's 30 s close timeout.
    preClose(done) {
      for (const client of this.websocketServer.clients) {
        client.resume();
        client.close(CLOSE.GOING_AWAY, 'server shutting down');
      }
      this.websocketServer.close();
      done();
    },
  });
  deps.hub.attachSockets(() => app.websocketServer.clients);
  const { hub } = deps;
  const { live } = deps;

  app.post(
    '/v1/sessions/:sessionId/connection',
    {
      config: { auth: KEY_USER_OR_RESTRICTED },
      schema: {
        tags: ['Live'],
        summary: 'Get a connection token',
        description:
          'A JWT for `/ws`, valid 300 seconds, for one participant (`user_id`) of the session, live or replay (`replay: true`, with `from_ts`, `speed` 0.25 to 16, `focus`). Live tokens for an ended session: 409. Accepts API keys, restricted keys and the dashboard cookie.',
        params: SessionParams,
        body: ConnectionRequest,
        response: { 200: envelope(ConnectionToken) },
      },
    },
    async (request) => ok(await live.connect(request.principal!, request.params.sessionId, request.body)),
  );

  const sockets = new Map<WebSocket, { alive: boolean }>();
  const heartbeat = setInterval(() => {
    // A connection that did not answer the previous ping is dead: its TCP peer vanished.
    for (const [socket, state] of sockets) {
      // A socket paused for storage to catch up cannot read its pong: not a sign of a dead peer.
      if (socket.isPaused) continue;
      if (!state.alive) {
        socket.terminate();
        continue;
      }
      state.alive = false;
      socket.ping();
    }
  }, deps.heartbeatS * 1000);
  heartbeat.unref();
  app.addHook('onClose', async () => clearInterval(heartbeat));

  app.get(
    '/ws',
    {
      websocket: true,
      config: { auth: 'public' },
      schema: {
        tags: ['Live'],
        summary: 'Live WebSocket',
        description:
          'Upgrade with `?session=<id>&access_token=<token>&user_id=<id>` (and `&format=binary` to receive media as binary frames). A missing, expired or forged token, a token for another session, or another user_id: 401 before the upgrade; a live token for an ended session: 409. Protocol: see docs/protocol.md.',
      },
      preValidation: async (request) => {
        const q = request.query as Record<string, string | undefined>;
        if (q.format !== undefined && q.format !== 'json' && q.format !== 'binary')
          throw new ApiError(400, 'BAD_REQUEST', 'query.format must be "json" or "binary"');
        const admitted = await live.admit(q);
        if ('problem' in admitted)
          throw new ApiError(
            admitted.status,
            admitted.status === 409 ? 'CONFLICT' : 'UNAUTHORIZED',
            admitted.problem,
          );
        request.liveTicket = admitted;
      },
    },
    (socket, request) => {
      const ticket = request.liveTicket!;
      const binary = (request.query as Record<string, string>).format === 'binary';
      const state = { alive: true };
      sockets.set(socket, state);
      socket.on('pong', () => (state.alive = true));

      let overSince: number | null = null;
      // `queued` is the socket's bufferedAmount read once per delivery (a getter that sums the
      // socket's write queue): the hard limit then lags by the one message just sent, at most.
      const pressure = (queued: number) => {
        if (queued <= HARD_BUFFER_BYTES) {
          overSince = null;
          return;
        }
        overSince ??= Date.now();
        if (Date.now() - overSince > HARD_BUFFER_MS) {
          socket.resume(); // to read the client's answer to the close
          socket.close(CLOSE.TRY_AGAIN_LATER, 'receiver too slow');
        }
      };
      const conn: LiveConnection = {
        id: newId(),
        userId: ticket.claims.sub,
        binary,
        sendText(text, droppable) {
          if (socket.readyState !== socket.OPEN) return;
          const queued = socket.bufferedAmount;
          if (droppable && queued > SOFT_BUFFER_BYTES) {
            hub.stats.dropped += 1;
            return pressure(queued);
          }
          socket.send(text, { binary: false });
          pressure(queued);
        },
        sendBinary(data) {
          if (socket.readyState !== socket.OPEN) return;
          const queued = socket.bufferedAmount;
          if (queued > SOFT_BUFFER_BYTES) {
            hub.stats.dropped += 1;
            return pressure(queued);
          }
          socket.send(data);
          pressure(queued);
        },
        close: (code, reason) => {
          socket.resume(); // to read the client's answer to the close
          socket.close(code, reason);
        },
      };

      if (ticket.claims.mode === 'replay') {
        let stopped = false;
        socket.on('close', () => {
          stopped = true;
          sockets.delete(socket);
        });
        const guard = new MessageGuard();
        socket.on('message', () => {
          if (!guard.take()) return;
          conn.sendText(
            controlText('error', conn.userId, Date.now(), {
              code: LIVE_ERRORS.REPLAY_ONLY,
              message: 'replay connections cannot publish',
            }),
            false,
          );
          if (guard.strike()) conn.close(CLOSE.POLICY_VIOLATION, TOO_MANY_INVALID);
        });
        conn.sendText(
          controlText('welcome', conn.userId, Date.now(), {
            session_id: ticket.session.id,
            user_id: conn.userId,
            mode: 'replay',
            participants: [],
          }),
          false,
        );
        void playRecording({
          store: deps.streams,
          conn,
          sessionId: ticket.session.id,
          fromTs: ticket.claims.from_ts ?? 0,
          speed: ticket.claims.speed,
          focus: ticket.claims.focus,
          stopped: () => stopped,
        })
          .then(() => !stopped && socket.close(CLOSE.NORMAL, 'replay finished'))
          .catch((err) => {
            request.log.error({ err }, 'replay failed');
            socket.close(1011, 'replay failed');
          });
        return;
      }

      // Messages that arrive while the join is still being recorded wait for it, in order.
      const joined = hub.join(conn, ticket.session, ticket.orgId).catch((err) => {
        request.log.error({ err }, 'join failed');
        socket.close(1011, 'join failed');
        throw err;
      });
      // More received media waits for the stream store than its budget allows: read nothing more
      // from this client until the store has caught up. TCP holds the rest at the sender, so a
      // server that cannot record as fast as it is sent slows its publishers down instead of
      // growing without bound. Checked once the message's bytes are counted (the hub counts them
      // as it accepts the publish, before its first await).
      const backpressure = () => {
        if (socket.isPaused || socket.readyState !== socket.OPEN) return;
        const room = hub.ingest.room();
        if (!room) return;
        socket.pause();
        const pausedAt = Date.now();
        hub.stats.pauses += 1;
        void room.then(() => {
          guard.creditPause(Date.now() - pausedAt);
          // Any ping sent before the pause was answered into a socket that was not read.
          state.alive = true;
          socket.resume();
        });
      };
      // Every message is admitted here, on arrival and before anything is parsed: each one takes a
      // token of the connection's rate, and each invalid one is a strike against it.
      const guard = new MessageGuard();
      const invalid = () => {
        if (guard.strike()) conn.close(CLOSE.POLICY_VIOLATION, TOO_MANY_INVALID);
      };
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (!guard.take()) {
          void joined
            .then(() =>
              refuse(
                conn,
                LIVE_ERRORS.RATE_LIMITED,
                `at most ${RATE_PER_S} messages per second`,
                cheapId(data, isBinary),
              ),
            )
            .catch(() => {});
          return;
        }
        void joined
          .then(() => {
            const handled = handle(conn, data, isBinary);
            if (handled === INVALID) return invalid();
            backpressure();
            return handled;
          })
          .catch(() => {});
      });
      socket.on('close', () => {
        sockets.delete(socket);
        void joined.then(() => hub.leave(conn)).catch((err) => request.log.error({ err }, 'leave failed'));
      });
    },
  );

  const refuse = (conn: LiveConnection, code: string, message: string, id?: string): typeof INVALID => {
    conn.sendText(
      controlText('error', conn.userId, Date.now(), { code, message, ...(id !== undefined ? { id } : {}) }),
      false,
    );
    return INVALID;
  };

  /** A non-media message over MAX_CONTROL_BYTES: refused, whatever it is. */
  const tooLargeForControl = (conn: LiveConnection, id?: string): typeof INVALID =>
    refuse(
      conn,
      LIVE_ERRORS.TOO_LARGE,
      `messages other than media publishes are limited to ${MAX_CONTROL_BYTES} bytes`,
      id,
    );

  /**
   * Parses one client message (JSON or binary) and hands it to the hub. Returns INVALID when it
   * refused the message as malformed or oversized (the caller counts a strike).
   */
  function handle(
    conn: LiveConnection,
    data: Buffer,
    isBinary: boolean,
  ): Promise<void> | void | typeof INVALID {
    // Too large: refused, with the publisher's id when it can be read cheaply.
    if (data.length > MAX_MESSAGE_BYTES)
      return refuse(
        conn,
        LIVE_ERRORS.TOO_LARGE,
        `messages are limited to ${MAX_MESSAGE_BYTES} bytes`,
        cheapId(data, isBinary),
      );
    if (isBinary) {
      let frame;
      try {
        frame = decodeBinaryFrame(data);
      } catch (err) {
        return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, (err as Error).message);
      }
      if (frame.kind !== BINARY_PUBLISH)
        return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, 'clients send binary publish frames (kind 1)');
      if (!frame.streamType.startsWith('media/') && data.length > MAX_CONTROL_BYTES)
        return tooLargeForControl(conn, frame.id);
      const msg: IncomingPublish = {
        streamType: frame.streamType,
        timestampMs: frame.timestampMs,
        payload: Buffer.from(frame.payload.buffer, frame.payload.byteOffset, frame.payload.byteLength),
        wireBytes: data.length,
        ...(frame.id !== undefined ? { id: frame.id } : {}),
      };
      return hub.publish(conn, msg);
    }
    if (!jsonDepthWithin(data))
      return refuse(
        conn,
        LIVE_ERRORS.BAD_MESSAGE,
        `JSON messages nest at most ${MAX_JSON_DEPTH} levels deep`,
      );
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error();
    } catch {
      return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, 'messages are JSON objects');
    }
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? String(m.id) : undefined;
    const media = typeof m.stream_type === 'string' && m.stream_type.startsWith('media/');
    if (data.length > MAX_CONTROL_BYTES && !(m.type === 'publish' && media))
      return tooLargeForControl(conn, id);
    if (m.type === 'unpublish' && typeof m.stream_type === 'string')
      return hub.unpublish(conn, m.stream_type);
    if (m.type !== 'publish')
      return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, 'type must be "publish" or "unpublish"', id);
    if (typeof m.stream_type !== 'string')
      return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, 'stream_type must be a string', id);
    if (typeof m.body !== 'string' || !BASE64.test(m.body))
      return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, 'body must be base64', id);
    if (
      m.timestamp_ms !== undefined &&
      (typeof m.timestamp_ms !== 'number' || !Number.isSafeInteger(m.timestamp_ms))
    )
      return refuse(conn, LIVE_ERRORS.BAD_MESSAGE, 'timestamp_ms must be an integer', id);
    return hub.publish(conn, {
      streamType: m.stream_type,
      payload: Buffer.from(m.body, 'base64'),
      wireBytes: data.length,
      ...(m.timestamp_ms !== undefined ? { timestampMs: m.timestamp_ms as number } : {}),
      ...(id !== undefined ? { id } : {}),
    });
  }
};

/** What `handle` answers for a message it refused as malformed or oversized. */
const INVALID: unique symbol = Symbol('invalid message');
const TOO_MANY_INVALID = 'too many invalid messages';

/**
 * The client id of a message, when it can be read without parsing the whole message: a binary
 * frame's header, a small JSON message, or an `"id"` member near the end of a large one (where the
 * client library puts it, after the body).
 */
function cheapId(data: Buffer, isBinary: boolean): string | undefined {
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
