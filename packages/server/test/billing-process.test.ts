import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE, REDIS_URL } from './support/app.js';
import { eventually } from './support/live.js';
import {
  freePort,
  httpJson,
  httpTenant,
  processStorage,
  runServer,
  waitForHttp,
  type Proc,
} from './support/process.js';

const procs: Proc[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
const INTERVAL_S = 2;

const storage = () => processStorage('meter', cleanups);

async function start(env: Record<string, string>, port: number): Promise<Proc> {
  const proc = runServer({
    ...env,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    USAGE_FLUSH_INTERVAL_S: String(INTERVAL_S),
  });
  procs.push(proc);
  await waitForHttp(`http://127.0.0.1:${port}/health`);
  return proc;
}

/** Joins `session` live as `user` through the server at `port`; resolves once welcomed. */
async function joinAt(port: number, key: string, session: string, user: string): Promise<WebSocket> {
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${key}` };
  const conn = (await httpJson(base, 'POST', `/v1/sessions/${session}/connection`, { user_id: user }, auth))
    .data;
  const ws = new WebSocket(
    `ws://127.0.0.1:${port}/ws?session=${session}&user_id=${user}&access_token=${conn.access_token}`,
  );
  ws.on('error', () => {});
  await new Promise((ok) => ws.once('message', ok)); // welcome
  return ws;
}

afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('metering across a crash', () => {
  it('a SIGKILLed server loses at most one flush interval of minutes, and counts nothing twice after restart', async () => {
    const env = await storage();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await start(env, port);
    const { key } = await httpTenant(base);
    const auth = { authorization: `Bearer ${key}` };
    const minutes = async () =>
      (await httpJson(base, 'GET', '/v1/usage', undefined, auth)).data.summary
        .streaming_minutes_total as number;

    const session = (await httpJson(base, 'POST', '/v1/sessions', {}, auth)).data;
    const conn = (
      await httpJson(base, 'POST', `/v1/sessions/${session.id}/connection`, { user_id: 'kim' }, auth)
    ).data;
    const ws = new WebSocket(
      `ws://127.0.0.1:${port}/ws?session=${session.id}&user_id=kim&access_token=${conn.access_token}`,
    );
    ws.on('error', () => {});
    await new Promise((ok) => ws.once('message', ok)); // welcome
    const joined = Date.now();
    // Several flushes while connected, then the process dies without a word.
    await eventually(
      async () => (await minutes()) * 60_000 >= 3 * INTERVAL_S * 1000,
      20_000,
      'three intervals metered',
    );
    first.child.kill('SIGKILL');
    const killed = Date.now();
    await first.exited;

    await start(env, port);
    const after = await minutes();
    expect(after * 60_000).toBeGreaterThanOrEqual(killed - joined - INTERVAL_S * 1000 - 1000);
    expect(after * 60_000).toBeLessThanOrEqual(killed - joined + 500);
    // The new process meters nothing of the dead connection: the total stays as it was.
    const until = Date.now() + 2 * INTERVAL_S * 1000 + 500;
    await eventually(() => Date.now() >= until, 10_000, 'two more intervals');
    expect(await minutes()).toBe(after);
    const records = (await httpJson(base, 'GET', '/v1/usage?limit=200', undefined, auth)).data
      .records as any[];
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });
});

describe('metering on several processes', () => {
  it.skipIf(ENGINE !== 'postgres')(
    'each process counts its own connections to one session, and the organisation gets their sum',
    async () => {
      const env = { ...(await storage()), ...(REDIS_URL ? { REDIS_URL } : {}) };
      const [p1, p2] = [await freePort(), await freePort()];
      await start(env, p1);
      await start(env, p2);
      const base = `http://127.0.0.1:${p1}`;
      const { key } = await httpTenant(base);
      const auth = { authorization: `Bearer ${key}` };
      const session = (await httpJson(base, 'POST', '/v1/sessions', {}, auth)).data.id as string;

      const t0 = Date.now();
      const lee = await joinAt(p1, key, session, 'lee');
      const t1 = Date.now();
      const mo = await joinAt(p2, key, session, 'mo');
      const t2 = Date.now();
      const until = Date.now() + 3000;
      await eventually(() => Date.now() >= until, 5000, 'three seconds together');
      const closing = Date.now();
      lee.close();
      mo.close();
      await Promise.all([
        new Promise((ok) => lee.once('close', ok)),
        new Promise((ok) => mo.once('close', ok)),
      ]);
      const closed = Date.now();
      // Both leaves are written at once; after one interval every write of theirs is in.
      const after = Date.now() + INTERVAL_S * 1000 + 500;
      await eventually(() => Date.now() >= after, 10_000, 'one interval');

      const usage = (
        await httpJson(`http://127.0.0.1:${p2}`, 'GET', `/v1/usage?session_id=${session}`, undefined, auth)
      ).data;
      const ms = usage.summary.streaming_minutes_total * 60_000;
      expect(ms).toBeGreaterThanOrEqual(closing - t1 + (closing - t2));
      expect(ms).toBeLessThanOrEqual(closed - t0 + (closed - t1) + 100);
      // Written by both processes: neither counted the other's participant.
      expect(usage.records.length).toBeGreaterThanOrEqual(2);
    },
  );
});
