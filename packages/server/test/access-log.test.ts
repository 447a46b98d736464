import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, PG_URL, call, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { freePort, runServer, waitForHttp } from './support/process.js';
import { eventually } from './support/wait.js';

interface Line {
  level: number;
  time: number;
  pid: number;
  hostname: string;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  status?: number;
  ms?: number;
  principal?: string;
}

describe('the access log at info, the shipped level', () => {
  let t: TestApp;
  let a: Tenant;
  const lines: Line[] = [];
  beforeAll(async () => {
    t = await startApp({
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
    });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  const requestLines = () => lines.filter((l) => l.msg === 'request');

  it('writes one line per answered request, whatever its outcome, with who asked and how it ended', async () => {
    const before = requestLines().length;
    const made = await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'logged' } });
    const id = made.body.data.id as string;
    const answers = [
      made,
      await call(t, 'GET', `/v1/sessions/${id}`, { key: a.key }),
      await call(t, 'GET', '/v1/sessions/00000000-0000-4000-8000-000000000000', { key: a.key }),
      await call(t, 'GET', '/v1/sessions'),
      await call(t, 'GET', '/v1/sessions', { key: 'sk_live_not-a-key' }),
      await call(t, 'POST', '/v1/sessions', {
        key: a.key,
        payload: '{"name":',
        headers: { 'content-type': 'application/json' },
      }),
      await call(t, 'GET', '/health'),
      await call(t, 'GET', '/v1/no-such-route'),
    ];
    expect(answers.map((r) => r.status)).toEqual([201, 200, 404, 401, 401, 400, 200, 404]);

    const logged = requestLines().slice(before);
    expect(logged.map((l) => [l.method, l.url, l.status])).toEqual([
      ['POST', '/v1/sessions', 201],
      ['GET', `/v1/sessions/${id}`, 200],
      ['GET', '/v1/sessions/00000000-0000-4000-8000-000000000000', 404],
      ['GET', '/v1/sessions', 401],
      ['GET', '/v1/sessions', 401],
      ['POST', '/v1/sessions', 400],
      ['GET', '/health', 200],
      ['GET', '/v1/no-such-route', 404],
    ]);
    // The shape of every other line of the logger, so one parser reads them all.
    for (const l of logged) {
      expect(l.level).toBe(30);
      expect(Math.abs(l.time - Date.now())).toBeLessThan(60_000);
      expect(l.pid).toBe(process.pid);
      expect(l.hostname).toBe(hostname());
      expect(l.ms).toBeGreaterThanOrEqual(0);
      expect(l.reqId).toMatch(/^\S+$/);
    }
    expect(new Set(logged.map((l) => l.reqId)).size).toBe(logged.length);
    // The credential that answered, by kind and id, never by secret.
    expect(logged[0]!.principal).toMatch(/^api_key:[0-9a-f-]{36}$/);
    expect(logged[1]!.principal).toBe(logged[0]!.principal);
    expect(logged[3]!.principal).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain(a.key);
  });

  it('keeps token values out of the logged URL and escapes what a client put in it', async () => {
    const before = requestLines().length;
    await call(t, 'GET', '/v1/sessions?token=secret-one&x=%22quoted%22&access_token=secret-two', {
      key: a.key,
    });
    const [l] = requestLines().slice(before);
    expect(l!.url).toBe('/v1/sessions?token=[redacted]&x=%22quoted%22&access_token=[redacted]');
  });

  it('keeps every secret a client may put in a query out of the logged URL, whatever its case, and keeps the rest', async () => {
    const before = requestLines().length;
    const secrets = ['api_key', 'key', 'secret', 'client_secret', 'refresh_token', 'password', 'code'];
    const query = secrets.map((name, i) => `${name}=s3cret-${i}`).join('&');
    await call(
      t,
      'GET',
      `/v1/sessions?${query}&API_KEY=upper&%61pi_key=encoded&limit=5&keyboard=kept&monkey=kept2&state=kept3`,
      {
        key: a.key,
      },
    );
    const [l] = requestLines().slice(before);
    expect(l!.url).toBe(
      `/v1/sessions?${secrets.map((name) => `${name}=[redacted]`).join('&')}&API_KEY=[redacted]&%61pi_key=[redacted]&limit=5&keyboard=kept&monkey=kept2&state=kept3`,
    );
    expect(l!.url).not.toMatch(/s3cret|upper|encoded/);
    // The OAuth routes take codes and client secrets in form bodies and queries: their lines too.
    const oauth = requestLines().length;
    await call(t, 'GET', '/oauth/authorize?client_id=x&code_challenge=abc&code=auth-code-1');
    const [o] = requestLines().slice(oauth);
    expect(o!.url).toBe('/oauth/authorize?client_id=x&code_challenge=abc&code=[redacted]');
  });

  it('keeps the token of a join link, which travels in the path, out of the logged URL', async () => {
    const session = await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: 'join-logged' } });
    const link = await call(t, 'POST', `/v1/sessions/${session.body.data.id as string}/join-links`, {
      key: a.key,
      body: {},
    });
    expect(link.status).toBe(201);
    const token = link.body.data.token as string;
    const before = requestLines().length;
    const answers = [
      await call(t, 'GET', `/v1/join/${token}`),
      await call(t, 'POST', `/v1/join/${token}`, { body: { display_name: 'Guest' } }),
      await call(t, 'GET', `/v1/join/${token}?x=1`),
      await call(t, 'GET', `/join/${token}`),
      await call(t, 'GET', '/v1/join/unknown-token-value'),
      // Doubled slashes reach no route, and the token they carry is kept out all the same.
      await call(t, 'GET', `//join/${token}`),
      await call(t, 'GET', `/v1//join//${token}`),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, expect.any(Number), 404, 404, 404]);
    expect(
      requestLines()
        .slice(before)
        .map((l) => l.url),
    ).toEqual([
      '/v1/join/[redacted]',
      '/v1/join/[redacted]',
      '/v1/join/[redacted]?x=1',
      '/join/[redacted]',
      '/v1/join/[redacted]',
      '//join/[redacted]',
      '/v1//join//[redacted]',
    ]);
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(JSON.stringify(lines)).not.toContain('unknown-token-value');
  });

  it('writes nothing per request at warn', async () => {
    const quiet: Line[] = [];
    const w = await startApp({
      env: { LOG_LEVEL: 'warn' },
      logDestination: { write: (line: string) => void quiet.push(JSON.parse(line) as Line) },
    });
    try {
      const b = await tenant(w);
      await call(w, 'GET', '/v1/sessions', { key: b.key });
      expect(quiet.filter((l) => l.msg === 'request')).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

describe('the access log of the server process', () => {
  it('reaches standard output while the server runs, and every line is written by the time SIGTERM has stopped it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-log-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // LOG_LEVEL is not set: the shipped default. The 300 requests below come at once, from one
    // address, each on a connection of its own: more than MAX_CONNECTIONS_PER_ADDRESS allows.
    const proc = runServer({
      DATA_DIR: dir,
      PORT: String(port),
      MAX_CONNECTIONS_PER_ADDRESS: '1000',
      ...(ENGINE === 'postgres' ? { DATABASE_URL: PG_URL } : {}),
    });
    try {
      await waitForHttp(`${base}/health`, 60_000);
      const one = await fetch(`${base}/v1/sessions?probe=first`);
      expect(one.status).toBe(401);
      // Written within a fraction of a second, not held until a batch fills.
      await eventually(() => proc.out().includes('"url":"/v1/sessions?probe=first"'), 5000, 'the first line');

      const n = 300;
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          fetch(`${base}/v1/sessions?probe=${i}`).then((r) => r.arrayBuffer()),
        ),
      );
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      const probes = proc
        .out()
        .split('\n')
        .filter((l) => l.includes('"msg":"request"') && /probe=\d+"/.test(l));
      expect(probes).toHaveLength(n);
      for (const l of probes) expect(JSON.parse(l)).toMatchObject({ level: 30, method: 'GET', status: 401 });
    } finally {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
