import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '../src/bus/events.js';
import {
  call,
  createSession,
  expectError,
  tenant,
  type Res,
  type Tenant,
  type TestApp,
  useApp,
} from './support/app.js';

const SESSION_FIELDS = [
  'created_at',
  'created_by',
  'ended_at',
  'id',
  'is_public',
  'name',
  'project_id',
  'started_at',
];

describe('sessions', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => ((t = app), (a = tenant)));

  it('creates a session on either route, not started, private, made by an API key', async () => {
    const one = await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'Standup' } });
    expect(one.status).toBe(201);
    expect(Object.keys(one.body.data).sort()).toEqual(SESSION_FIELDS);
    expect(one.body.data).toMatchObject({
      project_id: a.projectId,
      name: 'Standup',
      created_by: 'api_key',
      started_at: null,
      ended_at: null,
      is_public: false,
    });
    const two = await call(t, 'POST', `/v1/projects/${a.projectId}/sessions`, { key: a.key, body: {} });
    expect(two.status).toBe(201);
    expect(two.body.data).toMatchObject({ project_id: a.projectId, name: '' });
  });

  it('publishes session.created on the internal bus with the session', async () => {
    const seen: DomainEvent[] = [];
    const off = t.runtime.bus.on('session.created', (e) => seen.push(e));
    const s = await createSession(t, a.key, 'observed');
    off();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      type: 'session.created',
      projectId: a.projectId,
      orgId: a.orgId,
      sessionId: s.id,
    });
    expect(seen[0]!.data).toEqual(s);
  });

  it('refuses bad session input and writes nothing', async () => {
    const before = (await call(t, 'GET', '/v1/sessions?limit=200', { key: a.key })).body.data.length;
    expect(
      expectError(
        await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'x'.repeat(201) } }),
        400,
        'BAD_REQUEST',
      ),
    ).toBe('body.name must be at most 200 characters');
    expect(
      expectError(
        await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: null } }),
        400,
        'BAD_REQUEST',
      ),
    ).toBe('body.name must be a string');
    expectError(
      await call(t, 'POST', '/v1/projects/not-a-uuid/sessions', { key: a.key, body: {} }),
      400,
      'BAD_REQUEST',
    );
    expect((await call(t, 'GET', '/v1/sessions?limit=200', { key: a.key })).body.data.length).toBe(before);
  });

  it('gets a session by id on both routes, and 404 for another project of the same organisation', async () => {
    const s = await createSession(t, a.key);
    expect(
      (await call(t, 'GET', `/v1/projects/${a.projectId}/sessions/${s.id}`, { key: a.key })).body.data,
    ).toEqual(s);
    expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data).toEqual(s);

    const other = (await call(t, 'POST', '/v1/projects', { key: a.key, body: { name: 'Other' } })).body.data;
    const otherKey = (await call(t, 'POST', `/v1/projects/${other.id}/api-keys`, { key: a.key })).body.data
      .secret;
    expectError(
      await call(t, 'GET', `/v1/projects/${a.projectId}/sessions/${s.id}`, { key: otherKey }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(t, 'GET', `/v1/projects/${other.id}/sessions/${s.id}`, { key: otherKey }),
      404,
      'NOT_FOUND',
    );
    expectError(await call(t, 'GET', `/v1/sessions/${s.id}`, { key: otherKey }), 404, 'NOT_FOUND');
    expectError(
      await call(t, 'GET', `/v1/sessions/00000000-0000-7000-8000-000000000000`, { key: a.key }),
      404,
      'NOT_FOUND',
    );
  });

  it('lists sessions newest first, page by page, each exactly once', async () => {
    const b = await tenant(t);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await createSession(t, b.key, `s${i}`)).id);
    const seen: string[] = [];
    let url: string | null = '/v1/sessions?limit=3';
    let pages = 0;
    while (url) {
      const page: Res = await call(t, 'GET', url, { key: b.key });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: { id: string }) => s.id));
      const link = page.headers.link as string | undefined;
      url = link ? link.slice(link.indexOf('/v1/'), link.indexOf('>')) : null;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
    const all = (await call(t, 'GET', `/v1/projects/${b.projectId}/sessions`, { key: b.key })).body.data;
    expect(all.map((s: { id: string }) => s.id)).toEqual([...made].reverse());
    const times = all.map((s: { created_at: string }) => s.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('makes a session public and private, and the catalog shows only public ones, reduced', async () => {
    const s = await createSession(t, a.key, 'Town hall');
    const hidden = await createSession(t, a.key, 'Secret');
    const put = await call(t, 'PUT', `/v1/sessions/${s.id}/visibility`, {
      key: a.key,
      body: { is_public: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ data: true, error: null });
    expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.is_public).toBe(true);

    const catalog = await call(t, 'GET', '/v1/public/sessions');
    expect(catalog.status).toBe(200);
    const entry = catalog.body.data.find((e: { id: string }) => e.id === s.id);
    expect(entry).toEqual({
      id: s.id,
      name: 'Town hall',
      created_at: s.created_at,
      started_at: null,
      ended_at: null,
    });
    expect(catalog.raw).not.toContain(a.projectId);
    expect(catalog.body.data.map((e: { id: string }) => e.id)).not.toContain(hidden.id);

    const off = await call(t, 'PUT', `/v1/sessions/${s.id}/visibility`, {
      key: a.key,
      body: { is_public: false },
    });
    expect(off.body.data).toBe(false);
    expect(
      (await call(t, 'GET', '/v1/public/sessions')).body.data.map((e: { id: string }) => e.id),
    ).not.toContain(s.id);

    expectError(
      await call(t, 'PUT', `/v1/sessions/${s.id}/visibility`, { key: a.key, body: {} }),
      400,
      'BAD_REQUEST',
    );
    expect(
      expectError(
        await call(t, 'PUT', `/v1/sessions/${s.id}/visibility`, { key: a.key, body: { is_public: 'yes' } }),
        400,
        'BAD_REQUEST',
      ),
    ).toBe('body.is_public must be a boolean');
  });

  it('deletes an idle session, and refuses a live one with 409', async () => {
    const idle = await createSession(t, a.key);
    expect((await call(t, 'DELETE', `/v1/sessions/${idle.id}`, { key: a.key })).body.data).toEqual({
      id: idle.id,
      deleted: true,
    });
    expectError(await call(t, 'GET', `/v1/sessions/${idle.id}`, { key: a.key }), 404, 'NOT_FOUND');

    const live = await createSession(t, a.key);
    await t.runtime.database.db
      .updateTable('sessions')
      .set({ started_at: Date.now() })
      .where('id', '=', live.id)
      .execute();
    expectError(await call(t, 'DELETE', `/v1/sessions/${live.id}`, { key: a.key }), 409, 'CONFLICT');
    expect((await call(t, 'GET', `/v1/sessions/${live.id}`, { key: a.key })).status).toBe(200);
  });

  it('lets a dashboard user pick the project of project-implicit routes with X-Project-Id', async () => {
    const second = (await call(t, 'POST', '/v1/projects', { cookie: a.cookie, body: { name: 'Second' } }))
      .body.data;
    const res = await call(t, 'POST', '/v1/sessions', {
      cookie: a.cookie,
      body: { name: 'in second' },
      headers: { 'x-project-id': second.id },
    });
    expect(res.body.data.project_id).toBe(second.id);
    const list = await call(t, 'GET', '/v1/sessions', {
      cookie: a.cookie,
      headers: { 'x-project-id': second.id },
    });
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([res.body.data.id]);
    const b = await tenant(t);
    expectError(
      await call(t, 'GET', '/v1/sessions', { cookie: a.cookie, headers: { 'x-project-id': b.projectId } }),
      404,
      'NOT_FOUND',
    );
  });
});
