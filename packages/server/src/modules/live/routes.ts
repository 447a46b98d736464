import { CLOSE, LIVE_ERRORS } from '@vss/protocol';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope, ok } from '../../http/envelope.js';
import { emptyDoc, jsonDoc, okResponse } from '../../http/openapi-docs.js';
import { ApiError } from '../../http/errors.js';
import { KEY_OR_USER, KEY_USER_OR_RESTRICTED } from '../../http/principal.js';
import type { LiveService } from './service.js';
import type { SessionHub } from './hub.js';
import type { StreamStore } from '../../streams/store.js';
import { sendError } from './delivery.js';
import { MessageGuard, RATE_PER_S, TOO_MANY_INVALID } from './message-guard.js';
import { serveReplay } from './replay.js';
import { Outranked } from './identity.js';
import { Heartbeat, pauseWhileStorageBehind, socketConnection } from './socket.js';
import { replayReceiving } from './keyframes.js';
import { cheapId, decodeClientMessage } from './wire.js';
import {
  ConnectionRequest,
  ConnectionToken,
  isUserId,
  LiveQuery,
  ParticipantParams,
  Removed,
} from './schemas.js';
import {
  LiveChatPayload,
  LiveClientMessage,
  LiveDirectorCommand,
  LiveRecordedPayload,
  LiveServerMessage,
} from './message-schemas.js';
import type { Ticket } from './service.js';
import { SessionParams } from '../../http/shared-schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    liveTicket?: Ticket;
  }
}

const WS_DESCRIPTION = `Upgrade with \`?session=<id>&access_token=<token>&user_id=<id>\` (token from \`createConnectionToken\`; add \`&format=binary\` to receive media as binary frames). A missing, expired or forged token, a token for another session, or another user_id: 401 before the upgrade; a live token for an ended session: 409; a live token issued before its participant was removed from the session, or a guest's live token whose join link was revoked or has expired since: 403; a restricted key's live token for a \`user_id\` connected with a stronger credential (an API key, a dashboard member, a join link's guest): 409, and the connection in place stays (a restricted key's connection that the stronger one overtakes while it is joining gets an \`error\` \`REPLACED\` and closes with 4409).

Messages are JSON text frames: the client sends \`LiveClientMessage\` (\`publish\`, \`unpublish\`), the server \`LiveServerMessage\` (\`message\`, and \`control\` with the events \`welcome\`, \`join\`, \`leave\`, \`track.published\`, \`track.unpublished\`, \`ack\`, \`error\`, \`end\`, \`recording\`, \`skip\`); \`x-messages\` names their schemas. Media may also travel as binary frames (see the document's description): clients may always send binary publish frames; with \`format=binary\` the server sends media as binary message frames too. Media payloads are one JPEG or one EVC1 chunk (\`EVC1\`, version, flags, uint16 + codec string, uint64 timestamp µs, uint32 duration µs, uint32 + description, data).

Close codes: 1000 normal (and replay finished), 1001 server shutting down (on a graceful stop a \`reconnect\` control comes first: connect again), 1008 too many invalid messages, 1011 server error, 1012 a new connection to a server that is draining (connect again, elsewhere), 1013 too slow a receiver, 4403 removed: the session's host removed the participant (\`removeParticipant\`; a \`removed\` control comes first; do not reconnect), 4409 replaced: a newer connection with the same \`user_id\` joined the session (in any server process; a \`replaced\` control comes first; do not reconnect). One \`user_id\` has one live connection in a session. A replay token plays the recording from \`from_ts\` at \`speed\`, then sends \`end\`. Full protocol: docs/protocol.md in the repository.`;

/** The error code of each refusal before the upgrade. */
const ADMIT_CODES: Record<number, string> = {
  403: 'FORBIDDEN',
  409: 'CONFLICT',
  503: 'USAGE_LIMITS_EXCEEDED',
};

/** What the live routes need. */
export interface LiveRoutesOptions {
  /** seconds between WebSocket pings */
  heartbeatS: number;
  hub: SessionHub;
  live: LiveService;
  /** read by replay connections */
  streams: StreamStore;
}

/**
 * The connection operation and the WebSocket gateway `/ws`, which only translates: the socket
 * adapter, the wire codec and the message guard on one side, the hub on the other.
 */
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
        operationId: 'createConnectionToken',
        summary: 'Get a connection token',
        description:
          "A JWT for `/ws`, valid 300 seconds, for one participant (`user_id`) of the session, live or replay (`replay: true`, with `from_ts`, `speed` 0.25 to 16, `focus`). Live tokens for an ended session: 409. Live tokens for a session that has not started, while the organisation is over its free tier without a subscription: 503 `USAGE_LIMITS_EXCEEDED` (a session under way may still be joined, so that a meeting is never cut off). While it is over its free-tier storage, its media is refused live with `USAGE_LIMITS_EXCEEDED` (chat still recorded). Accepts API keys, restricted keys and the dashboard cookie. Who the token is for: with the dashboard cookie, always the member's own account (`user_id` is their account id, answered in the response; a name they type is only `display_name`, and another `user_id` is refused with 400); with a key, the `user_id` asked for, which never begins with `guest-` (the ids join links give their guests; 400). A restricted key, the credential apps embed, mints only ids beginning with `app-` (its app's own users; 400 otherwise), and its live connection never replaces one made with a stronger credential (an API key, a dashboard member, a join link's guest): `/ws` refuses it with 409 while that one is connected.",
        params: SessionParams,
        body: ConnectionRequest,
        response: { 200: okResponse('A token for `connectLive`, valid 300 seconds.', ConnectionToken) },
      },
    },
    async (request) => ok(await live.connect(request.principal!, request.params.sessionId, request.body)),
  );

  app.post(
    '/v1/sessions/:sessionId/participants/:userId/remove',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags: ['Live'],
        operationId: 'removeParticipant',
        summary: 'Remove a participant from a live session',
        description:
          "Closes every live connection of the participant, in every server process: each gets `control` `removed`, then close code 4403 (final: clients do not reconnect). Their live tokens issued before the removal are refused with 403 at `/ws`; a token issued after it lets them in again (a removal is not a ban: stop issuing tokens, or revoke the join link, to keep someone out). The timeline records `participant.removed`. API keys, the session's creator and the organisation's admins and owner may remove (others: 403). A participant not in the live session: 404, and their live tokens issued before the request are refused all the same (a removal racing the participant's reconnect keeps them out whichever comes first). Their recording so far is kept (see `redactParticipant` to delete it).",
        params: ParticipantParams,
        response: { 200: okResponse('The participant was removed.', Removed) },
      },
    },
    async (request) =>
      ok(await live.remove(request.principal!, request.params.sessionId, request.params.userId)),
  );

  const heartbeat = new Heartbeat(deps.heartbeatS * 1000);
  app.addHook('onClose', async () => heartbeat.stop());

  app.get(
    '/ws',
    {
      websocket: true,
      config: { auth: 'public' },
      schema: {
        tags: ['Live'],
        operationId: 'connectLive',
        summary: 'Live WebSocket',
        description: WS_DESCRIPTION,
        docs: {
          querystring: LiveQuery,
          responses: {
            101: emptyDoc(
              'Switching Protocols: the WebSocket is open. The server sends `LiveServerMessage`s (first a `welcome`), the client `LiveClientMessage`s.',
              { Upgrade: Type.String({ enum: ['websocket'] }) },
            ),
            400: jsonDoc(
              '`format` is neither `json` nor `binary`, `user_id` is not a valid participant id, or a query value holds a control character.',
              ErrorEnvelope,
            ),
            401: jsonDoc(
              'Before the upgrade: a missing, expired, forged or foreign token, or another `user_id`.',
              ErrorEnvelope,
            ),
            404: emptyDoc('A valid request that does not ask for a WebSocket upgrade.'),
            403: jsonDoc(
              "Before the upgrade: a live token issued before its participant was removed from the session (`removeParticipant`), or a guest's live token whose join link was revoked or has expired since it was issued.",
              ErrorEnvelope,
            ),
            409: jsonDoc(
              "Before the upgrade: a live token for a session that has ended, or a restricted key's live token for a `user_id` connected now with a stronger credential (an API key, a dashboard member, a join link's guest), which a restricted key never replaces.",
              ErrorEnvelope,
            ),
            503: jsonDoc(
              'Before the upgrade: `USAGE_LIMITS_EXCEEDED`, a live token for a session that has not started while the organisation is over its free tier without a subscription (a session under way may still be joined).',
              ErrorEnvelope,
            ),
          },
          messages: {
            client: LiveClientMessage,
            server: LiveServerMessage,
            chat: LiveChatPayload,
            director: LiveDirectorCommand,
            recorded: LiveRecordedPayload,
          },
        },
      },
      preValidation: async (request) => {
        const q = request.query as Record<string, string | undefined>;
        if (q.format !== undefined && q.format !== 'json' && q.format !== 'binary')
          throw new ApiError(400, 'BAD_REQUEST', 'query.format must be "json" or "binary"');
        // Tokens are issued only for valid ids; this also turns away one issued before the rule.
        if (q.user_id !== undefined && !isUserId(q.user_id))
          throw new ApiError(400, 'BAD_REQUEST', 'query.user_id has an invalid format');
        const admitted = await live.admit(q);
        if ('problem' in admitted)
          throw new ApiError(
            admitted.status,
            ADMIT_CODES[admitted.status] ?? 'UNAUTHORIZED',
            admitted.problem,
          );
        request.liveTicket = admitted;
      },
    },
    (socket, request) => {
      const ticket = request.liveTicket!;
      const binary = (request.query as Record<string, string>).format === 'binary';
      const liveness = heartbeat.watch(socket);
      const conn = socketConnection(
        socket,
        {
          userId: ticket.claims.sub,
          displayName: ticket.claims.display_name,
          canPublish: ticket.claims.can_publish,
          binary,
          credential: ticket.claims.credential,
          issuedAt: ticket.claims.issued_at,
        },
        hub.stats,
        // A replay has no live publishers: its pacer only paces what the replay sends.
        ticket.claims.mode === 'replay' ? replayReceiving() : hub.receiving(ticket.session.id),
      );
      if (ticket.claims.mode === 'replay') {
        serveReplay({
          socket,
          conn,
          store: deps.streams,
          sessionId: ticket.session.id,
          claims: ticket.claims,
          log: request.log,
        });
        return;
      }

      // A draining server takes no new participants: the client connects again, to another server.
      if (hub.draining) {
        conn.close(CLOSE.SERVICE_RESTART, 'server draining: connect again');
        return;
      }
      // Messages that arrive while the join is still being recorded wait for it, in order. A join
      // that storage refused closes this socket (1011) and nothing else: `joined` never rejects,
      // since nothing may be waiting on it yet and an unhandled rejection would end the process.
      const joined = hub.join(conn, ticket.session, ticket.orgId).then(
        () => true,
        (err: unknown) => {
          if (err instanceof Outranked) {
            sendError(conn, LIVE_ERRORS.REPLACED, err.message);
            socket.close(CLOSE.REPLACED, 'a stronger credential holds this user_id');
            return false;
          }
          request.log.error({ err }, 'join failed');
          socket.close(CLOSE.INTERNAL_ERROR, 'join failed');
          return false;
        },
      );
      const refuse = (code: string, message: string, id?: string) => sendError(conn, code, message, id);
      // Every message is admitted here, on arrival and before anything is parsed: each one takes a
      // token of the connection's rate, and each invalid one is a strike against it.
      const guard = new MessageGuard();
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (!guard.take()) {
          const id = cheapId(data, isBinary);
          void joined
            .then(
              (ok) => ok && refuse(LIVE_ERRORS.RATE_LIMITED, `at most ${RATE_PER_S} messages per second`, id),
            )
            .catch(() => {});
          return;
        }
        void joined
          .then((ok) => {
            if (!ok) return;
            const m = decodeClientMessage(data, isBinary);
            if (m.kind === 'invalid') {
              refuse(m.code, m.message, m.id);
              if (guard.strike()) conn.close(CLOSE.POLICY_VIOLATION, TOO_MANY_INVALID);
              return;
            }
            if (m.kind === 'keyframe') return hub.receiverKeyFrame(conn, m.userId, m.track);
            const handled =
              m.kind === 'unpublish' ? hub.unpublish(conn, m.streamType) : hub.publish(conn, m.msg);
            // Checked once the message's bytes are counted (the hub counts them as it accepts a publish).
            pauseWhileStorageBehind(socket, hub.ingest, guard, liveness, hub.stats);
            return handled;
          })
          .catch(() => {});
      });
      socket.on('close', () => {
        void joined
          .then((ok) => (ok ? hub.leave(conn) : undefined))
          .catch((err) => request.log.error({ err }, 'leave failed'));
      });
    },
  );
};
