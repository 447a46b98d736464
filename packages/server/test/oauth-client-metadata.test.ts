import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttps } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from './support/app.js';
import { listen } from './support/live.js';
import { pkce, redirectReceiver } from './support/mcp.js';
import { freePort, processStorage, runServer, waitForHttp, type Proc } from './support/process.js';

const cleanups: Array<() => Promise<void> | void> = [];
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A local https server (a self-signed certificate for 127.0.0.1) serving one client metadata document. */
async function documentServer(
  doc: (url: string, path: string) => unknown,
): Promise<{ url: string; cert: string }> {
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
  let url = '';
  const server = createHttps(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(doc(new URL(req.url!, url).href, req.url!)));
    },
  );
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `https://127.0.0.1:${(server.address() as { port: number }).port}/oauth/client.json`;
  cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return { url, cert: join(dir, 'cert.pem') };
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
    await waitForHttp(`${base}/health`);
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
  }, 60_000);

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
    expect(await refused.text()).toMatch(/private or reserved address/);
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
    expect(((await token.json()) as any).error).toBe('invalid_client');
  });
});
