import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REDIS_URL,
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
  useApp,
} from './support/app.js';
import { eventually } from './support/live.js';

describe('API keys', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => ((t = app), (a = tenant)));

  it('shows a new key secret once, and stores only its peppered hash', async () => {
    const res = await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, {
      key: a.key,
      body: { label: 'ci' },
    });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created.secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(created).toMatchObject({
      project_id: a.projectId,
      label: 'ci',
      prefix: created.secret.slice(0, 12),
      last_used_at: null,
    });

    const list = await call(t, 'GET', '/v1/api-keys', { key: a.key });
    const listed = list.body.data.find((k: { id: string }) => k.id === created.id);
    const { secret: _secret, ...metadata } = created;
    expect(listed).toEqual(metadata);
    expect(list.raw).not.toContain(created.secret);

    const rows = await t.runtime.database.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(created.secret);
    expect(JSON.stringify(rows)).not.toContain(created.secret.slice(12));
  });

  it('accepts a key as Bearer or as X-API-Key, and records when it was last used', async () => {
    const created = (await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, { key: a.key })).body.data;
    expect((await call(t, 'GET', '/v1/sessions', { key: created.secret })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/sessions', { headers: { 'x-api-key': created.secret } })).status).toBe(
      200,
    );
    const deadline = Date.now() + 5000;
    let used: string | null = null;
    while (!used && Date.now() < deadline) {
      const list = await call(t, 'GET', '/v1/api-keys', { key: a.key });
      used = list.body.data.find((k: { id: string }) => k.id === created.id).last_used_at;
    }
    expect(used).toMatch(/Z$/);
  });

  it('relabels a key, and refuses bad labels', async () => {
    const created = (await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, { key: a.key })).body.data;
    expect(created.label).toBeNull();
    const res = await call(t, 'PATCH', `/v1/api-keys/${created.id}`, {
      key: a.key,
      body: { label: 'renamed' },
    });
    expect(res.body.data.label).toBe('renamed');
    expect(
      (await call(t, 'PATCH', `/v1/api-keys/${created.id}`, { key: a.key, body: { label: null } })).body.data
        .label,
    ).toBeNull();
    expectError(
      await call(t, 'PATCH', `/v1/api-keys/${created.id}`, { key: a.key, body: {} }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'PATCH', `/v1/api-keys/${created.id}`, { key: a.key, body: { label: 5 } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, {
        key: a.key,
        body: { label: 'x'.repeat(201) },
      }),
      400,
      'BAD_REQUEST',
    );
  });

  it('makes a deleted key invalid at once', async () => {
    const created = (await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, { key: a.key })).body.data;
    expect((await call(t, 'GET', '/v1/sessions', { key: created.secret })).status).toBe(200);
    const del = await call(t, 'DELETE', `/v1/api-keys/${created.id}`, { key: a.key });
    expect(del.body.data).toEqual({ id: created.id, deleted: true });
    expectError(await call(t, 'GET', '/v1/sessions', { key: created.secret }), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'DELETE', `/v1/api-keys/${created.id}`, { key: a.key }), 404, 'NOT_FOUND');
  });

  it('refuses missing, malformed, unknown and agent credentials with 401', async () => {
    expectError(await call(t, 'GET', '/v1/sessions'), 401, 'UNAUTHORIZED');
    expectError(
      await call(t, 'GET', '/v1/sessions', { headers: { authorization: 'Basic abc' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await call(t, 'GET', '/v1/sessions', { key: 'sk_live_' + 'A'.repeat(43) }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await call(t, 'GET', '/v1/sessions', { key: 'whatever' }), 401, 'UNAUTHORIZED');
    expect(
      expectError(await call(t, 'GET', '/v1/sessions', { key: 'sat_abcdef' }), 401, 'UNAUTHORIZED'),
    ).toMatch(/mcp/);
    // An API key presented with the restricted prefix is not accepted either.
    expectError(
      await call(t, 'GET', '/v1/sessions', { key: a.key.replace('sk_live_', 'rk_live_') }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('restricted keys', () => {
  let t: TestApp;
  let a: Tenant;
  let rk: { id: string; secret: string; project_id: string };
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    const res = await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { label: 'browser' } });
    expect(res.status).toBe(201);
    rk = res.body.data;
  });
  afterAll(() => t.close());

  it("issues an rk_live_ key for the caller's project, shown once", async () => {
    expect(rk.secret).toMatch(/^rk_live_[0-9A-Za-z]{43}$/);
    expect(rk.project_id).toBe(a.projectId);
    const list = await call(t, 'GET', '/v1/restricted-keys', { key: a.key });
    expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([rk.id]);
    expect(list.raw).not.toContain(rk.secret);
    // Restricted keys are not API keys: they are listed apart.
    const apiKeys = await call(t, 'GET', '/v1/api-keys', { key: a.key });
    expect(apiKeys.body.data.map((k: { id: string }) => k.id)).not.toContain(rk.id);
  });

  it('creates sessions on both routes, marked as made by a restricted key', async () => {
    const one = await call(t, 'POST', '/v1/sessions', { key: rk.secret, body: { name: 'r1' } });
    expect(one.status).toBe(201);
    expect(one.body.data).toMatchObject({ project_id: a.projectId, created_by: 'restricted_key' });
    const two = await call(t, 'POST', `/v1/projects/${a.projectId}/sessions`, {
      key: rk.secret,
      body: { name: 'r2' },
    });
    expect(two.status).toBe(201);
  });

  it('is refused with 403 on every route outside its list', async () => {
    const s = await createSession(t, a.key);
    const refused: Array<[string, string, unknown?]> = [
      ['GET', '/v1/sessions'],
      ['GET', `/v1/sessions/${s.id}`],
      ['GET', `/v1/projects/${a.projectId}/sessions/${s.id}`],
      ['PUT', `/v1/sessions/${s.id}/visibility`, { is_public: true }],
      ['DELETE', `/v1/sessions/${s.id}`],
      ['GET', '/v1/projects'],
      ['POST', '/v1/projects', { name: 'x' }],
      ['GET', '/v1/api-keys'],
      ['POST', `/v1/projects/${a.projectId}/api-keys`, {}],
      ['GET', '/v1/restricted-keys'],
      ['POST', '/v1/restricted-keys', {}],
      ['GET', '/v1/members'],
      ['POST', `/v1/projects/${a.projectId}/invitations`, { email: 'x@example.com', role: 'member' }],
    ];
    for (const [method, url, body] of refused) {
      const res = await call(t, method, url, { key: rk.secret, body });
      expect(`${method} ${url} ${res.status} ${res.body?.error?.code}`).toBe(
        `${method} ${url} 403 FORBIDDEN`,
      );
    }
    expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.is_public).toBe(false);
  });

  it('is refused at once after deletion', async () => {
    const other = (
      await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { project_id: a.projectId } })
    ).body.data;
    expect((await call(t, 'POST', '/v1/sessions', { key: other.secret })).status).toBe(201);
    expect((await call(t, 'DELETE', `/v1/restricted-keys/${other.id}`, { key: a.key })).status).toBe(200);
    expectError(await call(t, 'POST', '/v1/sessions', { key: other.secret }), 401, 'UNAUTHORIZED');
    // A restricted key id is not reachable through the API-key routes.
    expectError(await call(t, 'DELETE', `/v1/api-keys/${rk.id}`, { key: a.key }), 404, 'NOT_FOUND');
  });

  it('refuses a project outside the organisation and bad input', async () => {
    const b = await tenant(t);
    expectError(
      await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { project_id: b.projectId } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { project_id: 'nope' } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { scopes: [] } }),
      400,
      'BAD_REQUEST',
    );
  });
});

describe.skipIf(!REDIS_URL)('API keys across server processes', () => {
  it('refuses a key deleted through one process in the other, which had it cached', async () => {
    const one = await startApp({ env: { REDIS_URL } });
    const two = await startApp({ env: { REDIS_URL }, dataDir: one.dataDir, pgSchema: one.pgSchema });
    try {
      const a = await tenant(one);
      const created = (await call(one, 'POST', `/v1/projects/${a.projectId}/api-keys`, { key: a.key })).body
        .data;
      // Both processes have now resolved (and cached) the key.
      expect((await call(one, 'GET', '/v1/sessions', { key: created.secret })).status).toBe(200);
      expect((await call(two, 'GET', '/v1/sessions', { key: created.secret })).status).toBe(200);
      expect((await call(one, 'DELETE', `/v1/api-keys/${created.id}`, { key: a.key })).status).toBe(200);
      expectError(await call(one, 'GET', '/v1/sessions', { key: created.secret }), 401, 'UNAUTHORIZED');
      const refusedAfter = Date.now();
      await eventually(
        async () => (await call(two, 'GET', '/v1/sessions', { key: created.secret })).status === 401,
        2000,
        'refusal in the other process',
      );
      expect(Date.now() - refusedAfter).toBeLessThan(500);
    } finally {
      await two.app.close();
      await two.runtime.close();
      await one.close();
    }
  });
});
