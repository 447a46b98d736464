import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

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
