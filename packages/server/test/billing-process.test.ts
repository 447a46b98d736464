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

/** where each server process (by its port) serves /metrics */
const metricsPorts = new Map<number, number>();

async function start(env: Record<string, string>, port: number): Promise<Proc> {
  const metrics = await freePort();
  metricsPorts.set(port, metrics);
  const proc = runServer({
    ...env,
    PORT: String(port),
    METRICS_PORT: String(metrics),
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
    const minutes = async (sessionId: string) =>
      (await httpJson(base, 'GET', `/v1/usage?session_id=${sessionId}`, undefined, auth)).data.summary
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
      async () => (await minutes(session.id)) * 60_000 >= 3 * INTERVAL_S * 1000,
      20_000,
      'three intervals metered',
    );
    first.child.kill('SIGKILL');
    const killed = Date.now();
    await first.exited;

    await start(env, port);
    const after = await minutes(session.id);
    expect(after * 60_000).toBeGreaterThanOrEqual(killed - joined - INTERVAL_S * 1000 - 1000);
    expect(after * 60_000).toBeLessThanOrEqual(killed - joined + 500);
    // The new process meters nothing of the dead connection: once its periodic flush has written
    // the minutes of a participant connected to it (a flush writes every connection it meters),
    // the dead one's session total is as it was.
    const probe = (await httpJson(base, 'POST', '/v1/sessions', {}, auth)).data;
    const lee = await joinAt(port, key, probe.id, 'lee');
    await eventually(async () => (await minutes(probe.id)) > 0, 10_000, "the new process's flush");
    expect(await minutes(session.id)).toBe(after);
    lee.close();
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
      // Together until each process has written its participant's minutes (a periodic flush).
      const flushed = (port: number) => async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPorts.get(port)}/metrics`)).text();
        return Number(/^vss_usage_streaming_minutes_total (\S+)$/m.exec(text)?.[1]) > 0;
      };
      await eventually(flushed(p1), 10_000, 'minutes metered on the first process');
      await eventually(flushed(p2), 10_000, 'minutes metered on the second process');
      const closing = Date.now();
      lee.close();
      mo.close();
      await Promise.all([
        new Promise((ok) => lee.once('close', ok)),
        new Promise((ok) => mo.once('close', ok)),
      ]);
      const closed = Date.now();
      // Both leaves are written at once: the total reaches both stays (which no periodic write
      // before the leaves can), and is read again just after, the same.
      const usageOf = async () =>
        (await httpJson(`http://127.0.0.1:${p2}`, 'GET', `/v1/usage?session_id=${session}`, undefined, auth))
          .data;
      const lower = closing - t1 + (closing - t2);
      await eventually(
        async () => (await usageOf()).summary.streaming_minutes_total * 60_000 >= lower,
        10_000,
        'both leaves written',
      );
      const usage = await usageOf();
      const ms = usage.summary.streaming_minutes_total * 60_000;
      expect(ms).toBeGreaterThanOrEqual(lower);
      expect(ms).toBeLessThanOrEqual(closed - t0 + (closed - t1) + 100);
      // Written by both processes: neither counted the other's participant.
      expect(usage.records.length).toBeGreaterThanOrEqual(2);
    },
  );
});
