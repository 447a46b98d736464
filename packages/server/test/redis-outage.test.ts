import { spawn, type ChildProcess } from 'node:child_process';
import { LiveClient } from '@vss/client';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE } from './support/app.js';
import {
  freePort,
  httpTenant,
  processStorage,
  runServer,
  waitForHttp,
  type Proc,
} from './support/process.js';
import { eventually } from './support/wait.js';

/**
 * Server processes pointed at a Redis of their own, which is then killed and started again: what
 * does not need Redis goes on, what does says so at once, and everything comes back with it.
 * Two processes on PostgreSQL (the deployment Redis is for), one on SQLite.
 */
describe('a Redis outage', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  const procs: Proc[] = [];
  const bases: string[] = [];
  let redisPort = 0;
  let redis: ChildProcess | null = null;
  let key = '';

  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await eventually(
      () =>
        new Promise<boolean>((ok) => {
          const probe = spawn('redis-cli', ['-p', String(redisPort), 'ping'], {
            stdio: ['ignore', 'pipe', 'ignore'],
          });
          let out = '';
          probe.stdout!.on('data', (d) => (out += d));
          probe.on('close', () => ok(out.trim() === 'PONG'));
        }),
      10_000,
      'redis-server to answer',
    );
  };
  const stopRedis = async () => {
    const r = redis;
    redis = null;
    if (!r || r.exitCode !== null || r.signalCode !== null) return;
    const exited = new Promise((ok) => r.once('exit', ok));
    r.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
    const storage = await processStorage('redis_out', cleanups);
    for (let k = 0; k < (ENGINE === 'postgres' ? 2 : 1); k++) {
      const port = await freePort();
      procs.push(
        runServer({
          ...storage,
          PORT: String(port),
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          SECRET_KEY: 'redis-outage-secret-redis-outage-secret-x',
          LOG_LEVEL: 'warn',
        }),
      );
      bases.push(`http://127.0.0.1:${port}`);
    }
    for (const base of bases) await waitForHttp(`${base}/health`);
    key = (await httpTenant(bases[0]!)).key;
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      p.child.kill('SIGKILL');
      await p.exited;
    }
    await stopRedis();
    for (const c of cleanups.reverse()) await c();
  });

  /** A request to a process, with how long it took. */
  const ask = async (base: string, method: string, path: string, body?: unknown) => {
    const started = performance.now();
    const res = await fetch(base + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text), ms: performance.now() - started };
  };

  it('keeps the API answering without Redis, refuses at once what needs it with 503 and a reason, and recovers', async () => {
    const made = await ask(bases[0]!, 'POST', '/v1/sessions', { name: 'before the outage' });
    expect(made.status).toBe(201);
    const before = made.json().data.id as string;
    // A participant joins: the session has started, and its changes go on its timeline.
    const token = (
      await ask(bases[0]!, 'POST', `/v1/sessions/${before}/connection`, { user_id: 'host' })
    ).json().data.access_token as string;
    const host = new LiveClient({
      url: bases[0]!.replace('http', 'ws'),
      session: before,
      userId: 'host',
      token: async () => token,
      WebSocket: WebSocket as never,
      reconnect: false,
    });
    await host.connect();
    cleanups.push(() => host.close());

    await stopRedis();
    for (const base of bases) {
      // Reads and writes that need only the database: answered, and without waiting on Redis.
      const got = await ask(base, 'GET', `/v1/sessions/${before}`);
      expect(got.status, got.text).toBe(200);
      expect(got.ms).toBeLessThan(1000);
      const created = await ask(base, 'POST', '/v1/sessions', { name: 'during the outage' });
      expect(created.status, created.text).toBe(201);
      expect(created.ms).toBeLessThan(1000);
      expect((await ask(base, 'GET', '/health')).status).toBe(200);
      const ready = await ask(base, 'GET', '/ready');
      expect(ready.status).toBe(503);
      expect(ready.text).toMatch(/redis unavailable/);

      // Pausing writes the recording's timeline, whose sequence is kept in Redis: refused, with why.
      const pause = await ask(base, 'POST', `/v1/sessions/${before}/recording/pause`);
      expect(pause.status, pause.text).toBe(503);
      expect(pause.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(pause.json().error.message).toMatch(/redis unavailable/);
      expect(pause.ms).toBeLessThan(1000);
      // Removing a participant tells the other processes through Redis: refused the same way.
      const remove = await ask(base, 'POST', `/v1/sessions/${before}/participants/host/remove`);
      expect(remove.status, remove.text).toBe(503);
      expect(remove.json().error.message).toMatch(/redis unavailable/);
      // Nothing was half done: the recording is not paused.
      const state = await ask(base, 'GET', `/v1/sessions/${before}/recording-rules`);
      expect(state.status, state.text).toBe(200);
      expect(state.json().data.paused_at).toBe(null);
    }
    // The rate limits went on, counted by each process itself, and said so.
    for (const p of procs)
      await eventually(() => /rate limits are counted in this process/.test(p.out()), 5_000, 'the warning');

    // Redis back: ready again, and what needed it works.
    await startRedis();
    for (const base of bases)
      await eventually(
        async () => (await ask(base, 'GET', '/ready')).status === 200,
        20_000,
        `${base} to be ready`,
      );
    await eventually(
      async () => (await ask(bases.at(-1)!, 'POST', `/v1/sessions/${before}/recording/pause`)).status === 200,
      20_000,
      'the pause to go through once Redis is back',
    );

    // A Redis that stops answering (SIGSTOP) without closing its connections: the same, within
    // the clients' command timeouts.
    redis!.kill('SIGSTOP');
    try {
      for (const base of bases) {
        const got = await ask(base, 'GET', `/v1/sessions/${before}`);
        expect(got.status, got.text).toBe(200);
        expect(got.ms).toBeLessThan(1000);
        const resume = await ask(base, 'POST', `/v1/sessions/${before}/recording/resume`);
        expect(resume.status, resume.text).toBe(503);
        expect(resume.json().error.message).toMatch(/redis unavailable/);
        expect(resume.ms).toBeLessThan(3000);
        const state = await ask(base, 'GET', `/v1/sessions/${before}/recording-rules`);
        expect(state.json().data.paused_at).not.toBe(null);
      }
    } finally {
      redis!.kill('SIGCONT');
    }
    await eventually(
      async () => (await ask(bases[0]!, 'POST', `/v1/sessions/${before}/recording/resume`)).status === 200,
      20_000,
      'the resume to go through once Redis answers again',
    );
    for (const p of procs) expect(p.child.exitCode).toBe(null);
  }, 120_000);
});
