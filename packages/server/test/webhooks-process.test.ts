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
import { receiver, type Receiver } from './support/webhooks.js';

const procs: Proc[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

const storage = () => processStorage('wh', cleanups);

async function start(env: Record<string, string>): Promise<{ proc: Proc; base: string }> {
  const port = await freePort();
  const proc = runServer({
    ...env,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  });
  procs.push(proc);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`);
  return { proc, base };
}

async function stop(proc: Proc): Promise<void> {
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('webhook deliveries across server processes', () => {
  it('keeps a pending retry through a restart on the same storage, and delivers it with the same event id', async () => {
    let healthy = false;
    const r: Receiver = await receiver(0, () => (healthy ? 200 : 500));
    cleanups.push(() => r.close());
    const env = { ...(await storage()), WEBHOOK_RETRY_DELAYS_S: '2' };

    const first = await start(env);
    const { key } = await httpTenant(first.base);
    const auth = { authorization: `Bearer ${key}` };
    const hook = (
      await httpJson(first.base, 'POST', '/v1/webhooks', { url: r.url, events: ['session.created'] }, auth)
    ).data;
    const session = (await httpJson(first.base, 'POST', '/v1/sessions', { name: 'restart' }, auth)).data;
    await eventually(() => r.hits.length === 1, 10_000, 'first attempt');
    await stop(first.proc);

    healthy = true;
    const second = await start(env);
    await eventually(() => r.hits.length === 2, 15_000, 'the retry after restart');
    expect(r.hits[1]!.body.session_id).toBe(session.id);
    expect(r.hits[1]!.headers['x-service-event-id']).toBe(r.hits[0]!.headers['x-service-event-id']);
    expect(r.hits[1]!.raw.equals(r.hits[0]!.raw)).toBe(true);
    // The attempt's log row commits just after the receiver has the bytes.
    const log = await eventually(async () => {
      const rows = (await httpJson(second.base, 'GET', `/v1/webhooks/${hook.id}/deliveries`, undefined, auth))
        .data;
      return rows.length === 2 && rows;
    });
    expect(log.map((d: any) => [d.attempt, d.status, d.response_status])).toEqual([
      [2, 'succeeded', 200],
      [1, 'failed', 500],
    ]);
  });

  it.skipIf(ENGINE !== 'postgres')(
    'two processes on PostgreSQL share the queue and never deliver one attempt twice',
    async () => {
      // A receiver slow enough that both workers hold many attempts at once.
      const r = await receiver(0, () => (res) => setTimeout(() => res.writeHead(200).end(), 15));
      cleanups.push(() => r.close());
      // With Redis (when the run has it), an enqueue wakes the other process's worker too.
      const env = { ...(await storage()), ...(REDIS_URL ? { REDIS_URL } : {}) };
      const one = await start(env);
      const two = await start(env);
      const { key } = await httpTenant(one.base);
      const auth = { authorization: `Bearer ${key}` };
      const hooks = [];
      for (let i = 0; i < 3; i++)
        hooks.push(
          (
            await httpJson(
              one.base,
              'POST',
              '/v1/webhooks',
              { url: `${r.url}/${i}`, events: ['session.created'] },
              auth,
            )
          ).data,
        );
      const N = 60;
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          httpJson(i % 2 ? one.base : two.base, 'POST', '/v1/sessions', { name: `s${i}` }, auth),
        ),
      );
      await eventually(() => r.hits.length >= N * hooks.length, 30_000, 'every delivery');
      // Each attempt's log row commits just after the receiver has its bytes: once every row is
      // in, every attempt made has reached the receiver, a second one of any delivery included.
      for (const hook of hooks) {
        const log = await eventually(async () => {
          const rows = (
            await httpJson(two.base, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=200`, undefined, auth)
          ).data;
          return rows.length >= N && rows;
        });
        expect(log).toHaveLength(N);
        expect(log.every((d: any) => d.attempt === 1 && d.status === 'succeeded')).toBe(true);
      }
      const seen = r.hits.map(
        (h) => `${h.headers['x-service-event-id']} ${h.headers['webhook-id']} ${h.body.type}`,
      );
      expect(r.hits).toHaveLength(N * hooks.length);
      // Each (event, hook) pair arrived once: the hook is the path the receiver was reached on.
      const pairs = new Set(r.hits.map((h) => `${h.body.id} ${h.path}`));
      expect(pairs.size).toBe(N * hooks.length);
      expect(new Set(seen).size).toBe(N);
    },
    60_000,
  );
});
