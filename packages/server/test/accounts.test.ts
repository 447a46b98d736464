import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE,
  PASSWORD,
  call,
  email,
  expectError,
  register,
  sessionCookie,
  startApp,
  tenant,
  type TestApp,
} from './support/app.js';

describe('accounts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('registers a user with an organisation and a Default project, and signs them in', async () => {
    const address = email('Reg');
    const res = await call(t, 'POST', '/v1/auth/register', { body: { email: address, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body.error).toBeNull();
    expect(res.body.data).toMatchObject({ email: address.toLowerCase(), role: 'owner' });
    expect(res.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^service_session=[^;]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);

    const cookie = sessionCookie(res)!;
    const me = await call(t, 'GET', '/v1/me', { cookie });
    expect(me.body.data).toEqual({
      id: res.body.data.id,
      email: address.toLowerCase(),
      org_id: res.body.data.org_id,
      role: 'owner',
      created_at: res.body.data.created_at,
    });
    const projects = await call(t, 'GET', '/v1/projects', { cookie });
    expect(projects.body.data).toHaveLength(1);
    expect(projects.body.data[0]).toMatchObject({
      id: res.body.data.project_id,
      name: 'Default',
      environment: null,
    });
  });

  it('refuses a second account for the same email, whatever its case', async () => {
    const address = email();
    await register(t, address);
    const res = await call(t, 'POST', '/v1/auth/register', {
      body: { email: address.toUpperCase(), password: PASSWORD },
    });
    expectError(res, 409, 'CONFLICT');
  });

  it('refuses bad registrations, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ password: PASSWORD }, 'body.email is required'],
      [{ email: email() }, 'body.password is required'],
      [{ email: 'not-an-email', password: PASSWORD }, 'body.email must be a valid email'],
      [{ email: email(), password: 'short' }, 'body.password must be at least 8 characters'],
      [{ email: email(), password: 'x'.repeat(257) }, 'body.password must be at most 256 characters'],
      [{ email: email(), password: 12345678 }, 'body.password must be a string'],
      [{ email: email(), password: PASSWORD, admin: true }, 'body.admin is not a known field'],
    ];
    for (const [body, message] of cases) {
      expect(expectError(await call(t, 'POST', '/v1/auth/register', { body }), 400, 'BAD_REQUEST')).toBe(
        message,
      );
    }
  });

  it('never truncates a long password', async () => {
    const address = email();
    const long = 'p'.repeat(256);
    await call(t, 'POST', '/v1/auth/register', { body: { email: address, password: long } });
    expectError(
      await call(t, 'POST', '/v1/auth/login', { body: { email: address, password: long.slice(0, 255) } }),
      401,
      'UNAUTHORIZED',
    );
    expect(
      (await call(t, 'POST', '/v1/auth/login', { body: { email: address, password: long } })).status,
    ).toBe(200);
  });

  it('signs in with a fresh session id, revoking the one the client held', async () => {
    const account = await register(t);
    const res = await call(t, 'POST', '/v1/auth/login', {
      cookie: account.cookie,
      body: { email: account.email.toUpperCase(), password: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: account.userId, email: account.email });
    const fresh = sessionCookie(res)!;
    expect(fresh).not.toBe(account.cookie);
    expect((await call(t, 'GET', '/v1/me', { cookie: fresh })).status).toBe(200);
    expectError(await call(t, 'GET', '/v1/me', { cookie: account.cookie }), 401, 'UNAUTHORIZED');
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const account = await register(t);
    const wrong = await call(t, 'POST', '/v1/auth/login', {
      body: { email: account.email, password: 'wrong password' },
    });
    const unknown = await call(t, 'POST', '/v1/auth/login', {
      body: { email: email(), password: 'wrong password' },
    });
    expect(expectError(wrong, 401, 'UNAUTHORIZED')).toBe(expectError(unknown, 401, 'UNAUTHORIZED'));
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('throttles repeated failures for one email without locking out other users on the same address', async () => {
    const victim = await register(t);
    const other = await register(t);
    for (let i = 0; i < 10; i++) {
      expectError(
        await call(t, 'POST', '/v1/auth/login', { body: { email: victim.email, password: 'guess ' + i } }),
        401,
        'UNAUTHORIZED',
      );
    }
    const throttled = await call(t, 'POST', '/v1/auth/login', {
      body: { email: victim.email, password: PASSWORD },
    });
    expectError(throttled, 429, 'RATE_LIMITED');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // Someone else signing in from the same address is unaffected.
    expect(
      (await call(t, 'POST', '/v1/auth/login', { body: { email: other.email, password: PASSWORD } })).status,
    ).toBe(200);
  });

  it('signs out by revoking the session server-side and clearing the cookie', async () => {
    const account = await register(t);
    const res = await call(t, 'POST', '/v1/auth/logout', { cookie: account.cookie });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ signed_out: true });
    expect(String(res.headers['set-cookie'])).toMatch(/^service_session=;/);
    expectError(await call(t, 'GET', '/v1/me', { cookie: account.cookie }), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'GET', '/v1/projects', { cookie: account.cookie }), 401, 'UNAUTHORIZED');
  });

  it('needs the cookie for logout and me: no credential or an API key is 401', async () => {
    const a = await tenant(t);
    expectError(await call(t, 'GET', '/v1/me'), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'POST', '/v1/auth/logout'), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'GET', '/v1/me', { key: a.key }), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'GET', '/v1/me', { cookie: 'forged-value' }), 401, 'UNAUTHORIZED');
  });

  it('answers who is signed in, or null, without refusing a visitor who has no cookie', async () => {
    const account = await register(t);
    const signedIn = await call(t, 'GET', '/v1/auth/session', { cookie: account.cookie });
    expect(signedIn.status, signedIn.raw).toBe(200);
    expect(signedIn.body.data).toEqual(
      (await call(t, 'GET', '/v1/me', { cookie: account.cookie })).body.data,
    );
    const visitor = await call(t, 'GET', '/v1/auth/session');
    expect(visitor.status, visitor.raw).toBe(200);
    expect(visitor.body).toEqual({ data: null, error: null });
    // A cookie that is no longer valid: signed out, said as such.
    await call(t, 'POST', '/v1/auth/logout', { cookie: account.cookie });
    expectError(await call(t, 'GET', '/v1/auth/session', { cookie: account.cookie }), 401, 'UNAUTHORIZED');
    // An API key is not a dashboard sign-in.
    const a = await tenant(t);
    expect((await call(t, 'GET', '/v1/auth/session', { key: a.key })).status).toBe(401);
  });

  it('refuses cookie-authenticated writes from another site, and accepts them from its own origin', async () => {
    const a = await register(t);
    const body = { name: 'from the dashboard' };
    expectError(
      await call(t, 'POST', '/v1/sessions', {
        cookie: a.cookie,
        body,
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call(t, 'POST', '/v1/sessions', {
        cookie: a.cookie,
        body,
        headers: { 'sec-fetch-site': 'cross-site' },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call(t, 'POST', '/v1/sessions', {
        cookie: a.cookie,
        payload: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      403,
      'FORBIDDEN',
    );
    const ok = await call(t, 'POST', '/v1/sessions', {
      cookie: a.cookie,
      body,
      headers: { origin: BASE, 'sec-fetch-site': 'same-origin' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.created_by).toBe(a.userId);
    // Reads by cookie need no origin headers, and nothing was written by the refused attempts.
    const list = await call(t, 'GET', '/v1/sessions', {
      cookie: a.cookie,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(['from the dashboard']);
  });

  it('refuses a cross-site login form post', async () => {
    const a = await register(t);
    const res = await call(t, 'POST', '/v1/auth/login', {
      body: { email: a.email, password: PASSWORD },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expectError(res, 403, 'FORBIDDEN');
  });

  it('stores only an argon2id hash of the password', async () => {
    const a = await register(t);
    const row = await t.runtime.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', a.userId)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain(PASSWORD);
  });
});
