import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttps } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from './support/app.js';
import { eventually, listen } from './support/live.js';
import { pkce, redirectReceiver } from './support/mcp.js';
import { freePort, processStorage, runServer, waitForHttp, type Proc } from './support/process.js';

const cleanups: Array<() => Promise<void> | void> = [];
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A self-signed certificate for 127.0.0.1: its key and certificate, and the certificate's file. */
function selfSigned(): { key: Buffer; cert: Buffer; certFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vss-cimd-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return {
    key: readFileSync(join(dir, 'key.pem')),
    cert: readFileSync(join(dir, 'cert.pem')),
    certFile: join(dir, 'cert.pem'),
  };
}

/** A local https server (a self-signed certificate for 127.0.0.1) serving one client metadata document. */
async function documentServer(
  doc: (url: string, path: string) => unknown,
): Promise<{ url: string; cert: string }> {
  const tls = selfSigned();
  let url = '';
  const server = createHttps({ key: tls.key, cert: tls.cert }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(doc(new URL(req.url!, url).href, req.url!)));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `https://127.0.0.1:${(server.address() as { port: number }).port}/oauth/client.json`;
  cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return { url, cert: tls.certFile };
}

/**
 * The slow-document attack: a local https server that answers 200 at once, then sends its
 * document one byte per second. It counts the connections it was given and when each was closed.
 */
async function dribblingServer(): Promise<{
  base: string;
  cert: string;
  connections: Array<{ openedAt: number; closedAt: number | null; bytesSent: number }>;
}> {
  const tls = selfSigned();
  const connections: Array<{ openedAt: number; closedAt: number | null; bytesSent: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createHttps({ key: tls.key, cert: tls.cert }, (req, res) => {
    const seen = { openedAt: Date.now(), closedAt: null as number | null, bytesSent: 0 };
    connections.push(seen);
    const doc = Buffer.from(
      JSON.stringify({
        client_id: `https://${req.headers.host}${req.url}`,
        redirect_uris: ['https://a.example/cb'],
      }),
    );
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': doc.length });
    const timer = setInterval(() => {
      if (seen.bytesSent < doc.length) res.write(doc.subarray(seen.bytesSent, ++seen.bytesSent));
    }, 1000);
    timers.add(timer);
    res.socket!.on('close', () => {
      seen.closedAt = Date.now();
      clearInterval(timer);
      timers.delete(timer);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanups.push(() => {
    for (const timer of timers) clearInterval(timer);
    server.closeAllConnections();
    return new Promise<void>((ok) => server.close(() => ok()));
  });
  return {
    base: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    cert: tls.certFile,
    connections,
  };
}

describe('OAuth clients known by a client ID metadata document', () => {
  it('authorizes a client whose client_id is its https metadata document, fetched by the server', async () => {
    const receiver = await redirectReceiver();
    cleanups.push(() => receiver.close());
    // Each document names itself, except /oauth/impostor.json, which claims another address.
    const docs = await documentServer((url, path) => ({
      client_id: path === '/oauth/impostor.json' ? 'https://elsewhere.example/c.json' : url,
      client_name: 'Doc Agent',
      redirect_uris: [receiver.url],
    }));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = runServer({
      ...(await processStorage('cimd', cleanups)),
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NODE_EXTRA_CA_CERTS: docs.cert,
      OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true',
    });
    procs.push(proc);
    await waitForHttp(`${base}/health`, 90_000);
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(meta.client_id_metadata_document_supported).toBe(true);

    const reg = await fetch(`${base}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `cimd-${Date.now()}@example.com`, password: 'correct horse battery' }),
    });
    const cookie = reg.headers.get('set-cookie')!.split(';')[0]!;
    const { verifier, challenge } = pkce();
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: docs.url,
      redirect_uri: receiver.url,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'mcp:read',
    });
    const html = await (await fetch(`${base}/oauth/authorize?${q}`, { headers: { cookie } })).text();
    expect(html, html).toContain('<strong>Doc Agent</strong>');
    const sealed = /name="consent" value="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ consent: sealed, decision: 'allow' }).toString(),
    });
    const code = receiver.hits.at(-1)!.get('code')!;
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        client_id: docs.url,
      }).toString(),
    });
    expect(token.status, await token.clone().text()).toBe(200);
    expect(((await token.json()) as any).scope).toBe('mcp:read');

    q.set('client_id', docs.url.replace('client.json', 'impostor.json'));
    const impostor = await fetch(`${base}/oauth/authorize?${q}`, { headers: { cookie } });
    expect(impostor.status).toBe(400);
    expect(await impostor.text()).toContain('names another client_id');
  }, 180_000);

  it('refuses a document on a private address by default', async () => {
    const t = await startApp();
    cleanups.push(() => t.close());
    const base = (await listen(t)).replace('ws://', 'http://');
    const receiver = await redirectReceiver();
    cleanups.push(() => receiver.close());
    const docs = await documentServer((url) => ({ client_id: url, redirect_uris: [receiver.url] }));
    const q = (clientId: string) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: receiver.url,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
    const refused = await fetch(`${base}/oauth/authorize?${q(docs.url)}`);
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toMatch(/client metadata document cannot be used/);
    // Nothing of what a host name resolves to reaches an unauthenticated caller.
    expect(page).not.toMatch(/127\.0\.0\.1|resolves|private|reserved/);
    const named = await fetch(`${base}/oauth/authorize?${q(docs.url.replace('127.0.0.1', 'localhost'))}`);
    expect(named.status).toBe(400);
    expect(await named.text()).not.toMatch(/127\.0\.0\.1|resolves|private|reserved/);
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        code_verifier: 'y',
        client_id: docs.url,
      }).toString(),
    });
    expect(token.status).toBe(401);
    const body = (await token.json()) as any;
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toMatch(/cannot be used/);
    expect(body.error_description).not.toMatch(/127\.0\.0\.1|resolves|private|reserved/);
  });
  it('gives a document sent one byte per second one total deadline, and drops the fetch when the caller goes away', async () => {
    const slow = await dribblingServer();
    const DEADLINE_MS = 4000;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = runServer({
      ...(await processStorage('cimd-slow', cleanups)),
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NODE_EXTRA_CA_CERTS: slow.cert,
      OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true',
      OAUTH_CLIENT_METADATA_TIMEOUT_MS: String(DEADLINE_MS),
    });
    procs.push(proc);
    await waitForHttp(`${base}/health`, 90_000);
    const authorize = (clientId: string, signal?: AbortSignal) =>
      fetch(
        `${base}/oauth/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'https://a.example/cb',
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
        { signal },
      );

    // Unauthenticated, and held no longer than the deadline although bytes keep coming.
    const started = Date.now();
    const refused = await authorize(`${slow.base}/oauth/held.json`);
    const took = Date.now() - started;
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/client metadata document cannot be used/);
    expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    // Before the fix the document held it until its last byte, over a minute later.
    expect(took).toBeLessThan(DEADLINE_MS + 10_000);
    await eventually(
      () => slow.connections[0]?.closedAt != null,
      5000,
      'the slow server to see its socket closed',
    );
    expect(slow.connections[0]!.bytesSent).toBeGreaterThan(0);
    // The token endpoint is held to the same deadline.
    const tokenStarted = Date.now();
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        code_verifier: 'y',
        client_id: `${slow.base}/oauth/token.json`,
      }).toString(),
    });
    expect(token.status).toBe(401);
    expect(((await token.json()) as any).error).toBe('invalid_client');
    expect(Date.now() - tokenStarted).toBeLessThan(DEADLINE_MS + 10_000);
    await eventually(() => slow.connections[1]?.closedAt != null, 5000, 'the second socket closed');

    // Two callers that give up: each outgoing connection is closed when its caller goes, well
    // before the deadline would have closed it.
    for (const name of ['gone-1', 'gone-2']) {
      const n = slow.connections.length;
      const caller = new AbortController();
      const pending = authorize(`${slow.base}/oauth/${name}.json`, caller.signal).catch((err: Error) => err);
      await eventually(() => slow.connections.length === n + 1, 5000, 'the fetch to reach the slow server');
      caller.abort();
      expect(await pending).toBeInstanceOf(Error);
      await eventually(() => slow.connections[n]!.closedAt != null, 5000, `${name}'s socket to be closed`);
      const held = slow.connections[n]!.closedAt! - slow.connections[n]!.openedAt;
      expect(held, `${name} was held ${held} ms`).toBeLessThan(DEADLINE_MS - 500);
    }
    expect(slow.connections.every((c) => c.closedAt !== null)).toBe(true);
    // What went wrong is in the server's log, for the operator.
    expect(proc.out()).toMatch(/within 4000 ms/);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }, 180_000);
});
