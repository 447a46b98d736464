import { describe, expect, it } from 'vitest';
import {
  BASE,
  call,
  email,
  expectError,
  register,
  type Account,
  type Tenant,
  type TestApp,
  useApp,
} from './support/app.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

describe('invitations', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => ((t = app), (a = tenant)));

  /** Invites an address into A's organisation with the key and returns the created invitation. */
  async function invite(address: string, role = 'member') {
    const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
      key: a.key,
      body: { email: address, role },
    });
    if (res.status !== 201) throw new Error(`invite failed: ${res.raw}`);
    return res.body.data;
  }

  /** A user brought into A's organisation with a role, through invite, register and redeem. */
  async function joinA(role: 'admin' | 'member'): Promise<Account> {
    const address = email('joiner');
    const { token } = await invite(address, role);
    const account = await register(t, address);
    const res = await call(t, 'POST', '/v1/invitations/redeem', { cookie: account.cookie, body: { token } });
    if (res.status !== 200) throw new Error(`redeem failed: ${res.raw}`);
    return { ...account, orgId: a.orgId, projectId: a.projectId };
  }

  async function listed(id: string) {
    const res = await call(t, 'GET', '/v1/invitations', { key: a.key });
    expect(res.status).toBe(200);
    return (res.body.data as any[]).find((i) => i.id === id);
  }

  async function me(cookie: string) {
    const res = await call(t, 'GET', '/v1/me', { cookie });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  describe('creating', () => {
    it('answers 201 with the invitation, its token once and an accept URL on the public base URL', async () => {
      const address = email('invitee');
      const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
        key: a.key,
        body: { email: address, role: 'member' },
      });
      expect(res.status).toBe(201);
      const inv = res.body.data;
      expect(res.body.error).toBeNull();
      expect(inv).toEqual({
        id: expect.any(String),
        org_id: a.orgId,
        email: address,
        role: 'member',
        created_by: 'api_key',
        created_at: expect.stringMatching(ISO),
        expires_at: expect.stringMatching(ISO),
        accepted_at: null,
        token: expect.any(String),
        accept_url: expect.any(String),
      });
      expect(inv.token.length).toBeGreaterThanOrEqual(20);
      expect(inv.accept_url).toBe(`${BASE}/invite?token=${encodeURIComponent(inv.token)}`);
      expect(Date.parse(inv.expires_at) - Date.parse(inv.created_at)).toBe(SEVEN_DAYS_MS);
    });

    it('records the inviting user as created_by when a dashboard user invites', async () => {
      const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
        cookie: a.cookie,
        body: { email: email('invitee'), role: 'admin' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.created_by).toBe(a.userId);
      expect(res.body.data.role).toBe('admin');
    });

    it('names the missing email, the invalid email, the unknown field and the bad project id', async () => {
      const path = `/v1/projects/${a.projectId}/invitations`;
      expect(
        expectError(
          await call(t, 'POST', path, { key: a.key, body: { role: 'member' } }),
          400,
          'BAD_REQUEST',
        ),
      ).toBe('body.email is required');
      expect(
        expectError(
          await call(t, 'POST', path, { key: a.key, body: { email: 'not-an-email', role: 'member' } }),
          400,
          'BAD_REQUEST',
        ),
      ).toBe('body.email must be a valid email');
      expect(
        expectError(
          await call(t, 'POST', path, { key: a.key, body: { email: email(), role: 'member', project: 'x' } }),
          400,
          'BAD_REQUEST',
        ),
      ).toBe('body.project is not a known field');
      expect(
        expectError(
          await call(t, 'POST', '/v1/projects/not-a-uuid/invitations', {
            key: a.key,
            body: { email: email(), role: 'member' },
          }),
          400,
          'BAD_REQUEST',
        ),
      ).toBe('path.projectId must be a valid uuid');
    });

    it('refuses the roles owner and boss with 400 naming body.role, and creates nothing', async () => {
      const address = email('roleless');
      for (const role of ['owner', 'boss']) {
        const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
          key: a.key,
          body: { email: address, role },
        });
        expect(expectError(res, 400, 'BAD_REQUEST')).toMatch(/^body\.role /);
      }
      const list = await call(t, 'GET', '/v1/invitations', { key: a.key });
      expect((list.body.data as any[]).map((i) => i.email)).not.toContain(address);
    });

    it('tells which roles are allowed when the role is not one of them (not just "admin")', async () => {
      for (const role of ['owner', 'boss']) {
        const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
          key: a.key,
          body: { email: email(), role },
        });
        expect(expectError(res, 400, 'BAD_REQUEST')).toBe('body.role must be one of "admin", "member"');
      }
    });

    it('refuses to invite an email that already belongs to the organisation, whatever its letter case', async () => {
      for (const address of [a.email, a.email.toUpperCase()]) {
        const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
          key: a.key,
          body: { email: address, role: 'member' },
        });
        expectError(res, 409, 'CONFLICT');
      }
    });

    it('does not let a member invite anyone', async () => {
      const member = await joinA('member');
      const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
        cookie: member.cookie,
        body: { email: email(), role: 'member' },
      });
      expectError(res, 403, 'FORBIDDEN');
    });

    it('lets an admin invite', async () => {
      const admin = await joinA('admin');
      const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
        cookie: admin.cookie,
        body: { email: email(), role: 'member' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.created_by).toBe(admin.userId);
    });

    it('replays the same invitation for a retried Idempotency-Key, and creates only one', async () => {
      const address = email('retried');
      const send = () =>
        call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
          key: a.key,
          headers: { 'idempotency-key': `invite-${address}` },
          body: { email: address, role: 'member' },
        });
      const first = await send();
      const again = await send();
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
      expect(again.body).toEqual(first.body);
      const list = await call(t, 'GET', '/v1/invitations', { key: a.key });
      expect((list.body.data as any[]).filter((i) => i.email === address)).toHaveLength(1);
    });
  });

  describe('listing and revoking', () => {
    it('lists invitations newest first without their tokens', async () => {
      const older = await invite(email('older'));
      const newer = await invite(email('newer'));
      const res = await call(t, 'GET', '/v1/invitations', { key: a.key });
      expect(res.status).toBe(200);
      const ids = (res.body.data as any[]).map((i) => i.id);
      expect(ids.indexOf(newer.id)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
      const entry = (res.body.data as any[]).find((i) => i.id === older.id);
      expect(entry).toEqual({
        id: older.id,
        org_id: a.orgId,
        email: older.email,
        role: 'member',
        created_by: 'api_key',
        created_at: older.created_at,
        expires_at: older.expires_at,
        accepted_at: null,
      });
      expect(res.raw).not.toContain(older.token);
      expect(res.raw).not.toContain(newer.token);
    });

    it('revokes an invitation: it leaves the list and its token no longer redeems', async () => {
      const address = email('revoked');
      const inv = await invite(address);
      const res = await call(t, 'DELETE', `/v1/invitations/${inv.id}`, { key: a.key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: inv.id, deleted: true });
      expect(await listed(inv.id)).toBeUndefined();

      const invitee = await register(t, address);
      const redeem = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expectError(redeem, 404, 'NOT_FOUND');
      expect((await me(invitee.cookie)).org_id).toBe(invitee.orgId);

      expectError(await call(t, 'DELETE', `/v1/invitations/${inv.id}`, { key: a.key }), 404, 'NOT_FOUND');
    });
  });

  describe('redeeming', () => {
    it('moves the signed-in invitee into the inviting organisation with the invited role', async () => {
      const address = email('joiner');
      const inv = await invite(address, 'admin');
      const invitee = await register(t, address);
      const before = await me(invitee.cookie);
      expect(before.org_id).toBe(invitee.orgId);
      expect(before.role).toBe('owner');

      const res = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ user_id: invitee.userId, org_id: a.orgId, role: 'admin' });

      const after = await me(invitee.cookie);
      expect(after.org_id).toBe(a.orgId);
      expect(after.role).toBe('admin');

      const entry = await listed(inv.id);
      expect(entry.accepted_at).toMatch(ISO);
      expect(Date.parse(entry.accepted_at)).toBeGreaterThanOrEqual(Date.parse(entry.created_at));

      const projects = await call(t, 'GET', '/v1/projects', { cookie: invitee.cookie });
      expect((projects.body.data as any[]).map((p) => p.id)).toContain(a.projectId);
    });

    it('accepts the invited email in another letter case', async () => {
      const address = email('casey');
      const inv = await invite(address.toUpperCase());
      expect(inv.email).toBe(address);
      const invitee = await register(t, address);
      const res = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expect(res.status).toBe(200);
      expect((await me(invitee.cookie)).org_id).toBe(a.orgId);
    });

    it('refuses to redeem the same invitation twice', async () => {
      const address = email('twice');
      const inv = await invite(address);
      const invitee = await register(t, address);
      const first = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expect(first.status).toBe(200);
      const second = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expectError(second, 409, 'CONFLICT');
    });

    it('refuses an expired invitation and leaves the user where they were', async () => {
      const address = email('late');
      const inv = await invite(address);
      await t.runtime.database.db
        .updateTable('invitations')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', inv.id)
        .execute();
      const invitee = await register(t, address);
      const res = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expectError(res, 409, 'CONFLICT');
      const after = await me(invitee.cookie);
      expect(after.org_id).toBe(invitee.orgId);
      expect(after.role).toBe('owner');
      expect((await listed(inv.id)).accepted_at).toBeNull();
    });

    it('answers 404 for a token nobody issued', async () => {
      const someone = await register(t);
      const res = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: someone.cookie,
        body: { token: 'no-such-invitation-token-0000000000000' },
      });
      expectError(res, 404, 'NOT_FOUND');
    });

    it('refuses a user whose email is not the invited one, and the invitee can still redeem it', async () => {
      const address = email('intended');
      const inv = await invite(address);
      const stranger = await register(t);
      const res = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: stranger.cookie,
        body: { token: inv.token },
      });
      expectError(res, 403, 'FORBIDDEN');
      expect((await me(stranger.cookie)).org_id).toBe(stranger.orgId);

      const invitee = await register(t, address);
      const ok = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: inv.token },
      });
      expect(ok.status).toBe(200);
    });

    it('needs a signed-in user: an API key or no credential gets 401', async () => {
      const address = email('keyless');
      const inv = await invite(address);
      expectError(
        await call(t, 'POST', '/v1/invitations/redeem', { key: a.key, body: { token: inv.token } }),
        401,
        'UNAUTHORIZED',
      );
      expectError(
        await call(t, 'POST', '/v1/invitations/redeem', { body: { token: inv.token } }),
        401,
        'UNAUTHORIZED',
      );
      expect((await listed(inv.id)).accepted_at).toBeNull();
    });
  });

  describe('describing, for the page the link opens', () => {
    const describeInvitation = (token: string) =>
      call(t, 'GET', `/v1/invitations/lookup?token=${encodeURIComponent(token)}`);

    it('names the organisation, the role and who invited, to the holder of the token alone (no credential)', async () => {
      const address = email('described');
      // A dashboard user invites: the invitation names them.
      const res = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
        cookie: a.cookie,
        body: { email: address, role: 'admin' },
      });
      expect(res.status).toBe(201);
      const described = await describeInvitation(res.body.data.token);
      expect(described.status, described.raw).toBe(200);
      expect(described.body.data).toEqual({
        organisation: { id: a.orgId, name: a.email },
        role: 'admin',
        email: address,
        invited_by: { email: a.email },
        expires_at: res.body.data.expires_at,
      });
      // Describing takes nothing: the invitation still redeems.
      const invitee = await register(t, address);
      const redeemed = await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: res.body.data.token },
      });
      expect(redeemed.status).toBe(200);
    });

    it('names no inviter when an API key invited', async () => {
      const inv = await invite(email('by-key'));
      const described = await describeInvitation(inv.token);
      expect(described.status).toBe(200);
      expect(described.body.data).toMatchObject({
        organisation: { id: a.orgId, name: a.email },
        role: 'member',
        invited_by: null,
      });
    });

    it('answers an unknown token 404, a used or expired one 409, a missing or empty one 400 naming query.token', async () => {
      const unknown = await describeInvitation('no-such-invitation-token-0000000000000');
      expect(expectError(unknown, 404, 'NOT_FOUND')).toBe('invitation not found');
      expect(unknown.raw).not.toContain(a.email);

      const address = email('used');
      const used = await invite(address);
      const invitee = await register(t, address);
      await call(t, 'POST', '/v1/invitations/redeem', {
        cookie: invitee.cookie,
        body: { token: used.token },
      });
      expect(expectError(await describeInvitation(used.token), 409, 'CONFLICT')).toBe(
        'this invitation was already redeemed',
      );

      const late = await invite(email('late-described'));
      await t.runtime.database.db
        .updateTable('invitations')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', late.id)
        .execute();
      expect(expectError(await describeInvitation(late.token), 409, 'CONFLICT')).toBe(
        'this invitation has expired',
      );

      expect(expectError(await call(t, 'GET', '/v1/invitations/lookup'), 400, 'BAD_REQUEST')).toMatch(
        /^query\.token /,
      );
      expect(expectError(await call(t, 'GET', '/v1/invitations/lookup?token='), 400, 'BAD_REQUEST')).toMatch(
        /^query\.token /,
      );
    });
  });
});
