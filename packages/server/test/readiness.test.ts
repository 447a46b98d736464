import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { ENGINE, PG_URL, call, startApp, type TestApp } from './support/app.js';
import { eventually } from './support/wait.js';
import { freePort } from './support/process.js';

/** GET /ready and GET /health as a load balancer sees them: status, body and content type. */
async function probe(t: TestApp, path: '/ready' | '/health') {
  const res = await call(t, 'GET', path);
  expect(String(res.headers['content-type']), path).toMatch(/^text\/plain/);
  return { status: res.status, body: res.raw };
}

describe('GET /ready', () => {
  let t: TestApp | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    await t?.close().catch(() => {});
    t = undefined;
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** Errors nobody handled from now on: any one of them ends a server process (Node's default). */
  function unhandledErrors(): unknown[] {
    const seen: unknown[] = [];
    const record = (err: unknown) => void seen.push(err);
    process.on('unhandledRejection', record);
    process.on('uncaughtException', record);
    cleanups.push(() => {
      process.off('unhandledRejection', record);
      process.off('uncaughtException', record);
    });
    return seen;
  }

  /** After a turn of the event loop, in which Node reports what was left unhandled: nothing. */
  async function expectNoneUnhandled(seen: unknown[]): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.map(String)).toEqual([]);
  }

  it('answers 200 ready on a fresh server', async () => {
    t = await startApp();
    expect(await probe(t, '/ready')).toEqual({ status: 200, body: 'ready' });
    expect(await probe(t, '/health')).toEqual({ status: 200, body: 'ok' });
  });

  it('answers 503 draining from the moment a drain begins, while /health stays 200 ok', async () => {
    t = await startApp();
    expect((await probe(t, '/ready')).status).toBe(200);
    const drained = t.runtime.drain(Date.now() + 5000);
    expect(await probe(t, '/ready')).toEqual({ status: 503, body: 'draining' });
    // A draining process is alive: it is not to be restarted for it.
    expect(await probe(t, '/health')).toEqual({ status: 200, body: 'ok' });
    await drained;
    expect(await probe(t, '/ready')).toEqual({ status: 503, body: 'draining' });
  });

  it('answers 503 naming the storage when DATA_DIR is removed under the server', async () => {
    t = await startApp();
    expect((await probe(t, '/ready')).status).toBe(200);
    rmSync(t.dataDir, { recursive: true, force: true });
    // The watch notices within a second; until then the write probe already fails.
    const ready = await eventually(
      async () => {
        const p = await probe(t!, '/ready');
        if (p.status === 200) return null;
        expect(p.status).toBe(503);
        expect(p.body).toMatch(/^storage (unavailable|not writable): /);
        return p.body.startsWith('storage unavailable') ? p : null;
      },
      5000,
      'the removal to be noticed',
    );
    expect(ready.body).toMatch(/^storage unavailable: DATA_DIR.* (removed|replaced)/);
  });

  it('answers 503 storage not writable when DATA_DIR takes no writes, without naming its path', async () => {
    t = await startApp();
    expect((await probe(t, '/ready')).status).toBe(200);
    // The probe file made a directory: writing it fails as a full or read-only disk would.
    const file = join(t.dataDir, '.ready');
    rmSync(file);
    mkdirSync(file);
    const ready = await probe(t, '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/^storage not writable: .*DATA_DIR\/\.ready/);
    expect(ready.body).not.toContain(t.dataDir);
    expect(await probe(t, '/health')).toEqual({ status: 200, body: 'ok' });
  });

  it('answers 503 naming the file when the kept root secret is removed', async () => {
    t = await startApp();
    rmSync(join(t.dataDir, 'secret.key'));
    const ready = await eventually(
      async () => {
        const p = await probe(t!, '/ready');
        return p.status === 503 ? p : null;
      },
      5000,
      'readiness to fail',
    );
    expect(ready.body).toMatch(/^storage unavailable: DATA_DIR\/secret\.key was removed/);
  });

  it('answers 503 redis unavailable when nothing listens at REDIS_URL, and keeps running', async () => {
    const unhandled = unhandledErrors();
    const port = await freePort();
    t = await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    expect(await probe(t, '/ready')).toEqual({ status: 503, body: 'redis unavailable' });
    // Liveness does not depend on Redis.
    expect(await probe(t, '/health')).toEqual({ status: 200, body: 'ok' });
    // Redis gave up on the requests queued since start along with the ping (`maxRetriesPerRequest`).
    await expectNoneUnhandled(unhandled);
  });

  it.skipIf(ENGINE !== 'postgres')(
    'answers 503 database unavailable while PostgreSQL cannot be reached, and 200 again once it can',
    async () => {
      // The server reaches PostgreSQL through a relay on loopback that the test can cut.
      const target = new URL(PG_URL);
      const sockets = new Set<Socket>();
      let cut = false;
      const relay: Server = createServer((client) => {
        if (cut) return void client.destroy();
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => {});
          s.on('close', () => {
            sockets.delete(s);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((ok) => relay.listen(0, '127.0.0.1', ok));
      cleanups.push(() => new Promise<void>((ok) => relay.close(() => ok())));
      const via = new URL(PG_URL);
      via.hostname = '127.0.0.1';
      via.port = String((relay.address() as { port: number }).port);

      const unhandled = unhandledErrors();
      t = await startApp({ env: { DATABASE_URL: via.toString() } });
      expect(await probe(t, '/ready')).toEqual({ status: 200, body: 'ready' });

      cut = true;
      for (const s of sockets) s.destroy();
      expect(await probe(t, '/ready')).toEqual({ status: 503, body: 'database unavailable' });
      expect(await probe(t, '/health')).toEqual({ status: 503, body: 'database unavailable' });

      // Reachable again: the pool connects anew and the server takes work.
      cut = false;
      await eventually(async () => (await probe(t!, '/ready')).status === 200, 5000, 'readiness to return');
      // Connections lost in use (handed out, or between the statements of a transaction) are errors
      // of their clients: the process must live through them.
      await expectNoneUnhandled(unhandled);
    },
  );
});

describe('configuration of metrics, logs and draining', () => {
  it('refuses METRICS_PORT, DRAIN_TIMEOUT_S and LOG_FORMAT values that are not valid, naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ METRICS_PORT: 'abc' }, /^METRICS_PORT must be a whole number/],
      [{ METRICS_PORT: '70000' }, /^METRICS_PORT must be between 0 and 65535/],
      [{ DRAIN_TIMEOUT_S: '0' }, /^DRAIN_TIMEOUT_S must be between 1 and/],
      [{ LOG_FORMAT: 'xml' }, /^LOG_FORMAT must be one of auto, json, pretty/],
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

  it('keeps no metrics, logs automatically and drains for 30 s when nothing is set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    try {
      expect(loadConfig({ DATA_DIR: dir })).toMatchObject({
        metricsPort: null,
        logFormat: 'auto',
        drainTimeoutS: 30,
      });
      expect(
        loadConfig({ DATA_DIR: dir, METRICS_PORT: '0', LOG_FORMAT: 'json', DRAIN_TIMEOUT_S: '5' }),
      ).toMatchObject({ metricsPort: 0, logFormat: 'json', drainTimeoutS: 5 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
