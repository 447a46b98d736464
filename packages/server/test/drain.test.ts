import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveClient, type LiveError } from '@vss/client';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ENGINE, PG_URL, REDIS_URL } from './support/app.js';
import { startBalancer, type Balancer } from './support/balancer.js';
import { jpeg, openSocket, publish, type TestSocket } from './support/live.js';
import {
  dropPgSchema,
  freePort,
  httpJson,
  httpTenant,
  pgSchemaUrl,
  playback,
  processStorage,
  runServer,
  waitForHttp,
  type Proc,
} from './support/process.js';
import { eventually } from './support/wait.js';
import { receiver } from './support/webhooks.js';

const SECRET = 'drain-secret-drain-secret-drain-secret-drain';

const procs: Proc[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(env: Record<string, string>): Promise<{ proc: Proc; base: string; port: number }> {
  const port = await freePort();
  const proc = runServer({ LOG_LEVEL: 'warn', SECRET_KEY: SECRET, ...env, PORT: String(port) });
  procs.push(proc);
  const base = `http://127.0.0.1:${port}`;
  // Generous: tsx compiles the server at start, which a busy two-core machine makes slow.
  await waitForHttp(`${base}/ready`, 60_000);
  return { proc, base, port };
}

/** GET /ready straight from one process (not through a balancer). */
async function readiness(base: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}/ready`);
  return { status: res.status, body: await res.text() };
}

/** A tenant, a session, and connection tokens, all through `base`; `first` runs before the session. */
async function bootstrap(base: string, first?: (auth: Record<string, string>) => Promise<unknown>) {
  const { key } = await httpTenant(base);
  const auth = { authorization: `Bearer ${key}` };
  await first?.(auth);
  const session = (await httpJson(base, 'POST', '/v1/sessions', { name: 'drain' }, auth)).data as {
    id: string;
  };
  const token = async (userId: string) =>
    (await httpJson(base, 'POST', `/v1/sessions/${session.id}/connection`, { user_id: userId }, auth)).data
      .access_token as string;
  return { key, auth, session, token };
}

/**
 * Holds every write of recorded media on the server's storage until `release()`, as a disk that
 * stalls would: a publish taken meanwhile stays unacknowledged, deterministically. On SQLite a
 * write transaction on `streams.sqlite` (the server's write thread waits up to its busy timeout, 5
 * s, so the hold must stay shorter); on PostgreSQL a lock on the table the recordings go to.
 */
async function holdStreamWrites(env: Record<string, string>): Promise<{ release(): Promise<void> }> {
  if (env.DATABASE_URL) {
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    await db.query('begin');
    await db.query('lock table stream_events in share mode');
    return {
      async release() {
        await db.query('rollback');
        await db.end();
      },
    };
  }
  const db = new SQLite(join(env.DATA_DIR!, 'streams.sqlite'));
  db.exec('begin immediate');
  return {
    async release() {
      db.exec('rollback');
      db.close();
    },
  };
}

/** What a participant's client went through, in order. */
type Happening =
  | { what: 'reconnect control'; at: number; reason: unknown }
  | { what: 'close'; at: number; code: number }
  | { what: 'reconnected'; at: number };

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)(
  'a server process stopped with SIGTERM behind a load balancer, beside another on the same PostgreSQL and Redis',
  () => {
    it('fails readiness at once, sends its participants to the other server, exits 0, and loses no acknowledged publish', async () => {
      const schema = `drain_${Math.random().toString(36).slice(2, 10)}`;
      const dbUrl = await pgSchemaUrl(PG_URL, schema);
      cleanups.push(() => dropPgSchema(PG_URL, schema));
      const env = (prefix: string) => {
        const dir = mkdtempSync(join(tmpdir(), `vss-${prefix}-`));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        return { DATA_DIR: dir, DATABASE_URL: dbUrl, REDIS_URL };
      };
      // A webhook delivery that A runs, answered only when the test says so. The drain finishes
      // running jobs before the process exits, so A stays up, draining, until then: long enough
      // to watch its readiness from outside even on a loaded machine (with nothing to wait for, A
      // is gone in under 100 ms), and it shows that a job under way is finished, not cut. B runs
      // no jobs, so the delivery is certainly A's.
      const answers: ServerResponse[] = [];
      const hook = await receiver(0, () => (res) => void answers.push(res));
      cleanups.push(() => hook.close());
      const answerDelivery = () => answers.splice(0).forEach((res) => res.writeHead(200).end('ok'));
      const hooks = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '30000' };
      // One after the other: the first migrates the schema. B is up from the start, but A comes
      // first in the balancer's list, so every client lands on A while A is ready.
      const a = await start({ ...env('drain-a'), ...hooks, DRAIN_TIMEOUT_S: '10' });
      const b = await start({ ...env('drain-b'), ...hooks, JOB_WORKER: 'false' });
      const lb: Balancer = await startBalancer([a.port, b.port]);
      cleanups.push(() => lb.stop());

      const { key, session, token } = await bootstrap(lb.url, (auth) =>
        httpJson(lb.url, 'POST', '/v1/webhooks', { url: hook.url, events: ['session.created'] }, auth),
      );
      await eventually(() => hook.hits.length === 1, 10_000, 'the delivery to reach the receiver');
      const t0 = Date.now();
      const users = ['alice', 'bob'];
      const acked = new Map<number, { user: string; body: Buffer; at: number }>();
      const refused: Array<{ user: string; code: string }> = [];
      let publishing = true;

      const participant = (userId: string, n: number) => {
        const c = new LiveClient({
          url: lb.url.replace('http', 'ws'),
          session: session.id,
          userId,
          // Each connection, the first and every reconnect, gets a fresh token through the balancer.
          token: () => token(userId),
          WebSocket: WebSocket as never,
          reconnect: { maxRetries: 20, minDelayMs: 20, maxDelayMs: 200 },
        });
        const happened: Happening[] = [];
        c.on('control', (m) => {
          if (m.event === 'reconnect')
            happened.push({ what: 'reconnect control', at: Date.now(), reason: m.data.reason });
        });
        c.on('close', (e) => happened.push({ what: 'close', at: Date.now(), code: e.code }));
        c.on('reconnect', () => happened.push({ what: 'reconnected', at: Date.now() }));
        // Transport errors of refused reconnect attempts are expected; the assertions look at acks.
        c.on('error', () => {});
        // A camera: a frame every 20 ms whatever happens, each asking for an ack, several in flight.
        const camera = (async () => {
          const sent: Promise<void>[] = [];
          for (let i = 0; publishing; i++) {
            if (c.readyState === WebSocket.OPEN) {
              const body = jpeg(n * 1_000_000 + i, 2000);
              sent.push(
                c.publish(`media/${userId}/cam`, body, { ack: true }).then(
                  (seq) => void acked.set(seq, { user: userId, body, at: Date.now() }),
                  (err: LiveError) => void refused.push({ user: userId, code: err.code }),
                ),
              );
            }
            // Pacing, not a proof: the camera's frame interval.
            await new Promise((r) => setTimeout(r, 20));
          }
          await Promise.all(sent);
        })();
        return { userId, c, happened, camera };
      };
      const acksOf = (user: string, after = 0) =>
        [...acked.values()].filter((f) => f.user === user && f.at > after).length;

      const clients = users.map((u, i) => participant(u, i + 1));
      await Promise.all(clients.map((p) => p.c.connect()));
      expect(new Set(lb.routed), 'everything went to A while it was ready').toEqual(new Set([a.port]));
      await eventually(() => users.every((u) => acksOf(u) >= 15), 10_000, 'acks from A');

      // Readiness asked of A itself every 10 ms, from just before the signal.
      const ready: Array<{ at: number; status: number; body: string }> = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          try {
            const answer = await readiness(a.base);
            // When the answer came, not when it was asked for.
            ready.push({ at: Date.now(), ...answer });
          } catch {
            return; // A has closed its port
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      await eventually(() => ready.length > 0, 5_000, 'a first readiness answer');
      const killedAt = Date.now();
      a.proc.child.kill('SIGTERM');
      const firstRefusal = await eventually(
        () => ready.find((x) => x.status !== 200),
        5_000,
        'A to answer other than 200',
      );
      expect(firstRefusal).toMatchObject({ status: 503, body: 'draining' });
      expect(firstRefusal.at - killedAt).toBeLessThan(100);

      // Told, closed, and back by themselves, through the balancer, which now sends them to B.
      await eventually(
        () => clients.every((p) => p.happened.some((h) => h.what === 'reconnected')),
        10_000,
        'both clients to reconnect',
      );
      expect(a.proc.child.exitCode, 'A waits for the delivery under way').toBeNull();
      answerDelivery();
      const code = await a.proc.exited;
      const exitedAt = Date.now();
      polling = false;
      await poller;
      expect(code, a.proc.out()).toBe(0);
      // DRAIN_TIMEOUT_S is 10: a drain with nothing stuck takes a small part of it.
      expect(exitedAt - killedAt).toBeLessThan(5_000);
      expect(ready.filter((x) => x.at > firstRefusal.at).every((x) => x.status === 503)).toBe(true);

      // They go on being acknowledged on B (A is gone: whatever is acknowledged now, B acknowledged).
      await eventually(() => users.every((u) => acksOf(u, exitedAt) >= 15), 15_000, 'acks from B');
      expect(lb.routed).toContain(b.port);
      publishing = false;
      await Promise.all(clients.map((p) => p.camera));
      await Promise.all(clients.map((p) => p.c.close()));

      for (const p of clients) {
        const reconnect = p.happened.findIndex((h) => h.what === 'reconnect control');
        const close = p.happened.findIndex((h) => h.what === 'close');
        const back = p.happened.findIndex((h) => h.what === 'reconnected');
        expect(reconnect, `${p.userId}: ${JSON.stringify(p.happened)}`).toBeGreaterThanOrEqual(0);
        expect(p.happened[reconnect]).toMatchObject({ reason: 'draining' });
        // The first close is the drain's: told first, then closed with 1001, then back.
        expect(close, `${p.userId}: ${JSON.stringify(p.happened)}`).toBeGreaterThan(reconnect);
        expect(p.happened[close]).toMatchObject({ code: 1001 });
        expect(back).toBeGreaterThan(close);
      }
      // Refused during the drain (or cut by its close) is allowed: such publishes were never
      // acknowledged, and a client may send them again. Nothing else may fail.
      expect(refused.filter((r) => r.code !== 'UNAVAILABLE' && r.code !== 'CLOSED')).toEqual([]);

      // Every acknowledged publish, byte for byte, in the recording read through the balancer (B).
      const events = await playback(lb.url, key, session.id, t0 - 60_000);
      for (const [seq, f] of acked) {
        const got = events.get(seq);
        expect(got?.stream, `seq ${seq}`).toBe(`media/${f.user}/cam`);
        expect(got!.body.equals(f.body), `seq ${seq} is byte-identical`).toBe(true);
      }
      // Each participant joined twice: once on A, once on B.
      const timeline = (
        await httpJson(lb.url, 'GET', `/v1/sessions/${session.id}/timeline`, undefined, {
          authorization: `Bearer ${key}`,
        })
      ).data as Array<{ type: string; data: { user_id?: string } }>;
      for (const u of users)
        expect(
          timeline.filter((e) => e.type === 'participant.joined' && e.data.user_id === u),
          u,
        ).toHaveLength(2);
    }, 60_000);
  },
);

describe('a server process stopped with SIGTERM', () => {
  it('keeps answering for DRAIN_GRACE_MS, /ready 503 draining, before it closes its port, even with nothing to drain', async () => {
    const graceMs = 1500;
    const { proc, base } = await start({
      ...(await processStorage('grace', cleanups)),
      DRAIN_GRACE_MS: String(graceMs),
    });
    // A load balancer's health check, every 20 ms, until the port is closed.
    const ready: Array<{ at: number; status: number; body: string }> = [];
    const poller = (async () => {
      for (;;) {
        try {
          const answer = await readiness(base);
          ready.push({ at: Date.now(), ...answer });
        } catch {
          return Date.now(); // the port is closed
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await eventually(() => ready.length > 0, 5_000, 'a first readiness answer');
    const killedAt = Date.now();
    proc.child.kill('SIGTERM');
    const closedAt = await poller;
    expect(await proc.exited, proc.out()).toBe(0);

    const after = ready.filter((x) => x.at > killedAt);
    const refusals = after.filter((x) => x.status === 503);
    // The balancer saw the refusal, several times, and nothing but the refusal once it began.
    expect(refusals.length, JSON.stringify(after)).toBeGreaterThanOrEqual(3);
    expect(refusals.every((x) => x.body === 'draining')).toBe(true);
    expect(after.slice(after.indexOf(refusals[0]!)).every((x) => x.status === 503)).toBe(true);
    // Answering through the grace, then closed soon after it.
    expect(refusals.at(-1)!.at - killedAt).toBeGreaterThanOrEqual(graceMs - 100);
    expect(closedAt - killedAt).toBeLessThan(graceMs + 5_000);
  }, 90_000);

  it('stops at once with exit code 1 on a second SIGTERM while its drain waits for a job', async () => {
    // A webhook receiver that never answers: the delivery job runs until WEBHOOK_TIMEOUT_MS (60 s),
    // and the drain waits for running jobs until DRAIN_TIMEOUT_S (30 s) less a second. Without the
    // second signal the process would therefore still be draining for about 29 s: the window is
    // certain, unlike two signals a few milliseconds apart, which race the drain.
    const r = await receiver(0, () => 'hang');
    cleanups.push(() => r.close());
    const { proc, base } = await start({
      ...(await processStorage('drain2', cleanups)),
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '60000',
      DRAIN_TIMEOUT_S: '30',
    });
    const { key } = await httpTenant(base);
    const auth = { authorization: `Bearer ${key}` };
    await httpJson(base, 'POST', '/v1/webhooks', { url: r.url, events: ['session.created'] }, auth);
    await httpJson(base, 'POST', '/v1/sessions', { name: 'held' }, auth);
    await eventually(() => r.hits.length === 1, 10_000, 'the delivery to reach the receiver');

    proc.child.kill('SIGTERM');
    await eventually(
      async () => (await readiness(base)).body === 'draining',
      5_000,
      'readiness to say draining',
    );
    expect(proc.child.exitCode, 'still draining, held by the delivery').toBeNull();

    const secondAt = Date.now();
    proc.child.kill('SIGTERM');
    const code = await proc.exited;
    expect(code, proc.out()).toBe(1);
    expect(Date.now() - secondAt).toBeLessThan(2_000);
    expect(proc.out()).toContain('second signal: stopping now');
    expect(proc.out()).not.toContain('"msg":"stopped"');
  });

  it('refuses publishes with UNAVAILABLE and new connections with 1012 while it drains, and acknowledges what it had taken before sending participants away', async () => {
    const storage = await processStorage('drain3', cleanups);
    const { proc, base } = await start(storage);
    const { session, token } = await bootstrap(base);
    const ws = base.replace('http', 'ws');
    const connect = async (userId: string): Promise<TestSocket> => {
      const s = await openSocket(ws, {
        session: session.id,
        user_id: userId,
        access_token: await token(userId),
      });
      await s.waitFor((m) => m.event === 'welcome');
      return s;
    };
    const alice = await connect('alice');
    const bob = await connect('bob');
    // Acknowledged, so what the joins recorded is written too: the hold below stops only what follows.
    alice.send(publish('media/alice/cam', jpeg(0), { id: 'p0' }));
    await alice.waitFor((m) => m.event === 'ack' && m.data.id === 'p0');

    const hold = await holdStreamWrites(storage);
    let held = true;
    cleanups.push(() => (held ? hold.release() : undefined));
    alice.send(publish('media/alice/cam', jpeg(1), { id: 'p1' }));
    // Bob has it: the server took p1 (delivery comes before the durable write), and cannot
    // acknowledge it while the write is held.
    await bob.waitFor((m) => m.type === 'message' && m.body === jpeg(1).toString('base64'));

    proc.child.kill('SIGTERM');
    await eventually(
      async () => (await readiness(base)).body === 'draining',
      5_000,
      'readiness to say draining',
    );
    alice.send(publish('media/alice/cam', jpeg(2), { id: 'p2' }));
    const refusal = await alice.waitFor((m) => m.event === 'error' && m.data.id === 'p2');
    expect(refusal.data.code).toBe('UNAVAILABLE');

    // A newcomer is sent elsewhere at once.
    const late = await openSocket(ws, {
      session: session.id,
      user_id: 'carol',
      access_token: await token('carol'),
    });
    expect((await late.closed).code).toBe(1012);
    expect(late.received.text.filter((m) => m.event === 'welcome')).toEqual([]);

    expect(alice.received.text.filter((m) => m.event === 'ack' && m.data.id === 'p1')).toEqual([]);
    expect(alice.received.text.filter((m) => m.event === 'reconnect')).toEqual([]);
    held = false;
    await hold.release();

    // Once p1 is durable: its ack, then the reconnect, then 1001, and the process exits 0.
    expect((await alice.closed).code).toBe(1001);
    expect((await bob.closed).code).toBe(1001);
    const told = alice.received.text.map((m) => (m.event === 'ack' ? `ack ${m.data.id}` : m.event));
    expect(told.filter((e) => e === 'ack p1' || e === 'reconnect')).toEqual(['ack p1', 'reconnect']);
    expect(alice.received.text.find((m) => m.event === 'reconnect')!.data.reason).toBe('draining');
    expect(await proc.exited, proc.out()).toBe(0);
  });
});
