import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope, ok } from '../../http/envelope.js';
import { Forbidden } from '../../http/errors.js';
import { emptyDoc, jsonDoc, okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { AGENT_ONLY, KEY_OR_USER, USER_ONLY } from '../../http/principal.js';
import { Deleted } from '../../http/shared-schemas.js';
import type { McpDeps } from './mcp-deps.js';
import { mcpServer } from './mcp.js';
import {
  Activity,
  AgentToken,
  CreateAgentToken,
  CreatedAgentToken,
  JsonRpcRequest,
  JsonRpcResponse,
  ProtectedResourceMetadata,
  TokenParams,
} from './schemas.js';
import { presentActivity, presentToken } from './service.js';

export interface AgentsRoutesOptions {
  baseUrl: string;
  mcp: McpDeps;
}

const tags = ['Agent access'];

/** Agent tokens, the activity log, and the MCP endpoint. */
export const agentsRoutes: FastifyPluginAsyncTypebox<AgentsRoutesOptions> = async (app, deps) => {
  const { agents } = deps.mcp;
  const resourceMetadata = `${deps.baseUrl}/.well-known/oauth-protected-resource/mcp`;

  app.post(
    '/v1/agent-tokens',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags,
        operationId: 'createAgentToken',
        summary: 'Create an agent token',
        description:
          'A `sat_…` secret for an AI agent to use the `/mcp` endpoint, shown once. It acts on one project (default the first) with member rights, limited to its scopes, until deleted or expired. Dashboard users only; the REST API never accepts it.',
        body: CreateAgentToken,
        response: { 201: okResponse('The new token, with its secret (shown this once).', CreatedAgentToken) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(await agents.createToken(request.principal!, request.body));
    },
  );

  app.get(
    '/v1/agent-tokens',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags,
        operationId: 'listAgentTokens',
        summary: 'List agent tokens',
        description: "The organisation's agent tokens, oldest first; never a secret.",
        querystring: PageQuery,
        response: { 200: okResponse('A page of agent tokens.', Type.Array(AgentToken)) },
      },
    },
    async (request, reply) => {
      const rows = await agents.listTokens(request.principal!, request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, deps.baseUrl).map(presentToken));
    },
  );

  app.delete(
    '/v1/agent-tokens/:tokenId',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags,
        operationId: 'deleteAgentToken',
        summary: 'Delete an agent token',
        description: 'Refused by /mcp from the next call on.',
        params: TokenParams,
        response: { 200: okResponse('The token was deleted.', Deleted) },
      },
    },
    async (request) => ok(await agents.deleteToken(request.principal!, request.params.tokenId)),
  );

  app.get(
    '/v1/agent-activity',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listAgentActivity',
        summary: 'Agent activity',
        description:
          'Every MCP tool call of the organisation, newest first: actor, tool, session, status, time.',
        querystring: PageQuery,
        response: { 200: okResponse('A page of tool calls, newest first.', Type.Array(Activity)) },
      },
    },
    async (request, reply) => {
      const rows = await agents.activity(request.principal!, request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, deps.baseUrl).map(presentActivity));
    },
  );

  app.get(
    '/.well-known/oauth-protected-resource/mcp',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'getMcpResourceMetadata',
        summary: 'OAuth protected resource metadata of /mcp (RFC 9728)',
        docs: {
          responses: {
            200: jsonDoc('The metadata (RFC 9728, not the envelope).', ProtectedResourceMetadata),
          },
        },
      },
    },
    async () => ({
      resource: `${deps.baseUrl}/mcp`,
      authorization_servers: [deps.baseUrl],
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'vss',
    }),
  );

  // The MCP endpoint, Streamable HTTP, stateless: each request carries its credential.
  await app.register(async (mcp) => {
    // The transport's rule against DNS rebinding: a page of another origin that reaches this
    // address (a name re-pointed at it) is refused. Clients that are not browsers send no Origin.
    const ownOrigin = new URL(deps.baseUrl).origin;
    mcp.addHook('onRequest', async (request) => {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== ownOrigin)
        throw new Forbidden(`cross-origin request refused (Origin): only ${ownOrigin} may call /mcp`);
    });
    mcp.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 401)
        reply.header('www-authenticate', `Bearer resource_metadata="${resourceMetadata}"`);
      return payload;
    });
    const description =
      'The MCP endpoint (Streamable HTTP, stateless, JSON answers). Accepts agent tokens and OAuth access tokens only (401 with `WWW-Authenticate: Bearer resource_metadata=…` otherwise). Speaks the newest protocol revision of the official SDK, and older ones a client asks for. One JSON-RPC message per request (batches are refused with 400), so that every call counts under the rate limit. GET and DELETE answer 405: there is no server-initiated stream and no MCP session to end. A request with an `Origin` header other than the origin of `PUBLIC_BASE_URL` answers 403 `FORBIDDEN` (against DNS rebinding); requests without `Origin`, as non-browser clients send them, are served.';
    // GET and DELETE exist only to answer 405 with `Allow: POST`: no operation to document.
    const notOffered = { tags, hide: true, description };
    for (const method of ['GET', 'DELETE'] as const)
      mcp.route({
        method,
        url: '/mcp',
        config: { auth: AGENT_ONLY },
        schema: notOffered,
        handler: async (_request, reply) =>
          reply
            .code(405)
            .header('allow', 'POST')
            .send({
              jsonrpc: '2.0',
              error: { code: -32000, message: 'Method not allowed: this server is stateless; POST only' },
              id: null,
            }),
      });
    mcp.route({
      method: 'POST',
      url: '/mcp',
      // A control character in a tool's arguments is refused by the tool, as a tool error.
      config: { auth: AGENT_ONLY, ownTextRule: true },
      schema: {
        tags,
        operationId: 'callMcp',
        summary: 'Model Context Protocol',
        description: `${description} Send \`Accept: application/json, text/event-stream\` (406 otherwise).`,
        docs: {
          body: JsonRpcRequest,
          responses: {
            200: jsonDoc('The JSON-RPC answer to the request.', JsonRpcResponse),
            202: emptyDoc('Accepted: the message was a notification (no `id`), which has no answer.'),
            400: jsonDoc('A batch, or a message that is not JSON-RPC: a JSON-RPC error.', JsonRpcResponse),
            401: jsonDoc(
              'No agent token or OAuth access token, or a bad one: the error envelope.',
              ErrorEnvelope,
              {
                'WWW-Authenticate': Type.String({
                  description:
                    '`Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource/mcp"`',
                }),
              },
            ),
            403: jsonDoc(
              "An `Origin` header other than `PUBLIC_BASE_URL`'s origin: the error envelope.",
              ErrorEnvelope,
            ),
            406: jsonDoc(
              '`Accept` does not name both `application/json` and `text/event-stream`: a JSON-RPC error.',
              JsonRpcResponse,
            ),
            500: jsonDoc('The call failed on the server: a JSON-RPC error.', JsonRpcResponse),
          },
        },
      },
      handler: async (request, reply) => {
        if (Array.isArray(request.body))
          return reply.code(400).send({
            jsonrpc: '2.0',
            error: { code: -32600, message: 'batches are not accepted: send one message per request' },
            id: null,
          });
        const { server, logRefusedCall } = mcpServer(deps.mcp, request.principal!);
        await logRefusedCall(request.body);
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        // The answer is written by the SDK on the raw response: the headers set so far (the rate
        // limit's) go with it.
        for (const [name, value] of Object.entries(reply.getHeaders()))
          if (value !== undefined) reply.raw.setHeader(name, value as string);
        reply.hijack();
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        try {
          await server.connect(transport);
          await transport.handleRequest(request.raw, reply.raw, request.body);
        } catch (err) {
          request.log.error({ err }, 'MCP request failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { 'content-type': 'application/json' });
            reply.raw.end(
              JSON.stringify({
                jsonrpc: '2.0',
                error: { code: -32603, message: 'internal error' },
                id: null,
              }),
            );
          } else reply.raw.end();
        }
      },
    });
  });
};
