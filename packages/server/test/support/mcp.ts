import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, type Tenant, type TestApp } from './app.js';

/** An agent token with `scopes`, made through the API with the tenant's dashboard cookie. */
export async function agentToken(t: TestApp, a: Tenant, scopes: string[]): Promise<string> {
  const res = await call(t, 'POST', '/v1/agent-tokens', {
    cookie: a.cookie,
    body: { scopes, label: 'test agent' },
  });
  if (res.status !== 201) throw new Error(res.raw);
  return res.body.data.secret;
}

/** A real MCP client connected to `base`/mcp with a bearer secret. */
export async function mcpClient(base: string, secret: string): Promise<Client> {
  const client = new Client({ name: 'vss-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

/** Posts one raw JSON-RPC message to /mcp as a Streamable HTTP client would, with `headers` (credentials). */
export function postMcp(base: string, headers: Record<string, string>, message: unknown): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A local web server standing for an OAuth client's redirect address: it records what arrives. */
export async function redirectReceiver(): Promise<{
  url: string;
  hits: URLSearchParams[];
  close(): Promise<void>;
}> {
  const hits: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://127.0.0.1');
    // Only the redirect itself: a browser landing here also asks for /favicon.ico.
    if (url.pathname === '/callback') hits.push(url.searchParams);
    res.end('you may close this window');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/callback`,
    hits,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
