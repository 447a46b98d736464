import { createHash } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { listen, openSocket, token } from './support/live.js';

describe('connection tokens', () => {
  let t: TestApp;
  let a: Tenant;
  let session: { id: string; project_id: string };
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    session = await createSession(t, a.key);
  });
  afterAll(() => t.close());

  it('issues a 300-second HS256 token with the claims of the connection', async () => {
    const res = await call(t, 'POST', `/v1/sessions/${session.id}/connection`, {
      key: a.key,
      body: { user_id: 'alice', replay: true, from_ts: 1000, speed: 2, focus: 'media/bob/cam' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ expires_in: 300, session: session.id });
    const header = decodeProtectedHeader(res.body.data.access_token);
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    expect(header.kid).toMatch(/^[0-9a-f]{16}$/);
    const claims = decodeJwt(res.body.data.access_token);
    expect(claims).toMatchObject({
      aud: 'ws',
      sub: 'alice',
      sid: session.id,
      pid: a.projectId,
      mode: 'replay',
      from_ts: 1000,
      speed: 2,
      focus: 'media/bob/cam',
    });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(typeof claims.jti).toBe('string');
    const live = decodeJwt(await token(t, a.key, session.id, 'bob'));
    expect(live).toMatchObject({ mode: 'live', speed: 1, from_ts: null, focus: null });
  });

  it('is available to restricted keys and the dashboard cookie', async () => {
    const rk = (await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: {} })).body.data.secret;
    expect(
      (
        await call(t, 'POST', `/v1/sessions/${session.id}/connection`, {
          key: rk,
          body: { user_id: 'app-r' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(t, 'POST', `/v1/sessions/${session.id}/connection`, {
          cookie: a.cookie,
          body: {},
        })
      ).status,
    ).toBe(200);
  });

  it('refuses bad requests, naming the field', async () => {
    const url = `/v1/sessions/${session.id}/connection`;
    const cases: Array<[unknown, string]> = [
      [{}, 'body.user_id is required'],
      [{ user_id: '' }, 'body.user_id must not be empty'],
      [{ user_id: 'a/b' }, 'body.user_id has an invalid format'],
      [{ user_id: 'a', speed: 0.1 }, 'body.speed must be >= 0.25'],
      [{ user_id: 'a', speed: 17 }, 'body.speed must be <= 16'],
      [{ user_id: 'a', from_ts: -1 }, 'body.from_ts must be >= 0'],
      [{ user_id: 'a', from_ts: 1.5 }, 'body.from_ts must be an integer'],
      [{ user_id: 'a', replay: 'yes' }, 'body.replay must be a boolean'],
      [{ user_id: 'a', room: 'x' }, 'body.room is not a known field'],
    ];
    for (const [body, message] of cases)
      expect(expectError(await call(t, 'POST', url, { key: a.key, body }), 400, 'BAD_REQUEST')).toBe(message);
  });

  it('is 404 for a session of another project or organisation', async () => {
    const b = await tenant(t);
    expectError(
      await call(t, 'POST', `/v1/sessions/${session.id}/connection`, { key: b.key, body: { user_id: 'x' } }),
      404,
      'NOT_FOUND',
    );
  });

  it('refuses a live token for an ended session with 409, and still allows replay', async () => {
    const ended = await createSession(t, a.key);
    await t.runtime.database.db
      .updateTable('sessions')
      .set({ started_at: Date.now() - 1000, ended_at: Date.now() })
      .where('id', '=', ended.id)
      .execute();
    expectError(
      await call(t, 'POST', `/v1/sessions/${ended.id}/connection`, { key: a.key, body: { user_id: 'x' } }),
      409,
      'CONFLICT',
    );
    expect(
      (
        await call(t, 'POST', `/v1/sessions/${ended.id}/connection`, {
          key: a.key,
          body: { user_id: 'x', replay: true },
        })
      ).status,
    ).toBe(200);
  });
});

describe('the WebSocket upgrade', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  let session: { id: string };
  let kid: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    session = await createSession(t, a.key);
    base = await listen(t);
    kid = createHash('sha256').update(t.config.keys.jwt).digest('hex').slice(0, 16);
  });
  afterAll(() => t.close());

  const refused = async (query: Record<string, string>) => {
    try {
      const s = await openSocket(base, query);
      s.ws.close();
      return 0;
    } catch (err) {
      return (err as { status?: number }).status ?? -1;
    }
  };
  const sign = (
    key: Uint8Array,
    claims: Record<string, unknown>,
    exp: number | string,
    alg = 'HS256',
    keyId = kid,
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg, kid: keyId })
      .setSubject('alice')
      .setAudience('ws')
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(key);

  it('accepts a valid token', async () => {
    const access_token = await token(t, a.key, session.id, 'alice');
    const s = await openSocket(base, { session: session.id, access_token, user_id: 'alice' });
    const welcome = await s.waitFor((m) => m.event === 'welcome');
    expect(welcome).toMatchObject({
      type: 'control',
      user_id: 'alice',
      data: { session_id: session.id, user_id: 'alice', participants: ['alice'] },
    });
    s.ws.close();
    await s.closed;
  });

  it('refuses with 401 before the upgrade: missing, garbage, expired, forged, another session, another user', async () => {
    const good = await token(t, a.key, session.id, 'alice');
    const other = await createSession(t, a.key);
    const claims = { sid: session.id, pid: a.projectId, mode: 'live' };
    const expired = await sign(t.config.keys.jwt, claims, Math.floor(Date.now() / 1000) - 60);
    const forged = await sign(new Uint8Array(32).fill(7), claims, '5m');
    const unsignedParts = [
      Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url'),
      Buffer.from(JSON.stringify({ ...claims, sub: 'alice', aud: 'ws', exp: 9999999999 })).toString(
        'base64url',
      ),
      '',
    ];
    expect(await refused({ session: session.id, user_id: 'alice' })).toBe(401);
    expect(await refused({ session: session.id, access_token: 'not.a.jwt', user_id: 'alice' })).toBe(401);
    expect(await refused({ session: session.id, access_token: expired, user_id: 'alice' })).toBe(401);
    expect(await refused({ session: session.id, access_token: forged, user_id: 'alice' })).toBe(401);
    expect(
      await refused({ session: session.id, access_token: unsignedParts.join('.'), user_id: 'alice' }),
    ).toBe(401);
    expect(await refused({ session: other.id, access_token: good, user_id: 'alice' })).toBe(401);
    expect(await refused({ session: session.id, access_token: good, user_id: 'mallory' })).toBe(401);
    expect(await refused({ session: session.id, access_token: good })).toBe(401);
  });

  it('accepts a token within the 10 s clock leeway, and refuses it past that', async () => {
    const claims = { sid: session.id, pid: a.projectId, mode: 'live' };
    const justExpired = await sign(t.config.keys.jwt, claims, Math.floor(Date.now() / 1000) - 3);
    expect(await refused({ session: session.id, access_token: justExpired, user_id: 'alice' })).toBe(0);
    const longExpired = await sign(t.config.keys.jwt, claims, Math.floor(Date.now() / 1000) - 30);
    expect(await refused({ session: session.id, access_token: longExpired, user_id: 'alice' })).toBe(401);
  });

  it('refuses a live token once the session has ended (409)', async () => {
    const s = await createSession(t, a.key);
    const access_token = await token(t, a.key, s.id, 'alice');
    await t.runtime.database.db
      .updateTable('sessions')
      .set({ started_at: Date.now() - 1000, ended_at: Date.now() })
      .where('id', '=', s.id)
      .execute();
    expect(await refused({ session: s.id, access_token, user_id: 'alice' })).toBe(409);
  });
});
