import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  call,
  createSession,
  email,
  expectError,
  startApp,
  tenant,
  type Call,
  type Tenant,
  type TestApp,
} from './support/app.js';

describe('tenant isolation', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  /** A's second project, and a key of it */
  let a2: { id: string; key: string };
  let aSession: any;
  let aSession2: any;
  /** an extra labelled API key of A's Default project */
  let aKey: { id: string; secret: string };
  let aRestrictedId: string;
  let aInvitationId: string;
  /** every identifier of A's that B must never see */
  let aIds: string[];
  let bSession: any;
  let bRestricted: { id: string; secret: string };
  let bInvitationId: string;

  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    b = await tenant(t);

    const project = await call(t, 'POST', '/v1/projects', {
      key: a.key,
      body: { name: 'Second', environment: 'staging' },
    });
    expect(project.status).toBe(201);
    a2 = { id: project.body.data.id, key: await apiKey(t, a, project.body.data.id) };
    aSession = await createSession(t, a.key, 'A default session');
    aSession2 = await createSession(t, a2.key, 'A second session');
    const key = await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, {
      key: a.key,
      body: { label: 'A label' },
    });
    expect(key.status).toBe(201);
    aKey = { id: key.body.data.id, secret: key.body.data.secret };
    const rk = await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { label: 'A restricted' } });
    expect(rk.status).toBe(201);
    aRestrictedId = rk.body.data.id;
    const inv = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
      key: a.key,
      body: { email: email('a-invitee'), role: 'member' },
    });
    expect(inv.status).toBe(201);
    aInvitationId = inv.body.data.id;

    const aKeys = await call(t, 'GET', '/v1/api-keys', { key: a.key });
    aIds = [
      a.orgId,
      a.userId,
      a.projectId,
      a2.id,
      aSession.id,
      aSession2.id,
      aRestrictedId,
      aInvitationId,
      ...(aKeys.body.data as any[]).map((k) => k.id),
    ];
    expect(aIds).toContain(aKey.id);

    bSession = await createSession(t, b.key, 'B session');
    const brk = await call(t, 'POST', '/v1/restricted-keys', { key: b.key, body: {} });
    bRestricted = { id: brk.body.data.id, secret: brk.body.data.secret };
    const binv = await call(t, 'POST', `/v1/projects/${b.projectId}/invitations`, {
      key: b.key,
      body: { email: email('b-invitee'), role: 'member' },
    });
    bInvitationId = binv.body.data.id;
  });
  afterAll(() => t.close());

  const notFound = async (credential: Call, method: string, url: string, body?: unknown) => {
    const res = await call(t, method, url, { ...credential, ...(body === undefined ? {} : { body }) });
    try {
      expectError(res, 404, 'NOT_FOUND');
    } catch (err) {
      throw new Error(`${method} ${url}: ${(err as Error).message}`);
    }
  };

  for (const which of ['key', 'cookie'] as const) {
    describe(`B's ${which}`, () => {
      const as = (): Call => (which === 'key' ? { key: b.key } : { cookie: b.cookie });

      it("cannot read or change A's projects: 404, never 403", async () => {
        for (const id of [a.projectId, a2.id]) {
          await notFound(as(), 'GET', `/v1/projects/${id}`);
          await notFound(as(), 'PATCH', `/v1/projects/${id}`, { name: 'taken over' });
        }
      });

      it("cannot create keys, sessions or invitations in A's project", async () => {
        await notFound(as(), 'POST', `/v1/projects/${a.projectId}/api-keys`, {});
        await notFound(as(), 'POST', '/v1/restricted-keys', { project_id: a.projectId });
        await notFound(as(), 'POST', `/v1/projects/${a.projectId}/sessions`, { name: 'intruder' });
        await notFound(as(), 'POST', `/v1/projects/${a2.id}/sessions`, { name: 'intruder' });
        await notFound(as(), 'POST', `/v1/projects/${a.projectId}/invitations`, {
          email: email('intruder'),
          role: 'admin',
        });
      });

      it("cannot read, publish or delete A's session", async () => {
        await notFound(as(), 'GET', `/v1/projects/${a.projectId}/sessions/${aSession.id}`);
        await notFound(as(), 'GET', `/v1/projects/${b.projectId}/sessions/${aSession.id}`);
        await notFound(as(), 'GET', `/v1/projects/${a.projectId}/sessions`);
        await notFound(as(), 'GET', `/v1/sessions/${aSession.id}`);
        await notFound(as(), 'PUT', `/v1/sessions/${aSession.id}/visibility`, { is_public: true });
        await notFound(as(), 'DELETE', `/v1/sessions/${aSession.id}`);
        const catalog = await call(t, 'GET', '/v1/public/sessions');
        expect(catalog.raw).not.toContain(aSession.id);
      });

      it("cannot relabel or delete A's keys, nor revoke A's invitation", async () => {
        await notFound(as(), 'PATCH', `/v1/api-keys/${aKey.id}`, { label: 'taken over' });
        await notFound(as(), 'DELETE', `/v1/api-keys/${aKey.id}`);
        await notFound(as(), 'PATCH', `/v1/restricted-keys/${aRestrictedId}`, { label: 'taken over' });
        await notFound(as(), 'DELETE', `/v1/restricted-keys/${aRestrictedId}`);
        await notFound(as(), 'DELETE', `/v1/invitations/${aInvitationId}`);
        // A's key still works
        expect((await call(t, 'GET', '/v1/sessions', { key: aKey.secret })).status).toBe(200);
      });

      it("cannot change or remove A's owner", async () => {
        await notFound(as(), 'PATCH', `/v1/members/${a.userId}`, { role: 'member' });
        await notFound(as(), 'DELETE', `/v1/members/${a.userId}`);
        const me = await call(t, 'GET', '/v1/me', { cookie: a.cookie });
        expect(me.status).toBe(200);
        expect(me.body.data).toMatchObject({ org_id: a.orgId, role: 'owner' });
      });

      it("lists only B's own things, never any of A's", async () => {
        const own: Record<string, string> = {
          '/v1/projects': b.projectId,
          '/v1/sessions': bSession.id,
          '/v1/api-keys': b.projectId,
          '/v1/restricted-keys': bRestricted.id,
          '/v1/invitations': bInvitationId,
          '/v1/members': b.userId,
        };
        for (const [path, ownId] of Object.entries(own)) {
          const res = await call(t, 'GET', path, as());
          expect(res.status, path).toBe(200);
          expect(res.raw, path).toContain(ownId);
          for (const id of aIds) expect(res.raw, `${path} shows A's ${id}`).not.toContain(id);
        }
        const filtered = await call(t, 'GET', `/v1/api-keys?project_id=${a.projectId}`, as());
        expect([200, 404]).toContain(filtered.status);
        for (const id of aIds.filter((x) => x !== a.projectId)) expect(filtered.raw).not.toContain(id);
      });
    });
  }

  it("does not let B's cookie pick A's project with X-Project-Id", async () => {
    const headers = { 'x-project-id': a.projectId };
    expectError(await call(t, 'GET', '/v1/sessions', { cookie: b.cookie, headers }), 404, 'NOT_FOUND');
    expectError(
      await call(t, 'GET', `/v1/sessions/${aSession.id}`, { cookie: b.cookie, headers }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(t, 'POST', '/v1/sessions', { cookie: b.cookie, headers, body: { name: 'intruder' } }),
      404,
      'NOT_FOUND',
    );
  });

  it("does not let B's restricted key create a session in A's project", async () => {
    const res = await call(t, 'POST', `/v1/projects/${a.projectId}/sessions`, {
      key: bRestricted.secret,
      body: { name: 'intruder' },
    });
    expectError(res, 404, 'NOT_FOUND');
  });

  describe('inside one organisation', () => {
    it("a key of A's second project acts on that project only: A's Default sessions are 404 to it", async () => {
      await notFound({ key: a2.key }, 'GET', `/v1/sessions/${aSession.id}`);
      await notFound({ key: a2.key }, 'GET', `/v1/projects/${a.projectId}/sessions/${aSession.id}`);
      await notFound({ key: a2.key }, 'PUT', `/v1/sessions/${aSession.id}/visibility`, { is_public: true });
      await notFound({ key: a2.key }, 'DELETE', `/v1/sessions/${aSession.id}`);
      const list = await call(t, 'GET', '/v1/sessions', { key: a2.key });
      expect((list.body.data as any[]).map((s) => s.id)).toEqual([aSession2.id]);
      // while the Default project's own key reads it
      const own = await call(t, 'GET', `/v1/projects/${a.projectId}/sessions/${aSession.id}`, { key: a.key });
      expect(own.status).toBe(200);
      expect(own.body.data.id).toBe(aSession.id);
    });

    it("A's owner picks the second project with X-Project-Id, and gets the Default project without it", async () => {
      const second = await call(t, 'GET', '/v1/sessions', {
        cookie: a.cookie,
        headers: { 'x-project-id': a2.id },
      });
      expect(second.status).toBe(200);
      expect((second.body.data as any[]).map((s) => s.id)).toEqual([aSession2.id]);
      const byId = await call(t, 'GET', `/v1/sessions/${aSession2.id}`, {
        cookie: a.cookie,
        headers: { 'x-project-id': a2.id },
      });
      expect(byId.status).toBe(200);

      const first = await call(t, 'GET', '/v1/sessions', { cookie: a.cookie });
      expect((first.body.data as any[]).map((s) => s.id)).toEqual([aSession.id]);
    });
  });

  it("leaves every one of A's objects as it was after all of B's attempts", async () => {
    const projects = await call(t, 'GET', '/v1/projects', { key: a.key });
    expect((projects.body.data as any[]).map((p) => [p.id, p.name, p.environment])).toEqual([
      [a.projectId, 'Default', null],
      [a2.id, 'Second', 'staging'],
    ]);

    const session = await call(t, 'GET', `/v1/sessions/${aSession.id}`, { key: a.key });
    expect(session.body.data).toEqual(aSession);
    const session2 = await call(t, 'GET', `/v1/sessions/${aSession2.id}`, { key: a2.key });
    expect(session2.body.data).toEqual(aSession2);
    const sessions = await call(t, 'GET', '/v1/sessions', { key: a.key });
    expect((sessions.body.data as any[]).map((s) => s.id)).toEqual([aSession.id]);

    const keys = await call(t, 'GET', '/v1/api-keys', { key: a.key });
    expect(keys.body.data).toHaveLength(3);
    expect((keys.body.data as any[]).find((k) => k.id === aKey.id)?.label).toBe('A label');
    const restricted = await call(t, 'GET', '/v1/restricted-keys', { key: a.key });
    expect((restricted.body.data as any[]).map((k) => [k.id, k.label])).toEqual([
      [aRestrictedId, 'A restricted'],
    ]);

    const invitations = await call(t, 'GET', '/v1/invitations', { key: a.key });
    expect((invitations.body.data as any[]).map((i) => [i.id, i.accepted_at])).toEqual([
      [aInvitationId, null],
    ]);

    const members = await call(t, 'GET', '/v1/members', { key: a.key });
    expect((members.body.data as any[]).map((m) => [m.id, m.role])).toEqual([[a.userId, 'owner']]);
  });

  it("never replays A's answer to B for the same Idempotency-Key on the same path", async () => {
    const headers = { 'idempotency-key': 'same-key-in-two-organisations' };
    const first = await call(t, 'POST', '/v1/sessions', { key: a2.key, headers, body: { name: 'keyed' } });
    expect(first.status).toBe(201);
    const other = await call(t, 'POST', '/v1/sessions', { key: b.key, headers, body: { name: 'keyed' } });
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expect(other.body.data.project_id).toBe(b.projectId);
  });
});
