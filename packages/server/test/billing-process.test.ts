import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
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
