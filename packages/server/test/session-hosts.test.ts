import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  inviteMember,
  startApp,
  tenant,
  type Account,
  type Tenant,
  type TestApp,
} from './support/app.js';

/**
 * What a member may do to a session someone else created: join, watch, read and export it, but
 * not change it for everyone. Making it public and deleting it used to be open to every member
 * while pausing it was not; one rule now holds for every change.
 */
describe("a member and another's session", () => {
  let t: TestApp;
  let a: Tenant;
  let member: Account;
  const ORIGIN = { origin: 'http://vss.test' };
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    member = await inviteMember(t, a);
  });
  afterAll(() => t.close());

  const as = (who: Account, method: string, path: string, body?: unknown) =>
    call(t, method, path, { cookie: who.cookie, headers: ORIGIN, ...(body === undefined ? {} : { body }) });

  /** Every change to a session, and what the 403 says a member may not do. */
  const changes = (id: string, linkId: string, replayId: string) =>
    [
      ['PUT', `/v1/sessions/${id}/visibility`, { is_public: true }, 'make it public or private'],
      ['POST', `/v1/sessions/${id}/join-links`, {}, 'invite guests to it'],
      ['DELETE', `/v1/sessions/${id}/join-links/${linkId}`, undefined, 'revoke its join links'],
      ['POST', `/v1/sessions/${id}/replay-links`, {}, 'share its replay'],
      ['DELETE', `/v1/sessions/${id}/replay-links/${replayId}`, undefined, 'revoke its replay links'],
      ['DELETE', `/v1/sessions/${id}/replay-links`, undefined, 'revoke its replay links'],
      ['DELETE', `/v1/sessions/${id}/participants/alice`, undefined, 'redact a participant'],
      ['POST', `/v1/sessions/${id}/recording/pause`, undefined, 'change what it records'],
      ['PUT', `/v1/sessions/${id}/recording-rules`, { rules: [] }, 'change what it records'],
      ['POST', `/v1/sessions/${id}/participants/alice/remove`, undefined, 'remove a participant'],
      ['DELETE', `/v1/sessions/${id}`, undefined, 'delete it'],
    ] as const;

  it('may read it but change nothing of it: each change is refused with 403 saying so, and nothing changed', async () => {
    const s = await createSession(t, a.key, 'the owner’s');
    const link = (await call(t, 'POST', `/v1/sessions/${s.id}/join-links`, { key: a.key, body: {} })).body
      .data;
    const replay = (await call(t, 'POST', `/v1/sessions/${s.id}/replay-links`, { key: a.key, body: {} })).body
      .data;
    for (const [method, path, body, doing] of changes(s.id, link.id, replay.id)) {
      const res = await as(member, method, path, body);
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 403`);
      expect(expectError(res, 403, 'FORBIDDEN')).toBe(
        `only the session's creator or an admin of the organisation may ${doing}`,
      );
    }
    // Nothing changed, and reading is open.
    const read = await as(member, 'GET', `/v1/sessions/${s.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.is_public).toBe(false);
    expect((await as(member, 'GET', `/v1/sessions/${s.id}/join-links`)).body.data).toHaveLength(1);
    expect((await as(member, 'GET', `/v1/sessions/${s.id}/replay-links`)).body.data).toHaveLength(1);
    // The owner (an admin of the organisation) may make each change.
    expect((await as(a, 'PUT', `/v1/sessions/${s.id}/visibility`, { is_public: true })).status).toBe(200);
    expect((await as(a, 'DELETE', `/v1/sessions/${s.id}`)).status).toBe(200);
  });

  it('may change a session of their own', async () => {
    const created = await as(member, 'POST', '/v1/sessions', { name: 'mine' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await as(member, 'PUT', `/v1/sessions/${id}/visibility`, { is_public: true })).status).toBe(200);
    const link = await as(member, 'POST', `/v1/sessions/${id}/join-links`, {});
    expect(link.status).toBe(201);
    expect((await as(member, 'DELETE', `/v1/sessions/${id}/join-links/${link.body.data.id}`)).status).toBe(
      200,
    );
    expect((await as(member, 'POST', `/v1/sessions/${id}/replay-links`, {})).status).toBe(201);
    expect((await as(member, 'POST', `/v1/sessions/${id}/recording/pause`)).status).toBe(200);
    expect((await as(member, 'DELETE', `/v1/sessions/${id}`)).status).toBe(200);
  });
});
