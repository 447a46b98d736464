import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  call,
  email,
  expectError,
  register,
  startApp,
  tenant,
  type Account,
  type Tenant,
  type TestApp,
} from './support/app.js';

describe('members of an organisation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  /** A user brought into the tenant's organisation with a role, through invite, register and redeem. */
  async function join(org: Tenant, role: 'admin' | 'member'): Promise<Account> {
    const address = email(role);
    const inv = await call(t, 'POST', `/v1/projects/${org.projectId}/invitations`, {
      key: org.key,
      body: { email: address, role },
    });
    if (inv.status !== 201) throw new Error(`invite failed: ${inv.raw}`);
    const account = await register(t, address);
    const res = await call(t, 'POST', '/v1/invitations/redeem', {
      cookie: account.cookie,
      body: { token: inv.body.data.token },
    });
    if (res.status !== 200) throw new Error(`redeem failed: ${res.raw}`);
    return { ...account, orgId: org.orgId, projectId: org.projectId };
  }

  async function members(org: Tenant): Promise<any[]> {
    const res = await call(t, 'GET', '/v1/members', { key: org.key });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  async function roleOf(org: Tenant, userId: string): Promise<string | undefined> {
    return (await members(org)).find((m) => m.id === userId)?.role;
  }

  const patch = (who: { key?: string; cookie?: string }, userId: string, body: unknown) =>
    call(t, 'PATCH', `/v1/members/${userId}`, { ...who, body });

  describe('listing', () => {
    it('lists the owner alone right after registration', async () => {
      const org = await tenant(t);
      const res = await call(t, 'GET', '/v1/members', { cookie: org.cookie });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toMatchObject({
        id: org.userId,
        email: org.email,
        org_id: org.orgId,
        role: 'owner',
      });
      expect(res.body.data[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('lists a redeemed invitee with the invited role, after the owner', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      const list = await members(org);
      expect(list.map((m) => [m.id, m.role])).toEqual([
        [org.userId, 'owner'],
        [member.userId, 'member'],
      ]);
      expect(list[1]).toMatchObject({ email: member.email, org_id: org.orgId });
    });

    it('is readable by a member too', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      const res = await call(t, 'GET', '/v1/members', { cookie: member.cookie });
      expect(res.status).toBe(200);
      expect((res.body.data as any[]).map((m) => m.id)).toEqual([org.userId, member.userId]);
    });
  });

  describe('changing roles', () => {
    it('lets an owner promote a member to admin, who then has admin rights', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      expectError(await call(t, 'GET', '/v1/invitations', { cookie: member.cookie }), 403, 'FORBIDDEN');

      const res = await patch({ cookie: org.cookie }, member.userId, { role: 'admin' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: member.userId,
        email: member.email,
        org_id: org.orgId,
        role: 'admin',
      });

      expect(await roleOf(org, member.userId)).toBe('admin');
      const me = await call(t, 'GET', '/v1/me', { cookie: member.cookie });
      expect(me.body.data.role).toBe('admin');
      expect((await call(t, 'GET', '/v1/invitations', { cookie: member.cookie })).status).toBe(200);
    });

    it('refuses a role that does not exist, naming body.role and the allowed roles', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      const msg = expectError(
        await patch({ cookie: org.cookie }, member.userId, { role: 'boss' }),
        400,
        'BAD_REQUEST',
      );
      expect(msg).toBe('body.role must be one of "owner", "admin", "member"');
      expect(expectError(await patch({ cookie: org.cookie }, member.userId, {}), 400, 'BAD_REQUEST')).toBe(
        'body.role is required',
      );
      expect(
        expectError(
          await patch({ cookie: org.cookie }, member.userId, { role: 'admin', extra: 1 }),
          400,
          'BAD_REQUEST',
        ),
      ).toBe('body.extra is not a known field');
      expect(
        expectError(await patch({ cookie: org.cookie }, 'not-a-uuid', { role: 'admin' }), 400, 'BAD_REQUEST'),
      ).toBe('path.userId must be a valid uuid');
      expect(await roleOf(org, member.userId)).toBe('member');
    });

    it('does not let the last owner demote themselves', async () => {
      const org = await tenant(t);
      await join(org, 'member');
      for (const role of ['admin', 'member']) {
        expectError(await patch({ cookie: org.cookie }, org.userId, { role }), 409, 'CONFLICT');
      }
      const me = await call(t, 'GET', '/v1/me', { cookie: org.cookie });
      expect(me.body.data.role).toBe('owner');
    });

    it('lets an owner step down once another owner exists', async () => {
      const org = await tenant(t);
      const admin = await join(org, 'admin');
      expect((await patch({ cookie: org.cookie }, admin.userId, { role: 'owner' })).status).toBe(200);
      const res = await patch({ cookie: org.cookie }, org.userId, { role: 'admin' });
      expect(res.status).toBe(200);
      expect(res.body.data.role).toBe('admin');
      expect(await roleOf(org, org.userId)).toBe('admin');
      expect(await roleOf(org, admin.userId)).toBe('owner');
      // the new sole owner is now the last one
      expectError(await patch({ cookie: admin.cookie }, admin.userId, { role: 'member' }), 409, 'CONFLICT');
    });

    it('does not let an admin change or remove an owner', async () => {
      const org = await tenant(t);
      const admin = await join(org, 'admin');
      expectError(await patch({ cookie: admin.cookie }, org.userId, { role: 'member' }), 403, 'FORBIDDEN');
      expectError(
        await call(t, 'DELETE', `/v1/members/${org.userId}`, { cookie: admin.cookie }),
        403,
        'FORBIDDEN',
      );
      expect(await roleOf(org, org.userId)).toBe('owner');
    });

    it('does not let an admin make anyone an owner', async () => {
      const org = await tenant(t);
      const admin = await join(org, 'admin');
      const member = await join(org, 'member');
      expectError(await patch({ cookie: admin.cookie }, member.userId, { role: 'owner' }), 403, 'FORBIDDEN');
      expectError(await patch({ cookie: admin.cookie }, admin.userId, { role: 'owner' }), 403, 'FORBIDDEN');
      expect(await roleOf(org, member.userId)).toBe('member');
      expect(await roleOf(org, admin.userId)).toBe('admin');
    });

    it('lets an admin promote a member to admin', async () => {
      const org = await tenant(t);
      const admin = await join(org, 'admin');
      const member = await join(org, 'member');
      const res = await patch({ cookie: admin.cookie }, member.userId, { role: 'admin' });
      expect(res.status).toBe(200);
      expect(await roleOf(org, member.userId)).toBe('admin');
    });

    it('does not let a member change anyone, themselves included', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      const other = await join(org, 'member');
      expectError(await patch({ cookie: member.cookie }, other.userId, { role: 'admin' }), 403, 'FORBIDDEN');
      expectError(await patch({ cookie: member.cookie }, member.userId, { role: 'admin' }), 403, 'FORBIDDEN');
      expectError(
        await call(t, 'DELETE', `/v1/members/${other.userId}`, { cookie: member.cookie }),
        403,
        'FORBIDDEN',
      );
      expect(await roleOf(org, other.userId)).toBe('member');
      expect(await roleOf(org, member.userId)).toBe('member');
    });

    it('answers 404 for a user id that is not a member', async () => {
      const org = await tenant(t);
      const nobody = '00000000-0000-4000-8000-000000000000';
      expectError(await patch({ cookie: org.cookie }, nobody, { role: 'admin' }), 404, 'NOT_FOUND');
      expectError(await call(t, 'DELETE', `/v1/members/${nobody}`, { cookie: org.cookie }), 404, 'NOT_FOUND');
    });
  });

  describe('removing', () => {
    it('removes a member by deleting their account: their cookie and password stop working', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      const res = await call(t, 'DELETE', `/v1/members/${member.userId}`, { cookie: org.cookie });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: member.userId, deleted: true });

      expectError(await call(t, 'GET', '/v1/me', { cookie: member.cookie }), 401, 'UNAUTHORIZED');
      expect((await members(org)).map((m) => m.id)).toEqual([org.userId]);
      const login = await call(t, 'POST', '/v1/auth/login', {
        body: { email: member.email, password: PASSWORD },
      });
      expectError(login, 401, 'UNAUTHORIZED');
      expectError(
        await call(t, 'DELETE', `/v1/members/${member.userId}`, { cookie: org.cookie }),
        404,
        'NOT_FOUND',
      );
    });

    it('does not remove the last owner', async () => {
      const org = await tenant(t);
      await join(org, 'member');
      expectError(
        await call(t, 'DELETE', `/v1/members/${org.userId}`, { cookie: org.cookie }),
        409,
        'CONFLICT',
      );
      expectError(await call(t, 'DELETE', `/v1/members/${org.userId}`, { key: org.key }), 403, 'FORBIDDEN');
      const me = await call(t, 'GET', '/v1/me', { cookie: org.cookie });
      expect(me.status).toBe(200);
      expect(me.body.data.role).toBe('owner');
    });
  });

  describe('the last owner under concurrent requests', () => {
    /** An organisation with two owners: the registering one and a promoted invitee. */
    async function twoOwners(): Promise<{ org: Tenant; second: Account }> {
      const org = await tenant(t);
      const second = await join(org, 'admin');
      const res = await patch({ cookie: org.cookie }, second.userId, { role: 'owner' });
      if (res.status !== 200) throw new Error(`promote failed: ${res.raw}`);
      return { org, second };
    }

    const owners = async (org: Tenant) => (await members(org)).filter((m) => m.role === 'owner').length;

    it('two owners stepping down at the same moment leave the organisation with an owner', async () => {
      const orgs = await Promise.all(Array.from({ length: 8 }, () => twoOwners()));
      const answers = await Promise.all(
        orgs.map(({ org, second }) =>
          Promise.all([
            patch({ cookie: org.cookie }, org.userId, { role: 'member' }),
            patch({ cookie: second.cookie }, second.userId, { role: 'member' }),
          ]),
        ),
      );
      for (let i = 0; i < orgs.length; i++) {
        expect(await owners(orgs[i]!.org)).toBe(1);
        expect(answers[i]!.map((r) => r.status).sort()).toEqual([200, 409]);
      }
    });

    it('two owners removing each other at the same moment leave the organisation with an owner', async () => {
      const orgs = await Promise.all(Array.from({ length: 8 }, () => twoOwners()));
      const answers = await Promise.all(
        orgs.map(({ org, second }) =>
          Promise.all([
            call(t, 'DELETE', `/v1/members/${second.userId}`, { cookie: org.cookie }),
            call(t, 'DELETE', `/v1/members/${org.userId}`, { cookie: second.cookie }),
          ]),
        ),
      );
      for (let i = 0; i < orgs.length; i++) {
        expect(await owners(orgs[i]!.org)).toBe(1);
        // the other request is refused: its caller is gone (401) or is now the last owner (409)
        expect(answers[i]!.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
      }
    });
  });

  describe('API keys, which act as admins', () => {
    it('can change a member to admin and remove a member', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      const res = await patch({ key: org.key }, member.userId, { role: 'admin' });
      expect(res.status).toBe(200);
      expect(res.body.data.role).toBe('admin');
      expect(await roleOf(org, member.userId)).toBe('admin');

      const leaving = await join(org, 'member');
      expect((await call(t, 'DELETE', `/v1/members/${leaving.userId}`, { key: org.key })).status).toBe(200);
      expect(await roleOf(org, leaving.userId)).toBeUndefined();
    });

    it('cannot touch an owner, nor make anyone an owner', async () => {
      const org = await tenant(t);
      const member = await join(org, 'member');
      expectError(await patch({ key: org.key }, org.userId, { role: 'member' }), 403, 'FORBIDDEN');
      expectError(await call(t, 'DELETE', `/v1/members/${org.userId}`, { key: org.key }), 403, 'FORBIDDEN');
      expectError(await patch({ key: org.key }, member.userId, { role: 'owner' }), 403, 'FORBIDDEN');
      expect(await roleOf(org, org.userId)).toBe('owner');
      expect(await roleOf(org, member.userId)).toBe('member');
    });
  });
});
