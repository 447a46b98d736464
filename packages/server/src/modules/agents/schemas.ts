import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schema-types.js';

const tokenFields = {
  id: Type.String(),
  project_id: Type.String(),
  label: Nullable(Type.String()),
  scopes: Type.Array(Type.String(), { description: '`mcp:read`, `mcp:write`' }),
  prefix: Type.String({ description: 'the first 12 characters of the secret, for recognition' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  last_used_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'updated at most once a minute',
  }),
};
export const AgentToken = Type.Object(tokenFields, { title: 'AgentToken' });
export const CreatedAgentToken = Type.Object(
  { ...tokenFields, secret: Type.String({ description: 'shown once, never again: `sat_…`' }) },
  { title: 'CreatedAgentToken' },
);
export const CreateAgentToken = Type.Object(
  {
    scopes: Type.Array(Type.Union([Type.Literal('mcp:read'), Type.Literal('mcp:write')]), {
      minItems: 1,
      maxItems: 2,
      description: '`mcp:read` (read tools), `mcp:write` (tools that change things); at least one',
    }),
    project_id: Type.Optional(
      Type.String({ format: 'uuid', description: "defaults to the user's first project" }),
    ),
    label: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366, description: 'default: never' })),
  },
  { additionalProperties: false, title: 'CreateAgentTokenRequest' },
);
export const TokenParams = Type.Object({ tokenId: Type.String({ format: 'uuid' }) });
export const Activity = Type.Object(
  {
    id: Type.String(),
    actor: Type.String({ description: '`agent_token:<id>` or `oauth:<grant id>`' }),
    tool: Type.String(),
    project_id: Type.String(),
    session_id: Nullable(Type.String()),
    status: Type.String({
      description: '`succeeded`, `failed` (the API refused: see error_code) or `refused` (scope)',
    }),
    error_code: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'AgentActivity' },
);

/** A grant a user made to an OAuth client. */
export const OAuthGrant = Type.Object(
  {
    id: Type.String(),
    client_id: Type.String(),
    client_name: Type.Union([Type.String(), Type.Null()]),
    project_id: Type.String(),
    scopes: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'OAuthGrant' },
);

/*
 * The shapes below are documented only: the MCP and OAuth routes read their bodies and write their
 * answers themselves, in the forms their standards give, so no schema of Fastify's checks them.
 */

const Scopes = Type.Array(Type.String({ enum: ['mcp:read', 'mcp:write'] }));

/** RFC 9728: the protected resource `/mcp`. */
export const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: '{base_url}/mcp' }),
    authorization_servers: Type.Array(Type.String(), { description: 'this server: {base_url}' }),
    scopes_supported: Scopes,
    bearer_methods_supported: Type.Array(Type.String({ enum: ['header'] })),
    resource_name: Type.String(),
  },
  { title: 'OAuthProtectedResourceMetadata' },
);

/** RFC 8414: this authorization server. */
export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    registration_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    response_types_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Scopes,
    client_id_metadata_document_supported: Type.Boolean({
      description: 'a client may also be known by an https `client_id` naming its metadata document',
    }),
  },
  { title: 'OAuthAuthorizationServerMetadata' },
);

const AuthMethod = Type.String({
  enum: ['none', 'client_secret_post'],
  description: '`none` (a public client, the default) or `client_secret_post` (gets a secret, once)',
});
const GrantTypes = Type.Array(Type.String({ enum: ['authorization_code', 'refresh_token'] }), {
  description: 'default both',
});

/** RFC 7591: what a client registers. */
export const ClientRegistration = Type.Object(
  {
    redirect_uris: Type.Array(Type.String({ maxLength: 2000 }), {
      minItems: 1,
      maxItems: 10,
      description:
        'https, http on a loopback address, or a private-use scheme; matched exactly at authorization',
    }),
    token_endpoint_auth_method: Type.Optional(AuthMethod),
    grant_types: Type.Optional(GrantTypes),
    client_name: Type.Optional(Type.String({ maxLength: 200, description: 'shown on the consent page' })),
  },
  { title: 'OAuthClientRegistrationRequest' },
);

/** RFC 7591: the registered client. */
export const RegisteredClient = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer({ description: 'Unix seconds' }),
    client_secret: Type.Optional(
      Type.String({ description: '`client_secret_post` only: `ocs_…`, shown this once' }),
    ),
    client_secret_expires_at: Type.Optional(Type.Integer({ description: '0: never' })),
    client_name: Type.Optional(Type.String()),
    redirect_uris: Type.Array(Type.String()),
    grant_types: GrantTypes,
    response_types: Type.Array(Type.String({ enum: ['code'] })),
    token_endpoint_auth_method: AuthMethod,
  },
  { title: 'OAuthClient' },
);

/** The query of an authorization request (RFC 6749 with PKCE). */
export const AuthorizeQuery = Type.Object({
  response_type: Type.String({ enum: ['code'] }),
  client_id: Type.String({
    description: 'a registered client id, or the https address of its metadata document',
  }),
  redirect_uri: Type.Optional(
    Type.String({ description: 'one the client registered; may be left out when it registered only one' }),
  ),
  code_challenge: Type.String({ pattern: '^[A-Za-z0-9_-]{43,128}$', description: 'PKCE, S256' }),
  code_challenge_method: Type.String({ enum: ['S256'] }),
  scope: Type.Optional(
    Type.String({ description: 'space-separated `mcp:read` and/or `mcp:write`; default `mcp:read`' }),
  ),
  state: Type.Optional(Type.String({ description: 'returned unchanged with the redirect' })),
});

/** The consent page's form. */
export const ConsentForm = Type.Object(
  {
    consent: Type.String({ description: 'the sealed request the page carried' }),
    decision: Type.String({ enum: ['allow', 'deny'] }),
    project_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'the project the client may act on' }),
    ),
  },
  { title: 'OAuthConsentForm' },
);

const ClientCredentials = {
  client_id: Type.String(),
  client_secret: Type.Optional(Type.String({ description: 'for `client_secret_post` clients' })),
};

/** The token endpoint's form. */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ enum: ['authorization_code', 'refresh_token'] }),
    ...ClientCredentials,
    code: Type.Optional(Type.String({ description: '`authorization_code`: the code of the redirect' })),
    code_verifier: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._~-]{43,128}$',
        description: '`authorization_code`: the PKCE verifier',
      }),
    ),
    redirect_uri: Type.Optional(
      Type.String({ description: '`authorization_code`: when given, that of the authorization request' }),
    ),
    refresh_token: Type.Optional(Type.String({ description: '`refresh_token`: the latest refresh token' })),
  },
  { title: 'OAuthTokenRequest' },
);

/** The token endpoint's answer. */
export const Tokens = Type.Object(
  {
    access_token: Type.String({ description: '`oat_…`, accepted by /mcp only' }),
    token_type: Type.String({ enum: ['Bearer'] }),
    expires_in: Type.Integer({ description: 'seconds: 900' }),
    refresh_token: Type.String({ description: '`ort_…`, good for one exchange' }),
    scope: Type.String({ description: 'space-separated granted scopes' }),
  },
  { title: 'OAuthTokens' },
);

/** RFC 7009: what to revoke. */
export const RevokeRequest = Type.Object(
  { token: Type.String({ description: 'an access or refresh token' }), ...ClientCredentials },
  { title: 'OAuthRevokeRequest' },
);

/** An OAuth error answer (RFC 6749 §5.2). */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        '`invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`, `invalid_redirect_uri`, `invalid_client_metadata`',
    }),
    error_description: Type.String(),
  },
  { title: 'OAuthError' },
);

const JsonRpcId = Type.Union([Type.String(), Type.Integer(), Type.Null()]);

/** One JSON-RPC 2.0 message to the MCP server (a request, or a notification without `id`). */
export const JsonRpcRequest = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(JsonRpcId),
    method: Type.String({ description: 'e.g. `initialize`, `tools/list`, `tools/call`, `resources/read`' }),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'JsonRpcRequest' },
);

/** The JSON-RPC 2.0 answer: `result`, or `error`. */
export const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: JsonRpcId,
    result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    error: Type.Optional(
      Type.Object(
        {
          code: Type.Integer(),
          message: Type.String(),
          data: Type.Optional(Type.Unknown()),
        },
        { title: 'JsonRpcError' },
      ),
    ),
  },
  { title: 'JsonRpcResponse' },
);
