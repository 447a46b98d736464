import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { RouteAuth } from './principal.js';

const DESCRIPTION = `
The vss REST interface. Every JSON answer is an envelope: \`{ "data": …, "error": null }\` on
success, \`{ "data": null, "error": { "code", "message" } }\` on failure, where \`message\` names the
offending field. Codes: BAD_REQUEST 400, UNAUTHORIZED 401, FORBIDDEN 403, NOT_FOUND 404,
METHOD_NOT_ALLOWED 405, CONFLICT 409, PAYLOAD_TOO_LARGE 413, UNSUPPORTED_MEDIA_TYPE 415,
RATE_LIMITED 429, SERVER_ERROR 500, USAGE_LIMITS_EXCEEDED 503.

**Credentials.** API keys (\`sk_live_…\`) as \`Authorization: Bearer\` or \`X-API-Key\`; restricted keys
(\`rk_live_…\`) only on session create, connection and manifest (403 elsewhere); the dashboard cookie
\`service_session\` wherever an API key is accepted, with same-origin and JSON-body checks on writes
(403 otherwise). Resources of another organisation or project answer 404, never 403.

**Request bodies** are JSON (at most 1 MiB). Unknown fields are refused with 400 naming the field,
so that a misspelt field never passes silently. Timestamps are ISO 8601 UTC with milliseconds.

**Lists** take \`limit\` (1–200, default 50) and \`cursor\`; the next page is announced in a
\`Link: <…>; rel="next"\` header and the body stays a plain array.

**Idempotency.** Creating POSTs honour \`Idempotency-Key\` (1–255 characters), scoped to the credential,
method and path, kept 24 hours. A retry with the same body replays the first answer with
\`Idempotent-Replayed: true\`; another body, or a retry while the first still runs, answers 409.
Only successful answers are kept.

**Rate limits** are counted per credential (per client address without one), per minute, with
\`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` on every answer and \`Retry-After\` on 429.

**Live WebSocket** (not an HTTP operation, so described here). Get a token with
\`POST /v1/sessions/{id}/connection\`, then upgrade \`GET /ws?session={id}&access_token={token}&user_id={user}\`
(add \`&format=binary\` to receive media as binary frames). A bad, expired or foreign token, or another
user_id: 401 before the upgrade; a live token for an ended session: 409. Server to client:
\`{ type: "message", stream_type, timestamp_ms, body (base64), seq }\` and
\`{ type: "control", event, user_id, timestamp_ms, data }\` with event \`welcome\`, \`join\`, \`leave\`,
\`track.published\`, \`track.unpublished\`, \`ack\` (\`{ id, seq }\` once durably written), \`end\`, \`error\`
(\`{ code, message, id? }\`). Client to server: \`{ type: "publish", stream_type, timestamp_ms?, body, id? }\`
(\`media/<own user_id>/cam|mic|screen\`, \`chat\`, \`director\`) and \`{ type: "unpublish", stream_type }\`.
Messages are at most 2 MiB. Binary frames (media, both directions), big-endian: \`0x56\`, kind
(1 publish, 2 message), uint8 N, N bytes stream type, uint64 timestamp_ms, then for publish uint8 M and
M bytes id (0: no ack), for message uint64 seq, then the payload. Media payloads are one JPEG or one
EVC1 chunk (\`EVC1\`, version, flags, uint16 + codec string, uint64 timestamp µs, uint32 duration µs,
uint32 + description, data). Full protocol: docs/protocol.md in the repository.
`;

const SECURITY: Record<string, string[]> = {
  api_key: ['bearerKey', 'headerKey'],
  restricted_key: ['bearerKey'],
  user: ['sessionCookie'],
};

/** Registers the generated OpenAPI 3.1 document (`/v1/openapi.json`) and the reference UI (`/docs`). */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'vss', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'sk_live_ API key or rk_live_ restricted key',
          },
          headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'service_session' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth as RouteAuth | undefined;
      const out = { ...(schema ?? {}) } as Record<string, unknown>;
      if (auth && auth !== 'public') {
        const names = [...new Set(auth.accept.flatMap((k) => SECURITY[k] ?? []))];
        out.security = names.map((n) => ({ [n]: [] }));
      } else if (auth === 'public') out.security = [];
      if (route.config?.idempotent) {
        out.headers = {
          type: 'object',
          properties: {
            'idempotency-key': {
              type: 'string',
              minLength: 1,
              maxLength: 255,
              description: 'see Idempotency',
            },
          },
        };
      }
      return { schema: out, url };
    },
  });

  app.get('/v1/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
}
