import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadPage, PAGE_PATHS, WEB_DIST } from '../src/modules/dashboard/routes.js';
import { call, createSession, useApp, type TestApp, type Tenant } from './support/app.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the dashboard, served by the server', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => {
    t = app;
    a = tenant;
  });

  it('answers its page at every app path, with a strict content security policy and no caching', async () => {
    for (const path of PAGE_PATHS) {
      const url = path.replace(/:[A-Za-z]+/g, '0190a0a0-0000-7000-8000-000000000000');
      const res = await call(t, 'GET', url, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status, url).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
      expect(res.raw).toContain('<div id="root"></div>');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
  });

  it('serves the built assets with a year of caching, and nothing outside their folder', async () => {
    const asset = readdirSync(`${WEB_DIST}/assets`).find((f) => f.endsWith('.js'))!;
    const res = await call(t, 'GET', `/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/javascript/);
    expect(String(res.headers['cache-control'])).toContain('immutable');
    expect((await call(t, 'GET', '/assets/nothing-here.js')).status).toBe(404);
    for (const escape of [
      '/assets/..%2findex.html',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/../index.html',
    ])
      expect((await call(t, 'GET', escape)).raw, escape).not.toContain('"name"');
  });

  it('keeps unknown paths and wrong methods enveloped errors, as before', async () => {
    const unknown = await call(t, 'GET', '/no-such-page', { headers: { accept: BROWSER_ACCEPT } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error!.code).toBe('NOT_FOUND');
    expect((await call(t, 'GET', '/v1/no-such-route')).body.error!.code).toBe('NOT_FOUND');
    const post = await call(t, 'POST', '/sessions', { body: {} });
    expect(post.status).toBe(405);
    expect(post.body.error!.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers a replay link opened in a browser with the player page, and API clients with the window', async () => {
    const s = await createSession(t, a.key);
    const link = (
      await call(t, 'POST', `/v1/sessions/${s.id}/replay-links`, {
        key: a.key,
        body: { expires_in_minutes: 5 },
      })
    ).body.data;
    const path = new URL(link.link).pathname + new URL(link.link).search;
    const page = await call(t, 'GET', path, { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    expect(page.raw).toContain('<div id="root"></div>');
    for (const accept of ['application/json', '*/*', undefined]) {
      const data = await call(t, 'GET', path, { headers: accept ? { accept } : {} });
      expect(data.status, String(accept)).toBe(200);
      expect(data.body.data.events).toEqual([]);
      expect(data.body.data.next_base_seq).toBeNull();
    }
    expect(page.headers.vary).toBe('Accept');
    expect((await call(t, 'GET', path, { headers: { accept: 'application/json' } })).headers.vary).toBe(
      'Accept',
    );
    // Named but refused, or preferred less than JSON: data.
    for (const accept of ['text/html;q=0, application/json', 'application/json, text/html;q=0.5']) {
      const res = await call(t, 'GET', path, { headers: { accept } });
      expect(String(res.headers['content-type']), accept).toMatch(/^application\/json/);
    }
    // A mangled link opened in a browser still gets the page, which explains it.
    const mangled = await call(t, 'GET', `${path}&from_ts=yesterday`, {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(mangled.status).toBe(200);
    expect(mangled.raw).toContain('<div id="root"></div>');
    expect((await call(t, 'GET', `${path}&from_ts=yesterday`)).status).toBe(400);
    // A bad token is still refused to API clients; the page explains it to a person.
    const bad = path.replace(/token=[^&]+/, 'token=not-a-token');
    expect((await call(t, 'GET', bad, { headers: { accept: 'application/json' } })).status).toBe(401);
    expect((await call(t, 'GET', bad, { headers: { accept: BROWSER_ACCEPT } })).status).toBe(200);
  });
});

describe("the dashboard's page", () => {
  it('is read again after a rebuild, and the last copy is served while the file is being replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-web-dist-'));
    const file = join(dir, 'index.html');
    writeFileSync(file, '<p>build one</p>');
    const page = loadPage(dir)!;
    const app = Fastify();
    app.get('/', (_req, reply) => page(reply));
    try {
      expect((await app.inject('/')).body).toBe('<p>build one</p>');
      writeFileSync(file, '<p>build two</p>');
      utimesSync(file, new Date(), new Date(Date.now() + 5000));
      expect((await app.inject('/')).body).toBe('<p>build two</p>');
      rmSync(file);
      const during = await app.inject('/');
      expect(during.statusCode).toBe(200);
      expect(during.body).toBe('<p>build two</p>');
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(loadPage(join(dir, 'missing'))).toBeNull();
  });
});
