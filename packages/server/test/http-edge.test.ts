import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  call,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
  useApp,
} from './support/app.js';

describe('the HTTP edge', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => ((t = app), (a = tenant)));

  it('answers health as plain text while the database answers', async () => {
    const res = await call(t, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.raw).toBe('ok');
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
  });

  it('answers an unknown route with the error envelope', async () => {
    const res = await call(t, 'GET', '/v1/does-not-exist', { key: a.key });
    expect(expectError(res, 404, 'NOT_FOUND')).toContain('/v1/does-not-exist');
  });

  it('answers a known path under the wrong method with 405 and Allow', async () => {
    const res = await call(t, 'DELETE', '/v1/projects', { key: a.key });
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET, POST');
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await call(t, 'POST', '/v1/sessions', {
      key: a.key,
      payload: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectError(res, 400, 'BAD_REQUEST')).toMatch(/not valid JSON/);
  });

  it('refuses a JSON body that is not valid UTF-8 with 400, and stores nothing', async () => {
    const a = await tenant(t);
    const before = (await call(t, 'GET', '/v1/sessions', { key: a.key })).body.data.length;
    const res = await call(t, 'POST', '/v1/sessions', {
      key: a.key,
      // "name": "caf\xe9": Latin-1, not UTF-8 (it was stored as "caf\ufffd").
      payload: Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
      headers: { 'content-type': 'application/json' },
    });
    expect(expectError(res, 400, 'BAD_REQUEST')).toMatch(/^body is not valid UTF-8/);
    expect((await call(t, 'GET', '/v1/sessions', { key: a.key })).body.data.length).toBe(before);
    // A truncated multi-byte sequence and an overlong encoding are refused the same way.
    for (const bad of [Buffer.from([0xe2, 0x82]), Buffer.from([0xc0, 0xaf])]) {
      const r = await call(t, 'POST', '/v1/sessions', {
        key: a.key,
        payload: Buffer.concat([Buffer.from('{"name":"'), bad, Buffer.from('"}')]),
        headers: { 'content-type': 'application/json' },
      });
      expectError(r, 400, 'BAD_REQUEST');
    }
    // Valid UTF-8 beyond ASCII is kept as sent.
    const ok = await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'café ☕ 🎥' } });
    expect(ok.body.data.name).toBe('café ☕ 🎥');
  });

  it('answers errors of every layer below the routes in the envelope: bad percent-encoding, an over-long path parameter, over-large headers', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(base);
    /** Sends raw HTTP and reads the whole answer (the server may close after it). */
    const raw = (request: string) =>
      new Promise<{ status: number; headers: string; body: string }>((ok, fail) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.on('data', (d) => {
          text += d.toString('latin1');
          const end = text.indexOf('\r\n\r\n');
          const length = /content-length: (\d+)/i.exec(text)?.[1];
          if (end >= 0 && length !== undefined && text.length >= end + 4 + Number(length)) socket.end();
        });
        socket.on('error', fail);
        socket.on('close', () => {
          const end = text.indexOf('\r\n\r\n');
          ok({
            status: Number(text.slice(9, 12)),
            headers: text.slice(0, end),
            body: text.slice(end + 4),
          });
        });
      });
    const expectEnvelope = (res: { status: number; headers: string; body: string }, status: number) => {
      expect(res.status, res.body).toBe(status);
      expect(res.headers).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(res.body);
      expect(body.data).toBeNull();
      expect(body.error.code).toBe('BAD_REQUEST');
      return body.error.message as string;
    };
    const auth = `authorization: Bearer ${a.key}\r\n`;

    const badEncoding = await raw(`GET /v1/sessions/%zz HTTP/1.1\r\nhost: x\r\n${auth}\r\n`);
    expect(expectEnvelope(badEncoding, 400)).toMatch(/percent-encoding/);

    // However long, an id is a bad request naming its field, as a short wrong one is.
    for (const length of [300, 5000]) {
      const longParam = await raw(
        `GET /v1/sessions/${'a'.repeat(length)} HTTP/1.1\r\nhost: x\r\n${auth}\r\n`,
      );
      expect(expectEnvelope(longParam, 400)).toBe('path.sessionId must be a valid uuid');
    }
    const longUser = await raw(
      `DELETE /v1/sessions/00000000-0000-4000-8000-000000000000/participants/${'u'.repeat(5000)} HTTP/1.1\r\nhost: x\r\n${auth}\r\n`,
    );
    expect(expectEnvelope(longUser, 400)).toMatch(/^path\.userId must be at most 128 characters/);

    const bigHeader = await raw(
      `GET /v1/sessions HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(expectEnvelope(bigHeader, 431)).toMatch(/headers/);

    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    expectEnvelope(garbage, 400);
  });

  it('lets a web player on any site read public, credential-free routes (CORS), and never credentialed ones', async () => {
    const a = await tenant(t);
    const origin = { origin: 'https://player.example' };
    const s = (await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'public one' } })).body.data;
    await call(t, 'PUT', `/v1/sessions/${s.id}/visibility`, { key: a.key, body: { is_public: true } });
    for (const path of [
      '/v1/public/sessions',
      `/v1/public/sessions/${s.id}/manifest`,
      `/v1/public/sessions/${s.id}/playback/timeline`,
      `/v1/public/sessions/${s.id}/playback?from_ts=0`,
      `/v1/public/sessions/${s.id}/replay`,
    ]) {
      const res = await call(t, 'GET', path, { headers: origin });
      expect(res.status, path).toBe(200);
      expect(res.headers['access-control-allow-origin'], path).toBe('*');
      expect(res.headers['access-control-allow-credentials'], path).toBeUndefined();
      const preflight = await call(t, 'OPTIONS', path.split('?')[0]!, {
        headers: {
          ...origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'range',
        },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers['access-control-allow-origin'], path).toBe('*');
      expect(String(preflight.headers['access-control-allow-methods'])).toMatch(/GET/);
      expect(preflight.headers['access-control-allow-credentials'], path).toBeUndefined();
    }
    // Credentialed routes answer no CORS at all, preflight included: a browser on another site
    // cannot call them with the user's cookie or read what they answer.
    for (const path of ['/v1/sessions', `/v1/sessions/${s.id}/playback?from_ts=0`, '/v1/auth/login']) {
      const res = await call(t, 'GET', path, { key: a.key, headers: origin });
      expect(res.headers['access-control-allow-origin'], path).toBeUndefined();
      const preflight = await call(t, 'OPTIONS', path.split('?')[0]!, {
        headers: { ...origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-origin'], path).toBeUndefined();
      expect(preflight.status, path).toBeGreaterThanOrEqual(400);
    }
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await call(t, 'POST', '/v1/sessions', {
      key: a.key,
      payload: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a body over 1 MiB with 413 and writes nothing', async () => {
    const res = await call(t, 'POST', '/v1/sessions', {
      key: a.key,
      body: { name: 'x'.repeat(1024 * 1024) },
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    const list = await call(t, 'GET', '/v1/sessions', { key: a.key });
    expect(list.body.data).toEqual([]);
  });

  it('names the field of a wrong type, a missing field and an unknown field', async () => {
    expect(
      expectError(
        await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 7 } }),
        400,
        'BAD_REQUEST',
      ),
    ).toBe('body.name must be a string');
    expect(
      expectError(await call(t, 'POST', '/v1/projects', { key: a.key, body: {} }), 400, 'BAD_REQUEST'),
    ).toBe('body.name is required');
    expect(
      expectError(
        await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'x', nmae: 'y' } }),
        400,
        'BAD_REQUEST',
      ),
    ).toBe('body.nmae is not a known field');
    expect(
      expectError(await call(t, 'POST', '/v1/sessions', { key: a.key, body: [1] }), 400, 'BAD_REQUEST'),
    ).toBe('body must be an object');
  });

  it('names a bad path parameter and a bad query parameter', async () => {
    expect(
      expectError(await call(t, 'GET', '/v1/sessions/not-a-uuid', { key: a.key }), 400, 'BAD_REQUEST'),
    ).toBe('path.sessionId must be a valid uuid');
    expect(
      expectError(await call(t, 'GET', '/v1/sessions?limit=abc', { key: a.key }), 400, 'BAD_REQUEST'),
    ).toBe('query.limit must be an integer');
    expect(
      expectError(await call(t, 'GET', '/v1/sessions?limit=201', { key: a.key }), 400, 'BAD_REQUEST'),
    ).toMatch(/^query\.limit must be <= 200/);
    expect(
      expectError(await call(t, 'GET', '/v1/sessions?cursor=zzz', { key: a.key }), 400, 'BAD_REQUEST'),
    ).toMatch(/query\.cursor/);
  });

  it('accepts a creating POST with no body at all where every field is optional', async () => {
    const res = await call(t, 'POST', '/v1/sessions', {
      key: a.key,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('');
  });

  it('publishes an OpenAPI 3.1 document of every route, and a reference page', async () => {
    const res = await call(t, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.raw);
    expect(doc.openapi).toBe('3.1.0');
    const routes = Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    for (const expected of [
      'GET /health',
      'POST /v1/auth/register',
      'POST /v1/auth/login',
      'POST /v1/auth/logout',
      'GET /v1/me',
      'GET /v1/projects',
      'POST /v1/projects',
      'GET /v1/projects/{projectId}',
      'PATCH /v1/projects/{projectId}',
      'GET /v1/members',
      'PATCH /v1/members/{userId}',
      'DELETE /v1/members/{userId}',
      'GET /v1/api-keys',
      'POST /v1/projects/{projectId}/api-keys',
      'PATCH /v1/api-keys/{keyId}',
      'DELETE /v1/api-keys/{keyId}',
      'GET /v1/restricted-keys',
      'POST /v1/restricted-keys',
      'DELETE /v1/restricted-keys/{keyId}',
      'POST /v1/projects/{projectId}/sessions',
      'POST /v1/sessions',
      'GET /v1/sessions',
      'GET /v1/sessions/{sessionId}',
      'GET /v1/projects/{projectId}/sessions/{sessionId}',
      'PUT /v1/sessions/{sessionId}/visibility',
      'DELETE /v1/sessions/{sessionId}',
      'GET /v1/public/sessions',
      'POST /v1/projects/{projectId}/invitations',
      'POST /v1/invitations/redeem',
      'POST /v1/sessions/{sessionId}/connection',
      'GET /v1/sessions/{sessionId}/manifest',
      'GET /v1/sessions/{sessionId}/playback',
      'GET /v1/sessions/{sessionId}/playback/timeline',
      'GET /v1/sessions/{sessionId}/timeline',
      'GET /v1/public/sessions/{sessionId}/manifest',
      'GET /v1/public/sessions/{sessionId}/playback',
      'GET /v1/public/sessions/{sessionId}/playback/timeline',
      'GET /v1/public/sessions/{sessionId}/timeline',
      'GET /v1/public/sessions/{sessionId}/replay',
      'POST /v1/sessions/{sessionId}/replay-links',
      'GET /v1/sessions/{sessionId}/replay-links',
      'DELETE /v1/sessions/{sessionId}/replay-links',
      'DELETE /v1/sessions/{sessionId}/replay-links/{linkId}',
      'DELETE /v1/sessions/{sessionId}/participants/{userId}',
    ]) {
      expect(routes).toContain(expected);
    }
    // The WebSocket protocol, binary frames included, is described in the document itself.
    expect(doc.info.description).toContain('/ws?session=');
    expect(doc.info.description).toContain('0x56');
    const create = doc.paths['/v1/sessions'].post;
    expect(create.responses['201']).toBeDefined();
    expect(create.responses['4XX'] ?? create.responses['4xx']).toBeDefined();
    expect(create.security.length).toBeGreaterThan(0);
    const docs = await call(t, 'GET', '/docs/');
    expect(docs.status).toBe(200);
    expect(docs.raw).toMatch(/swagger/i);
  });

  it("serves the reference page and its files with the dashboard's security headers: never framed, never sniffed, scripts from this origin only", async () => {
    const dashboard = await call(t, 'GET', '/login');
    for (const path of [
      '/docs',
      '/docs/',
      '/docs/static/swagger-initializer.js',
      '/docs/static/swagger-ui-bundle.js',
    ]) {
      const res = await call(t, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers['x-frame-options'], path).toBe('DENY');
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
      expect(res.headers['content-security-policy'], path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['content-security-policy'], path).toMatch(
        /script-src 'self' 'wasm-unsafe-eval'(;|$)/,
      );
      if (dashboard.status === 200)
        expect(res.headers['content-security-policy'], path).toBe(
          dashboard.headers['content-security-policy'],
        );
    }
  });

  it('answers health 503 in plain text when the database does not answer', async () => {
    const broken = await startApp();
    await broken.runtime.database.close();
    const res = await call(broken, 'GET', '/health');
    expect(res.status).toBe(503);
    expect(res.raw).toBe('database unavailable');
    await broken.app.close();
    await broken.runtime.counters.close();
  });

  it('builds next-page links on the public base URL', async () => {
    for (let i = 0; i < 3; i++)
      await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: `s${i}` } });
    const res = await call(t, 'GET', '/v1/sessions?limit=2', { key: a.key });
    expect(String(res.headers.link)).toMatch(
      new RegExp(`^<${BASE}/v1/sessions\\?limit=2&cursor=[^>]+>; rel="next"$`),
    );
  });
});
