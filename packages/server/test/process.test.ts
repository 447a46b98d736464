import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { ENGINE, PG_URL } from './support/app.js';
import { freePort, runServer, waitForHttp, type Proc } from './support/process.js';

const run = runServer;
const waitFor = waitForHttp;

describe('configuration', () => {
  it('starts with nothing set: defaults, and a root secret generated once into DATA_DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    try {
      const c = loadConfig({ DATA_DIR: dir });
      expect(c).toMatchObject({
        port: 8080,
        host: '127.0.0.1',
        publicBaseUrl: 'http://127.0.0.1:8080',
        databaseUrl: null,
        redisUrl: null,
        drainTimeoutS: 30,
        drainGraceMs: 5000,
      });
      expect(c.webhookRetryDelaysS).toEqual([120, 240, 480, 960, 1920, 3840, 7680, 15360]);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      const again = loadConfig({ DATA_DIR: dir });
      expect(again.keys.apiKeyPepper.equals(c.keys.apiKeyPepper)).toBe(true);
      expect(again.keys.jwt.equals(again.keys.apiKeyPepper)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses each bad value with one message naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'eighty' }, /^PORT must be a whole number/],
      [{ PORT: '70000' }, /^PORT must be between 0 and 65535/],
      [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//],
      [{ REDIS_URL: 'nope' }, /^REDIS_URL must be a URL/],
      [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'maybe' }, /^WEBHOOK_ALLOW_PRIVATE_URLS must be true or false/],
      [{ WEBHOOK_RETRY_DELAYS_S: '120,soon' }, /^WEBHOOK_RETRY_DELAYS_S must be a comma-separated list/],
      [{ BILLING_PROVIDER: 'paypal' }, /^BILLING_PROVIDER must be one of none, stripe/],
      [{ BILLING_PROVIDER: 'stripe' }, /STRIPE_SECRET_KEY/],
      [{ SECRET_KEY: 'short' }, /^SECRET_KEY must be at least 32 characters/],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
      [{ FREE_TIER_STORAGE_GB: '-1' }, /^FREE_TIER_STORAGE_GB must be a non-negative number/],
      [{ DRAIN_GRACE_MS: 'soon' }, /^DRAIN_GRACE_MS must be a whole number/],
      [{ DRAIN_GRACE_MS: '5000', DRAIN_TIMEOUT_S: '5' }, /^DRAIN_GRACE_MS must be less than DRAIN_TIMEOUT_S/],
    ];
    try {
      for (const [env, message] of bad) {
        expect(() => loadConfig({ DATA_DIR: dir, ...env })).toThrowError(ConfigError);
        expect(() => loadConfig({ DATA_DIR: dir, ...env })).toThrowError(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops start-up with one line naming the variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    try {
      const p = run({ DATA_DIR: dir, PORT: 'eighty' });
      expect(await p.exited).toBe(1);
      expect(p.out().trim()).toBe('vss: configuration error: PORT must be a whole number, got "eighty"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the server process', () => {
  let dir: string;
  let port: number;
  let proc: Proc;
  let base: string;
  const env = () => ({
    DATA_DIR: dir,
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...(ENGINE === 'postgres' ? { DATABASE_URL: PG_URL } : {}),
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vss-proc-'));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = run(env());
    await waitFor(`${base}/health`);
  });
  afterAll(async () => {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the README path over a real port: register, create a key, create a session; logs hold no secret; SIGTERM stops it cleanly', async () => {
    const emailAddress = `proc-${Date.now()}@example.com`;
    const password = 'a very secret password';
    const reg = await fetch(`${base}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: emailAddress, password }),
    });
    expect(reg.status).toBe(201);
    const cookie = reg.headers.get('set-cookie')!.split(';')[0]!;
    const { project_id } = ((await reg.json()) as any).data;
    const keyRes = await fetch(`${base}/v1/projects/${project_id}/api-keys`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(keyRes.status).toBe(201);
    const secret: string = ((await keyRes.json()) as any).data.secret;
    const session = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'curl' }),
    });
    expect(session.status).toBe(201);
    await fetch(`${base}/v1/sessions?access_token=tok-should-not-be-logged&token=link-should-not-be-logged`, {
      headers: { 'x-api-key': secret },
    });

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    const log = proc.out();
    expect(log).toContain(`vss listening on http://127.0.0.1:${port}`);
    expect(log).toMatch(/"url":"\/v1\/sessions\?access_token=\[redacted\]&token=\[redacted\]"/);
    for (const leaked of [
      secret,
      secret.slice(8),
      password,
      cookie.split('=')[1]!,
      'tok-should-not-be-logged',
      'link-should-not-be-logged',
    ]) {
      expect(log).not.toContain(leaked);
    }
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);

    // Restarted on the same DATA_DIR, the kept secret still recognises the key.
    const again = run(env());
    try {
      await waitFor(`${base}/health`);
      const list = await fetch(`${base}/v1/sessions`, { headers: { authorization: `Bearer ${secret}` } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as any).data.map((s: { name: string }) => s.name)).toEqual(['curl']);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  });
});
