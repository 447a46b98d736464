import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Config } from '../config.js';
import { CONTROL_CHARACTER_RULE } from './control-characters.js';
import { ErrorBody, ErrorEnvelope } from './envelope.js';
import { PAGE_SECURITY_HEADERS } from './html-page.js';
import {
  hoistNamedSchemas,
  requestBodiesAsComponents,
  operations,
  unresolvedRefs,
} from './openapi-components.js';
import type { DocResponse, WebhookDoc } from './openapi-docs.js';
import type { RouteAuth } from './principal.js';
import { Deleted, RoleSchema } from './shared-schemas.js';
import { validatorCompiler } from './validation.js';

const DESCRIPTION = `
The vss REST interface. Every JSON answer is an envelope: \`{ "data": …, "error": null }\` on
success, \`{ "data": null, "error": { "code", "message" } }\` on failure, where \`message\` names the
offending field. Codes: BAD_REQUEST 400, UNAUTHORIZED 401, FORBIDDEN 403, NOT_FOUND 404,
METHOD_NOT_ALLOWED 405, CONFLICT 409, PAYLOAD_TOO_LARGE 413, UNSUPPORTED_MEDIA_TYPE 415,
RATE_LIMITED 429, SERVER_ERROR 500, USAGE_LIMITS_EXCEEDED 503, SERVICE_UNAVAILABLE 503 (Redis, which
several processes share, cannot be reached: \`message\` begins \`redis unavailable\`, nothing was
changed, \`Retry-After\` says when to try again; only what needs Redis, such as a change written to a
live session's timeline, answers it, and rate limits are then counted by each process on its own).
The few answers that are not the envelope (health, the MP4 download, HTML pages, OAuth and MCP, which follow their own standards)
say so on their operation.
Every JSON body ends with one newline (\`\\n\`, counted in \`Content-Length\`), so that answers printed one
after another, as by \`curl\` in a shell, start on lines of their own; only MCP's answers, written as
its SDK writes them, do not.

**Credentials.** API keys (\`sk_live_…\`) as \`Authorization: Bearer\` or \`X-API-Key\`; restricted keys
(\`rk_live_…\`) only on session create, connection and manifest (403 elsewhere); the dashboard cookie
\`service_session\` wherever an API key is accepted, with same-origin and JSON-body checks on writes
(403 otherwise). Resources of another organisation or project answer 404, never 403.

**Request bodies** are JSON (at most 1 MiB). Unknown fields are refused with 400 naming the field,
so that a misspelt field never passes silently. Timestamps are ISO 8601 UTC with milliseconds.

${CONTROL_CHARACTER_RULE}

**Lists** take \`limit\` (1–200, default 50) and \`cursor\`; the next page is announced in a
\`Link: <…>; rel="next"\` header and the body stays a plain array.

**Idempotency.** Creating POSTs honour \`Idempotency-Key\` (1–255 characters), scoped to the credential,
method and path, kept 24 hours. A retry with the same body replays the first answer with
\`Idempotent-Replayed: true\`; another body, or a retry while the first still runs, answers 409.
Only successful answers are kept.

**Rate limits** are counted per credential (per client address without one), per minute, with
\`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` on every answer and \`Retry-After\` on 429.

**Connections** are capped in all (\`MAX_CONNECTIONS\`, default 10,000) and per client address
(\`MAX_CONNECTIONS_PER_ADDRESS\`, default 256); a connection past either is closed at once, without
an answer. A request's head must arrive within 20 s (408 otherwise) and the whole request within 60 s.

**Live WebSocket.** The \`connectLive\` operation documents the upgrade
(\`GET /ws?session={id}&access_token={token}&user_id={user}\`, token from \`createConnectionToken\`) and
its JSON messages (schemas \`LiveClientMessage\` and \`LiveServerMessage\`). Media may also travel as
binary frames, big-endian: \`0x56\`, kind (1 publish, 2 message), uint8 N, N bytes stream type,
uint64 timestamp_ms, then for publish uint8 M and M bytes id (0: no ack), for message uint64 seq,
then the payload. Full protocol: docs/protocol.md in the repository.

**Webhooks.** The \`webhooks\` section lists every event a webhook may subscribe to, with the exact
body and the signature headers of its delivery. \`createWebhook\` describes delivery and retries.
`;

const SECURITY: Record<string, string[]> = {
  api_key: ['bearerKey', 'headerKey'],
  restricted_key: ['bearerKey'],
  user: ['sessionCookie'],
};

/** Shapes of this folder that the document names (the modules title their own). */
const NAMED = new Map<object, string>([
  [ErrorEnvelope, 'ErrorEnvelope'],
  [ErrorBody, 'Error'],
  [Deleted, 'Deleted'],
  [RoleSchema, 'Role'],
]);

/** A deep copy of a route schema, with the shared shapes titled so that they become components. */
function withNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withNames);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withNames(v);
  const name = NAMED.get(value);
  if (name) out.title = name;
  return out;
}

/** A TypeBox schema as plain JSON (no symbols), for the parts of the document the generator never sees. */
const plain = (schema: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(withNames(schema))) as Record<string, unknown>;

/** The OpenAPI response object of a documented answer. */
function responseObject(doc: DocResponse): Record<string, unknown> {
  const out: Record<string, unknown> = { description: doc.description };
  if (doc.headers)
    out.headers = Object.fromEntries(
      Object.entries(doc.headers).map(([name, h]) => {
        const { description, ...schema } = plain(h);
        return [name, { ...(description ? { description } : {}), schema }];
      }),
    );
  if (doc.content && doc.type !== 'null')
    out.content = Object.fromEntries(
      Object.entries(doc.content).map(([type, media]) => [type, { schema: plain(media.schema) }]),
    );
  return out;
}

/** The `webhooks` entry of one event: the POST the service makes to a subscribed receiver. */
function webhookItem(w: WebhookDoc): Record<string, unknown> {
  const headers = plain(w.headers) as { properties: Record<string, Record<string, unknown>> };
  return {
    post: {
      operationId: w.operationId,
      summary: w.summary,
      description: w.description,
      tags: ['Webhooks'],
      security: [],
      parameters: Object.entries(headers.properties).map(([name, s]) => {
        const { description, ...schema } = s;
        return { in: 'header', name, required: true, description, schema };
      }),
      requestBody: { required: true, content: { 'application/json': { schema: plain(w.body) } } },
      responses: Object.fromEntries(Object.entries(w.responses).map(([c, r]) => [c, responseObject(r)])),
    },
  };
}

const LINK_HEADER = {
  description:
    'present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor',
  schema: { type: 'string' },
};
const REPLAYED_HEADER = {
  description: '`true` when this answer replays the first one of a retry with the same `Idempotency-Key`',
  schema: { type: 'string', enum: ['true'] },
};

/** The answers every failing operation shares, referenced rather than repeated. */
const ERROR_RESPONSES = {
  ClientError: {
    description:
      "Refused: the error envelope. `code` names the reason (BAD_REQUEST 400, UNAUTHORIZED 401, FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409, RATE_LIMITED 429, …: the list is in the document's description) and `message` the offending field; the operation's description says which apply.",
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  },
  ServerError: {
    description:
      'Failed on the server (SERVER_ERROR 500), or refused because the organisation is over its free tier without a subscription (USAGE_LIMITS_EXCEEDED 503, on session creation and export only), or because Redis cannot be reached for what needs it (SERVICE_UNAVAILABLE 503, with `Retry-After`): the error envelope.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  },
};

type Json = Record<string, unknown>;

/**
 * Fixes what the generator gets wrong or leaves out, over the whole document: parameters with a
 * default are optional (Ajv fills the default in), and so are body fields with one; a body whose every field is optional is too,
 * lists announce their `Link` header, idempotent operations their replay header; then the webhooks
 * and the named components, and the checks that no operation id is used twice and no `$ref`
 * dangles.
 */
function finish(doc: Json, webhooks: Map<string, WebhookDoc>): Json {
  for (const { op } of operations(doc)) {
    const params = (op.parameters as Json[] | undefined) ?? [];
    for (const p of params)
      if (p.in !== 'path' && (p.schema as Json | undefined)?.default !== undefined) p.required = false;
    const body = op.requestBody as Json | undefined;
    if (body && op['x-body-optional']) body.required = false;
    // A body field with a default may be left out (Ajv fills the default in): not required either.
    for (const media of Object.values((body?.content as Record<string, Json> | undefined) ?? {})) {
      const schema = media.schema as Json | undefined;
      const props = schema?.properties as Record<string, Json> | undefined;
      if (!schema || !props || !Array.isArray(schema.required)) continue;
      const required = (schema.required as string[]).filter((k) => props[k]?.default === undefined);
      if (required.length !== schema.required.length) media.schema = { ...schema, required };
    }
    delete op['x-body-optional'];
    const responses = op.responses as Record<string, Json>;
    const success = Object.entries(responses).filter(([code]) => /^2\d\d$/.test(code));
    const paged = params.some((p) => p.in === 'query' && p.name === 'cursor');
    const idempotent = params.some((p) => p.in === 'header' && p.name === 'idempotency-key');
    for (const [, r] of success) {
      // The description already says what the answer is; the envelope repeating it is noise.
      for (const media of Object.values((r.content as Record<string, Json> | undefined) ?? {})) {
        const schema = media.schema as Json | undefined;
        if (schema && schema.description === r.description) delete schema.description;
      }
      if (paged || idempotent) {
        const headers = ((r.headers as Json | undefined) ?? {}) as Json;
        if (paged) headers.Link = LINK_HEADER;
        if (idempotent) headers['Idempotent-Replayed'] = REPLAYED_HEADER;
        r.headers = headers;
      }
    }
  }

  doc.webhooks = Object.fromEntries([...webhooks].map(([type, w]) => [type, webhookItem(w)]));
  hoistNamedSchemas(doc);
  requestBodiesAsComponents(doc);

  const components = doc.components as Json;
  components.responses = { ...ERROR_RESPONSES };
  const errorRef = `#/components/schemas/ErrorEnvelope`;
  for (const { op } of operations(doc)) {
    const responses = op.responses as Record<string, Json>;
    for (const [code, name] of [
      ['4XX', 'ClientError'],
      ['5XX', 'ServerError'],
    ] as const) {
      const r = responses[code];
      const schema = (r?.content as Record<string, Json> | undefined)?.['application/json']?.schema as
        Json | undefined;
      if (schema?.$ref === errorRef) responses[code] = { $ref: `#/components/responses/${name}` };
    }
  }

  const seen = new Map<string, string>();
  for (const { where, op } of operations(doc)) {
    const id = op.operationId as string;
    const other = seen.get(id);
    if (other) throw new Error(`OpenAPI: operationId "${id}" is used by both ${other} and ${where}`);
    seen.set(id, where);
  }
  const dangling = unresolvedRefs(doc);
  if (dangling.length) throw new Error(`OpenAPI: $ref to nothing: ${dangling.join(', ')}`);
  return doc;
}

/** Registers the generated OpenAPI 3.1 document (`/v1/openapi.json`) and the reference UI (`/docs`). */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  // Checked as each route is registered, so that a route without an operationId fails the start
  // rather than appearing in the document without a name for generated clients to call it by.
  app.addHook('onRoute', (route) => {
    if (route.method === 'HEAD' || route.schema?.hide) return;
    if (!route.schema?.operationId)
      throw new Error(
        `${String(route.method)} ${route.url}: a documented route needs schema.operationId (camelCase, verb first), or schema.hide`,
      );
  });

  const bodyValidator = validatorCompiler();
  /** Whether a body schema accepts `{}`: the app reads an absent body as `{}`, so such a body is optional. */
  const acceptsEmpty = (schema: unknown): boolean => {
    try {
      return bodyValidator({ schema: schema as object, httpPart: 'body' })({}) === true;
    } catch {
      return false;
    }
  };
  const webhooks = new Map<string, WebhookDoc>();

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'vss',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
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
      const source = (schema ?? {}) as FastifySchema;
      const { docs, ...rest } = source;
      const out = { ...rest } as Record<string, unknown>;
      // @fastify/websocket hides its routes; /ws is an operation like any other here.
      if ((route as { websocket?: boolean }).websocket) delete out.hide;
      if (out.hide) return { schema: out, url };
      if (!out.operationId) throw new Error(`${String(route.method)} ${url}: no schema.operationId`);

      const auth = route.config?.auth as RouteAuth | undefined;
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
      if (docs?.querystring && !out.querystring) out.querystring = docs.querystring;
      if (docs?.body && !out.body) out.body = docs.body;
      if (docs?.consumes) out.consumes = docs.consumes;
      else if (source.body && acceptsEmpty(source.body)) out['x-body-optional'] = true;
      const response: Record<string, unknown> = {
        ...((source.response as Record<string, unknown> | undefined) ?? {}),
        ...docs?.responses,
      };
      for (const range of docs?.envelopeErrors ?? ['4xx', '5xx']) response[range] ??= ErrorEnvelope;
      out.response = response;
      if (docs?.messages) out['x-messages'] = plain(docs.messages);
      for (const [type, w] of Object.entries(docs?.webhooks ?? {})) webhooks.set(type, w);
      return { schema: withNames(out) as FastifySchema, url };
    },
    transformObject: (generated) =>
      finish(
        ('openapiObject' in generated ? generated.openapiObject : generated.swaggerObject) as Json,
        webhooks,
      ),
  });

  app.get('/v1/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  // The reference page is on the login cookie's origin: it gets the dashboard's headers. Inside a
  // plugin of its own, so that the hook reaches /docs and its files and nothing else.
  await app.register(async (docs) => {
    docs.addHook('onSend', (_request, reply, _payload, done) => {
      reply.headers(PAGE_SECURITY_HEADERS);
      done();
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // No validator badge: it is an image from validator.swagger.io, which the policy refuses.
      uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    });
  });
}
