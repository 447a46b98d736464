import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { listen } from './support/live.js';
import { pkce, postMcp, redirectReceiver } from './support/mcp.js';
import { clockAhead, realClock } from './support/wait.js';

describe('OAuth 2.1 for MCP clients', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  let receiver: Awaited<ReturnType<typeof redirectReceiver>>;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
    receiver = await redirectReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    realClock();
  });

  const form = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const cookie = () => `service_session=${a.cookie}`;
  const origin = () => new URL(t.config.publicBaseUrl).origin;

  async function register(): Promise<string> {
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Test Agent', redirect_uris: [receiver.url] }),
    });
    expect(res.status).toBe(201);
    const client = (await res.json()) as { client_id: string; client_secret?: string };
    expect(client.client_secret).toBeUndefined();
    return client.client_id;
  }

  async function consent(
    clientId: string,
    challenge: string,
    decision = 'allow',
    scope = 'mcp:read mcp:write',
    projectId?: string,
  ) {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: receiver.url,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope,
      state: 'xyz',
    });
    const pageRes = await fetch(`${base}/oauth/authorize?${q}`, {
      headers: { cookie: cookie() },
      redirect: 'manual',
    });
    expect(pageRes.status).toBe(200);
    const html = await pageRes.text();
    expect(html).toContain('<strong>Test Agent</strong>');
    expect(html).toContain('mcp:write');
    // Where the browser will be sent, and the project the grant will act on.
    expect(html).toContain(new URL(receiver.url).origin);
    expect(pageRes.headers.get('content-security-policy')).toContain(
      `form-action 'self' ${new URL(receiver.url).origin}`,
    );
    const sealed = /name="consent" value="([^"]+)"/
      .exec(html)![1]!
      .replace(/&amp;/g, '&')
      .replace(/&#39;/g, "'");
    const before = receiver.hits.length;
    // The browser posts the form and follows the redirect to the client's address.
    const answered = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { cookie: cookie(), origin: origin(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        consent: sealed,
        decision,
        ...(projectId ? { project_id: projectId } : {}),
      }).toString(),
    });
    expect(answered.status, await answered.clone().text()).toBe(200);
    expect(receiver.hits.length).toBe(before + 1);
    return receiver.hits.at(-1)!;
  }

  async function tokensFor(clientId: string, projectId?: string) {
    const { verifier, challenge } = pkce();
    const hit = await consent(clientId, challenge, 'allow', 'mcp:read mcp:write', projectId);
    expect(hit.get('state')).toBe('xyz');
    const res = await form('/oauth/token', {
      grant_type: 'authorization_code',
      code: hit.get('code')!,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: receiver.url,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return (await res.json()) as {
      access_token: string;
      refresh_token: string;
      expires_in: number;
      scope: string;
    };
  }

  async function mcp(token: string) {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('publishes the metadata that MCP clients discover', async () => {
    const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as any;
    expect(prm).toMatchObject({
      resource: `${t.config.publicBaseUrl}/mcp`,
      authorization_servers: [t.config.publicBaseUrl],
    });
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(as).toMatchObject({
      issuer: t.config.publicBaseUrl,
      code_challenge_methods_supported: ['S256'],
      registration_endpoint: `${t.config.publicBaseUrl}/oauth/register`,
    });
  });

  it('runs the flow: register, consent, code with PKCE, /mcp, refresh, refresh reuse revokes the grant', async () => {
    const clientId = await register();
    const first = await tokensFor(clientId);
    expect(first).toMatchObject({ expires_in: 900, scope: 'mcp:read mcp:write' });
    expect(first.access_token).toMatch(/^oat_/);

    const s = await createSession(t, a.key, 'granted');
    const client = await mcp(first.access_token);
    const got = await client.callTool({ name: 'get_session', arguments: { session_id: s.id } });
    expect(JSON.parse((got.content as any)[0].text)).toMatchObject({ id: s.id });
    await client.close();
    // The REST API refuses OAuth access tokens.
    expectError(await call(t, 'GET', '/v1/sessions', { key: first.access_token }), 401, 'UNAUTHORIZED');

    const refreshed = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as any;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const again = await mcp(second.access_token);
    await again.callTool({ name: 'list_sessions', arguments: {} });

    // The first refresh token again, at once: most likely the client's own retry. Refused, and the
    // tokens of the first exchange stay good.
    const retried = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(await retried.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/a moment ago/),
    });
    await again.callTool({ name: 'list_sessions', arguments: {} });
    // Later (the server's clock past the retry grace of 2 s), presented again: someone else may
    // hold it. The grant goes.
    clockAhead(2100);
    const reused = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    await expect(again.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(
      /invalid, expired or revoked/,
    );
    await again.close();
    const stale = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token,
      client_id: clientId,
    });
    expect(stale.status).toBe(400);

    const activity = (await call(t, 'GET', '/v1/agent-activity', { key: a.key })).body.data;
    expect(activity[0]).toMatchObject({
      tool: 'list_sessions',
      status: 'succeeded',
      actor: expect.stringMatching(/^oauth:/),
    });
  });

  it('a code exchanged a second time is refused and revokes the tokens its first exchange gave (OAuth 2.1 4.1.2)', async () => {
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const hit = await consent(clientId, challenge);
    const exchange = () =>
      form('/oauth/token', {
        grant_type: 'authorization_code',
        code: hit.get('code')!,
        code_verifier: verifier,
        client_id: clientId,
      });
    const first = await exchange();
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as { access_token: string; refresh_token: string };
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await postMcp(base, { authorization: `Bearer ${tokens.access_token}` }, list)).status).toBe(200);

    const second = await exchange();
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/already used: its tokens are revoked/),
    });
    // The access token and the refresh token of the first exchange no longer work.
    expect((await postMcp(base, { authorization: `Bearer ${tokens.access_token}` }, list)).status).toBe(401);
    const refreshed = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const grants = (await call(t, 'GET', '/v1/oauth/grants?limit=200', { cookie: a.cookie })).body.data;
    expect(grants.filter((g: any) => g.client_id === clientId)).toEqual([]);
    // A code never issued is refused as before, and revokes nothing.
    const other = await tokensFor(clientId);
    const unknown = await form('/oauth/token', {
      grant_type: 'authorization_code',
      code: 'not-a-code',
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(unknown.status).toBe(400);
    expect((await postMcp(base, { authorization: `Bearer ${other.access_token}` }, list)).status).toBe(200);
  });

  it("/mcp refuses a request whose Origin is not PUBLIC_BASE_URL's with 403; no Origin or its own is served", async () => {
    const clientId = await register();
    const { access_token } = await tokensFor(clientId);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const auth = { authorization: `Bearer ${access_token}` };
    for (const foreign of [
      'http://attacker.example',
      'null',
      `${origin()}.attacker.example`,
      'https://127.0.0.1',
    ]) {
      const res = await postMcp(base, { ...auth, origin: foreign }, list);
      expect(res.status, foreign).toBe(403);
      expect(((await res.json()) as any).error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/Origin/),
      });
    }
    // An agent token is held to the same rule, and so are GET and DELETE.
    expect(
      (await fetch(`${base}/mcp`, { headers: { ...auth, origin: 'http://attacker.example' } })).status,
    ).toBe(403);
    expect((await postMcp(base, auth, list)).status).toBe(200);
    expect((await postMcp(base, { ...auth, origin: origin() }, list)).status).toBe(200);
  });

  it('lists grants and revokes one at once; revocation by the client works too', async () => {
    const clientId = await register();
    const tokens = await tokensFor(clientId);
    const grants = (await call(t, 'GET', '/v1/oauth/grants', { cookie: a.cookie })).body.data;
    const mine = grants.find((g: any) => g.client_id === clientId);
    expect(mine).toMatchObject({ client_name: 'Test Agent', scopes: ['mcp:read', 'mcp:write'] });
    const client = await mcp(tokens.access_token);
    expect((await call(t, 'DELETE', `/v1/oauth/grants/${mine.id}`, { cookie: a.cookie })).status).toBe(200);
    await expect(client.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(
      /invalid, expired or revoked/,
    );
    await client.close();
    expect(
      (await call(t, 'GET', '/v1/oauth/grants', { cookie: a.cookie })).body.data.some(
        (g: any) => g.id === mine.id,
      ),
    ).toBe(false);

    const other = await tokensFor(clientId);
    expect((await form('/oauth/revoke', { token: other.refresh_token, client_id: clientId })).status).toBe(
      200,
    );
    const refused = await postMcp(
      base,
      { authorization: `Bearer ${other.access_token}` },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    );
    expect(refused.status).toBe(401);
  });

  it('refuses plain PKCE, a wrong verifier, unknown clients and redirects, bad registrations; a denial redirects with access_denied', async () => {
    const clientId = await register();
    const q = (extra: Record<string, string>) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: receiver.url,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        ...extra,
      });
    // Errors are explained on the page, never redirected (self-registered addresses: no open redirect).
    const plain = await fetch(`${base}/oauth/authorize?${q({ code_challenge_method: 'plain' })}`, {
      headers: { cookie: cookie() },
      redirect: 'manual',
    });
    expect(plain.status).toBe(400);
    expect(await plain.text()).toContain('S256');
    const badScope = await fetch(`${base}/oauth/authorize?${q({ scope: 'admin' })}`, {
      headers: { cookie: cookie() },
      redirect: 'manual',
    });
    expect(badScope.status).toBe(400);
    expect(badScope.headers.get('location')).toBeNull();
    expect(await badScope.text()).toContain('scope');
    const unknown = await fetch(`${base}/oauth/authorize?${q({ client_id: 'nope' })}`, {
      redirect: 'manual',
    });
    expect(unknown.status).toBe(400);
    const elsewhere = await fetch(
      `${base}/oauth/authorize?${q({ redirect_uri: 'https://evil.example/cb' })}`,
      { redirect: 'manual' },
    );
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('redirect_uri');
    const signedOut = await fetch(`${base}/oauth/authorize?${q({})}`, { redirect: 'manual' });
    expect(await signedOut.text()).toContain('Sign in');

    const { verifier, challenge } = pkce();
    const hit = await consent(clientId, challenge);
    const wrong = await form('/oauth/token', {
      grant_type: 'authorization_code',
      code: hit.get('code')!,
      code_verifier: pkce().verifier,
      client_id: clientId,
    });
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    // The code was spent by the failed attempt.
    const late = await form('/oauth/token', {
      grant_type: 'authorization_code',
      code: hit.get('code')!,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(late.status).toBe(400);

    const denied = await consent(clientId, pkce().challenge, 'deny');
    expect(denied.get('error')).toBe('access_denied');
    expect(denied.get('code')).toBeNull();

    for (const body of [
      {},
      { redirect_uris: ['http://example.com/cb'] },
      { redirect_uris: ['https://x/cb'], token_endpoint_auth_method: 'private_key_jwt' },
    ]) {
      const res = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatch(/^invalid_/);
    }
    expect((await form('/oauth/token', { grant_type: 'password', client_id: clientId })).status).toBe(400);
    expect((await form('/oauth/token', { grant_type: 'refresh_token', client_id: 'nope' })).status).toBe(401);
    // The consent form cannot be posted from another site.
    const forged = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: {
        cookie: cookie(),
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'consent=x&decision=allow',
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
  });
});

describe('OAuth: confidential clients, races, the page', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  let receiver: Awaited<ReturnType<typeof redirectReceiver>>;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
    receiver = await redirectReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    realClock();
  });
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  /** Registers, consents (as the tenant's user, for `projectId`) and returns the code and verifier. */
  async function codeFor(body: Record<string, unknown>, projectId?: string) {
    const reg = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [receiver.url], ...body }),
    });
    const client = (await reg.json()) as { client_id: string; client_secret?: string };
    const { verifier, challenge } = pkce();
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: receiver.url,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    const html = await (
      await fetch(`${base}/oauth/authorize?${q}`, { headers: { cookie: `service_session=${a.cookie}` } })
    ).text();
    const sealed = /name="consent" value="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: {
        cookie: `service_session=${a.cookie}`,
        origin: new URL(t.config.publicBaseUrl).origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        consent: sealed,
        decision: 'allow',
        ...(projectId ? { project_id: projectId } : {}),
      }).toString(),
    });
    return { client, verifier, code: receiver.hits.at(-1)!.get('code')!, html };
  }

  it('a confidential client must send its secret; a hostile name is shown as text', async () => {
    const { client, verifier, code, html } = await codeFor({
      token_endpoint_auth_method: 'client_secret_post',
      client_name: '<script>alert(1)</script>',
    });
    expect(client.client_secret).toMatch(/^ocs_/);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const base = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client.client_id,
    };
    expect(await (await post('/oauth/token', base)).json()).toMatchObject({ error: 'invalid_client' });
    const c3 = await codeFor({ token_endpoint_auth_method: 'client_secret_post' });
    expect(
      (
        await post('/oauth/token', {
          grant_type: 'authorization_code',
          code: c3.code,
          code_verifier: c3.verifier,
          client_id: c3.client.client_id,
          client_secret: 'ocs_wrong',
        })
      ).status,
    ).toBe(401);
    const c4 = await codeFor({ token_endpoint_auth_method: 'client_secret_post' });
    const ok = await post('/oauth/token', {
      grant_type: 'authorization_code',
      code: c4.code,
      code_verifier: c4.verifier,
      client_id: c4.client.client_id,
      client_secret: c4.client.client_secret!,
    });
    expect(ok.status).toBe(200);
  });

  it('gives one code one token answer when exchanges race, and revokes it (the code was presented twice); one refresh one answer, the winner keeps working', async () => {
    // Several codes, each exchanged three times at once, all in flight together.
    const codes: Array<Awaited<ReturnType<typeof codeFor>>> = [];
    for (let i = 0; i < 8; i++) codes.push(await codeFor({}));
    const answers = await Promise.all(
      codes.flatMap(({ client, verifier, code }) =>
        [0, 1, 2].map(() =>
          post('/oauth/token', {
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            client_id: client.client_id,
          }),
        ),
      ),
    );
    for (let i = 0; i < 8; i++)
      expect(answers.slice(i * 3, i * 3 + 3).filter((r) => r.status === 200)).toHaveLength(1);
    // Each code was presented again after its exchange: the grant it made is revoked.
    expect(
      (await call(t, 'GET', '/v1/oauth/grants?limit=200', { cookie: a.cookie })).body.data.filter((g: any) =>
        codes.some((c) => c.client.client_id === g.client_id),
      ),
    ).toHaveLength(0);

    const once = await codeFor({});
    const client = once.client;
    const tokens = (await (
      await post('/oauth/token', {
        grant_type: 'authorization_code',
        code: once.code,
        code_verifier: once.verifier,
        client_id: client.client_id,
      })
    ).json()) as any;
    const refresh = () =>
      post('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.client_id,
      });
    const both = await Promise.all([refresh(), refresh()]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = (await both.find((r) => r.status === 200)!.json()) as any;
    const mcp = await postMcp(
      base,
      { authorization: `Bearer ${winner.access_token}` },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    );
    expect(mcp.status).toBe(200);
  });

  it('acts on the project the user picked; a stale cookie sees the sign-in page; a cross-site post is refused', async () => {
    const other = await call(t, 'POST', '/v1/projects', { key: a.key, body: { name: 'Other' } });
    const { client, verifier, code } = await codeFor({}, other.body.data.id);
    const tokens = (await (
      await post('/oauth/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        client_id: client.client_id,
      })
    ).json()) as any;
    const grant = (await call(t, 'GET', '/v1/oauth/grants', { cookie: a.cookie })).body.data.find(
      (g: any) => g.client_id === client.client_id,
    );
    expect(grant.project_id).toBe(other.body.data.id);
    expect(tokens.access_token).toMatch(/^oat_/);

    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: receiver.url,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const stale = await fetch(`${base}/oauth/authorize?${q}`, {
      headers: { cookie: 'service_session=stale' },
    });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toContain('Sign in');
    const crossSite = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: {
        cookie: `service_session=${a.cookie}`,
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'consent=x&decision=allow',
      redirect: 'manual',
    });
    expect(crossSite.status).toBe(403);
  });
});
