import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, call, expectError, startApp, tenant, type TestApp } from './support/app.js';

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: { RATE_LIMIT_PER_KEY: '5', RATE_LIMIT_PER_IP: '3' } });
  });
  afterAll(() => t.close());

  it('counts requests per key, says so in RateLimit headers, and answers 429 with Retry-After past the limit', async () => {
    // Bootstrap through the cookie: a user's requests are counted for the user, not the key.
    const a = await tenant(t);
    const first = await call(t, 'GET', '/v1/sessions', { key: a.key });
    expect(first.headers['ratelimit-limit']).toBe('5');
    expect(first.headers['ratelimit-remaining']).toBe('4');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++)
      expect((await call(t, 'GET', '/v1/sessions', { key: a.key })).status).toBe(200);
    const refused = await call(t, 'GET', '/v1/sessions', { key: a.key });
    expect(expectError(refused, 429, 'RATE_LIMITED')).toMatch(/5 requests per minute/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-remaining']).toBe('0');

    // Another caller is not throttled by the first.
    const b = await tenant(t);
    expect((await call(t, 'GET', '/v1/sessions', { key: b.key })).status).toBe(200);
  });

  it('counts requests without a credential per client address', async () => {
    const from = (ip: string) =>
      t.app.inject({ method: 'GET', url: '/v1/public/sessions', remoteAddress: ip });
    for (let i = 0; i < 3; i++) expect((await from('10.0.0.1')).statusCode).toBe(200);
    const refused = await from('10.0.0.1');
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body).error.code).toBe('RATE_LIMITED');
    expect((await from('10.0.0.2')).statusCode).toBe(200);
  });

  it('counts failed authentication per client address: guessing keys gets 429, while a valid key from the same address is still answered, and other clients go on', async () => {
    const a = await tenant(t);
    const from = (ip: string, key: string) =>
      t.app.inject({
        method: 'GET',
        url: '/v1/sessions',
        remoteAddress: ip,
        headers: { authorization: `Bearer ${key}` },
      });
    const guess = () => `sk_live_${Math.random().toString(36).slice(2)}`;
    for (let i = 0; i < 3; i++) expect((await from('10.0.1.1', guess())).statusCode).toBe(401);
    // Fifteen more wrong guesses from the address: each refused with 429 and Retry-After.
    for (let i = 0; i < 15; i++) {
      const refused = await from('10.0.1.1', guess());
      expect(refused.statusCode).toBe(429);
      expect(JSON.parse(refused.body).error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Behind a shared NAT, one client's failures never lock out another's valid key, nor the
    // signed-in dashboard: only the failures are throttled.
    expect((await from('10.0.1.1', a.key)).statusCode).toBe(200);
    const signedIn = await t.app.inject({
      method: 'GET',
      url: '/v1/sessions',
      remoteAddress: '10.0.1.1',
      headers: { cookie: `service_session=${a.cookie}` },
    });
    expect(signedIn.statusCode).toBe(200);
    // ...and the next wrong guess from there is still throttled.
    expect((await from('10.0.1.1', guess())).statusCode).toBe(429);
    // Other clients are not slowed: a right key and a wrong one from elsewhere are answered as usual.
    expect((await from('10.0.1.2', a.key)).statusCode).toBe(200);
    expect((await from('10.0.1.3', guess())).statusCode).toBe(401);
    // A malformed header and an unknown cookie are failed attempts too.
    for (const headers of [{ authorization: 'Basic abc' }, { cookie: 'service_session=forged' }]) {
      for (let i = 0; i < 3; i++)
        await t.app.inject({ method: 'GET', url: '/v1/sessions', remoteAddress: '10.0.1.4', headers });
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/sessions',
        remoteAddress: '10.0.1.4',
        headers,
      });
      expect(res.statusCode).toBe(429);
    }
  });

  it('never limits the health check', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '10.0.0.9' });
      expect(res.statusCode).toBe(200);
    }
  });
});

describe.skipIf(!REDIS_URL)('rate limits shared through Redis', () => {
  it('counts one key across two server processes sharing Redis', async () => {
    const env = { REDIS_URL, RATE_LIMIT_PER_KEY: '4' };
    const one = await startApp({ env });
    // The second app uses the same storage, as a second process behind a load balancer would.
    const two = await startApp({ env, dataDir: one.dataDir, pgSchema: one.pgSchema });
    try {
      const a = await tenant(one);
      // A fresh key, so that earlier runs against the same Redis cannot interfere.
      expect((await call(one, 'GET', '/v1/sessions', { key: a.key })).status).toBe(200);
      expect((await call(two, 'GET', '/v1/sessions', { key: a.key })).status).toBe(200);
      expect((await call(one, 'GET', '/v1/sessions', { key: a.key })).status).toBe(200);
      expect((await call(two, 'GET', '/v1/sessions', { key: a.key })).status).toBe(200);
      expectError(await call(one, 'GET', '/v1/sessions', { key: a.key }), 429, 'RATE_LIMITED');
      expectError(await call(two, 'GET', '/v1/sessions', { key: a.key }), 429, 'RATE_LIMITED');
    } finally {
      await two.app.close();
      await two.runtime.close();
      await one.close();
    }
  });

  it('keeps two deployments sharing one Redis apart by REDIS_KEY_PREFIX, and refuses a prefix it cannot use', async () => {
    const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const from = (t: TestApp) =>
      t.app.inject({ method: 'GET', url: '/v1/public/sessions', remoteAddress: ip });
    const env = { REDIS_URL, RATE_LIMIT_PER_IP: '3' };
    const staging = await startApp({ env: { ...env, REDIS_KEY_PREFIX: `staging-${ip}:` } });
    const production = await startApp({ env: { ...env, REDIS_KEY_PREFIX: `production-${ip}:` } });
    try {
      // The same client address, three times on each: neither counts the other's requests.
      for (let i = 0; i < 3; i++) {
        expect((await from(staging)).statusCode).toBe(200);
        expect((await from(production)).statusCode).toBe(200);
      }
      expect((await from(staging)).statusCode).toBe(429);
      expect((await from(production)).statusCode).toBe(429);
    } finally {
      await production.close();
      await staging.close();
    }
    for (const bad of ['with space:', 'x'.repeat(65), 'ключ:'])
      await expect(startApp({ env: { REDIS_URL, REDIS_KEY_PREFIX: bad } })).rejects.toThrow(
        /REDIS_KEY_PREFIX/,
      );
  });

  it('throttles sign-in failures across processes', async () => {
    const { register, PASSWORD } = await import('./support/app.js');
    const one = await startApp({ env: { REDIS_URL } });
    const two = await startApp({ env: { REDIS_URL }, dataDir: one.dataDir, pgSchema: one.pgSchema });
    try {
      const victim = await register(one);
      for (let i = 0; i < 10; i++) {
        const app = i % 2 ? one : two;
        expect(
          (
            await call(app, 'POST', '/v1/auth/login', {
              body: { email: victim.email, password: 'wrong ' + i },
            })
          ).status,
        ).toBe(401);
      }
      expectError(
        await call(one, 'POST', '/v1/auth/login', { body: { email: victim.email, password: PASSWORD } }),
        429,
        'RATE_LIMITED',
      );
    } finally {
      await two.app.close();
      await two.runtime.close();
      await one.close();
    }
  });
});
