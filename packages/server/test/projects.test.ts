import { describe, expect, it } from 'vitest';
import { call, expectError, tenant, type Res, type Tenant, type TestApp, useApp } from './support/app.js';

describe('projects', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => ((t = app), (a = tenant)));

  it('creates a project in the organisation with an API key, and lists it after the Default one', async () => {
    const res = await call(t, 'POST', '/v1/projects', {
      key: a.key,
      body: { name: 'Mobile', environment: 'staging' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Mobile', environment: 'staging', org_id: a.orgId });
    const list = await call(t, 'GET', '/v1/projects', { key: a.key });
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Default', 'Mobile']);
    expect(list.body.data[1]).toEqual(res.body.data);
  });

  it('defaults environment to null and accepts every allowed value', async () => {
    expect(
      (await call(t, 'POST', '/v1/projects', { key: a.key, body: { name: 'n' } })).body.data.environment,
    ).toBeNull();
    for (const environment of ['development', 'staging', 'production', null]) {
      const res = await call(t, 'POST', '/v1/projects', { key: a.key, body: { name: 'e', environment } });
      expect(res.body.data.environment).toBe(environment);
    }
  });

  it('refuses bad project input, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'body.name is required'],
      [{ name: '' }, 'body.name must not be empty'],
      [{ name: 'x'.repeat(201) }, 'body.name must be at most 200 characters'],
      [{ name: 3 }, 'body.name must be a string'],
      [
        { name: 'x', environment: 'prod' },
        'body.environment must be one of "development", "staging", "production", null',
      ],
      [{ name: 'x', colour: 'red' }, 'body.colour is not a known field'],
    ];
    for (const [body, message] of cases) {
      expect(
        expectError(await call(t, 'POST', '/v1/projects', { key: a.key, body }), 400, 'BAD_REQUEST'),
      ).toBe(message);
    }
  });

  it('gets and updates a project', async () => {
    const created = (await call(t, 'POST', '/v1/projects', { key: a.key, body: { name: 'Old' } })).body.data;
    const got = await call(t, 'GET', `/v1/projects/${created.id}`, { key: a.key });
    expect(got.body.data).toEqual(created);
    const patched = await call(t, 'PATCH', `/v1/projects/${created.id}`, {
      cookie: a.cookie,
      body: { name: 'New', environment: 'production' },
    });
    expect(patched.body.data).toEqual({ ...created, name: 'New', environment: 'production' });
    expect((await call(t, 'GET', `/v1/projects/${created.id}`, { key: a.key })).body.data.name).toBe('New');
    expectError(
      await call(t, 'PATCH', `/v1/projects/${created.id}`, { key: a.key, body: {} }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'GET', '/v1/projects/00000000-0000-7000-8000-000000000000', { key: a.key }),
      404,
      'NOT_FOUND',
    );
  });

  it('keeps the sites that may frame its room, refuses anything but exact origins naming the entry, and frames the room for those only', async () => {
    const id = a.projectId;
    const path = `/v1/projects/${id}`;
    expect((await call(t, 'GET', path, { key: a.key })).body.data.embed_origins).toEqual([]);
    const room = () => call(t, 'GET', `/embed/${id}`);
    expect(String((await room()).headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    const bad: Array<[unknown, string]> = [
      [['javascript:alert(1)'], 'body.embed_origins[0]'],
      [['https://ok.example.com', 'https://app.example.com/call'], 'body.embed_origins[1]'],
      [['https://app.example.com/'], 'body.embed_origins[0]'],
      [['https://*.example.com'], 'body.embed_origins[0]'],
      [['http://app.example.com'], 'body.embed_origins[0]'],
      [['https://u:p@app.example.com'], 'body.embed_origins[0]'],
      [Array.from({ length: 21 }, (_, i) => `https://a${i}.example.com`), 'body.embed_origins'],
      ['https://app.example.com', 'body.embed_origins'],
    ];
    for (const [embed_origins, field] of bad) {
      const res = await call(t, 'PATCH', path, { key: a.key, body: { embed_origins } });
      expect(res.status, JSON.stringify(embed_origins)).toBe(400);
      expect(res.body.error!.message).toContain(field);
    }
    // Nothing was half written.
    expect((await call(t, 'GET', path, { key: a.key })).body.data.embed_origins).toEqual([]);
    const good = [
      'https://app.example.com',
      'https://app.example.com:8443',
      'http://localhost:3000',
      'http://[::1]:3000',
    ];
    const saved = await call(t, 'PATCH', path, { key: a.key, body: { embed_origins: [...good, good[0]] } });
    expect(saved.status).toBe(200);
    expect(saved.body.data.embed_origins).toEqual(good);
    expect((await call(t, 'GET', path, { key: a.key })).body.data.embed_origins).toEqual(good);
    const page = await room();
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    expect(String(page.headers['content-security-policy'])).toContain(`frame-ancestors ${good.join(' ')}`);
    expect(page.headers['x-frame-options']).toBeUndefined();
    // Every other page is still never framed; an unknown project's room is 404.
    expect(String((await call(t, 'GET', '/sessions')).headers['content-security-policy'])).toContain(
      "frame-ancestors 'none'",
    );
    expect((await call(t, 'GET', '/embed/no-such-project')).status).toBe(404);
    await call(t, 'PATCH', path, { key: a.key, body: { embed_origins: [] } });
    expect(String((await room()).headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });

  it('pages through projects with limit and the Link header', async () => {
    const b = await tenant(t);
    for (let i = 0; i < 4; i++)
      await call(t, 'POST', '/v1/projects', { key: b.key, body: { name: `p${i}` } });
    const seen: string[] = [];
    let url: string | null = '/v1/projects?limit=2';
    while (url) {
      const page: Res = await call(t, 'GET', url, { key: b.key });
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((p: { name: string }) => p.name));
      const link = page.headers.link as string | undefined;
      url = link
        ? new URL(/<([^>]+)>/.exec(link)![1]!).pathname + new URL(/<([^>]+)>/.exec(link)![1]!).search
        : null;
    }
    expect(seen).toEqual(['Default', 'p0', 'p1', 'p2', 'p3']);
  });

  it('needs a credential', async () => {
    expectError(await call(t, 'GET', '/v1/projects'), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'POST', '/v1/projects', { body: { name: 'x' } }), 401, 'UNAUTHORIZED');
  });
});
