import { CLOSE } from '@vss/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  ENGINE,
  REDIS_URL,
  startApp,
  tenant,
  useApp,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { eventually, listen, openSocket, token, type TestSocket } from './support/live.js';
import {
  freePort,
  httpJson,
  httpTenant,
  processStorage,
  runServer,
  waitForHttp,
  type Proc,
} from './support/process.js';

/**
 * A removal racing the participant's reconnect, across two server processes sharing PostgreSQL and
 * Redis: whatever the order, the participant ends up out, and no token issued before the removal
 * lets them back in.
 */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const ROUNDS = 25;
/** Resolves with null after `ms`: what a connection that stayed open answers (it is then counted). */
const gone = (ms: number) => new Promise<null>((ok) => setTimeout(() => ok(null), ms).unref());

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)('removals and restricted keys, on two processes', () => {
  let one: TestApp;
  let two: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    const env = {
      SESSION_DEPARTURE_TIMEOUT_S: '5',
      REDIS_URL,
      SECRET_KEY: 'removal-secret-removal-secret-012345',
    };
    one = await startApp({ env });
    two = await startApp({ env, pgSchema: one.pgSchema, dataDir: one.dataDir });
    a = await tenant(one);
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  const connect = async (t: TestApp, sessionId: string, access_token: string): Promise<TestSocket | number> =>
    openSocket(await listen(t), { session: sessionId, user_id: 'p', access_token }).then(
      (s) => s,
      (err: { status: number }) => err.status,
    );

  it(`keeps the participant out in each of ${ROUNDS} rounds, and refuses the tokens issued before`, async () => {
    const s = await createSession(one, a.key);
    const host = await openSocket(await listen(one), {
      session: s.id,
      user_id: 'host',
      access_token: await token(one, a.key, s.id, 'host'),
    });
    await host.waitFor(isControl('welcome'));
    const stayed: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const first = await connect(two, s.id, await token(two, a.key, s.id, 'p'));
      if (typeof first === 'number')
        throw new Error(`round ${round}: the first connection was refused (${first})`);
      await first.waitFor(isControl('welcome'));
      const early = await token(two, a.key, s.id, 'p');
      const again = await token(two, a.key, s.id, 'p');
      // The reconnect (which replaces the first connection) and the removal, at once.
      const [reconnect, removal] = await Promise.all([
        connect(two, s.id, again),
        call(one, 'POST', `/v1/sessions/${s.id}/participants/p/remove`, { key: a.key }),
      ]);
      expect([200, 404]).toContain(removal.status);
      if (typeof reconnect !== 'number') {
        // In, then sent out: closed with 4403.
        const closed = await Promise.race([reconnect.closed, gone(5_000)]);
        if (closed === null) {
          stayed.push(`${round}: the reconnect stayed open`);
          reconnect.ws.close();
          await reconnect.closed;
        } else expect(closed.code).toBe(CLOSE.REMOVED);
      } else expect(reconnect).toBe(403);
      // Replaced or removed, the first connection is closed.
      if ((await Promise.race([first.closed, gone(10_000)])) === null) {
        stayed.push(`${round}: the first connection stayed open (removal answered ${removal.status})`);
        first.ws.close();
        await first.closed;
      }
      // Nobody called p is present in either process once the dust settles.
      await eventually(
        async () =>
          (
            await one.runtime.database.db
              .selectFrom('session_members')
              .select('conn_id')
              .where('session_id', '=', s.id)
              .where('user_id', '=', 'p')
              .where('left_at', 'is', null)
              .execute()
          ).length === 0,
        5_000,
        'p to be gone',
      ).catch(() => stayed.push(`${round}: p still present`));
      // A token issued before the removal is refused.
      const late = await connect(one, s.id, early);
      if (typeof late !== 'number') {
        stayed.push(`${round}: an early token let p in`);
        late.ws.close();
        await late.closed;
      } else expect(late).toBe(403);
      // A token issued after it lets p in again (a removal is not a ban): the next round.
    }
    expect(stayed).toEqual([]);
    host.ws.close();
  }, 180_000);

  it("refuses a restricted key's connection for an id held on the other process by an API key", async () => {
    const s = await createSession(one, a.key);
    const rk = (await call(one, 'POST', '/v1/restricted-keys', { key: a.key, body: {} })).body.data.secret;
    const held = await openSocket(await listen(one), {
      session: s.id,
      user_id: 'app-1',
      access_token: await token(one, a.key, s.id, 'app-1'),
    });
    await held.waitFor(isControl('welcome'));
    const refused = await openSocket(await listen(two), {
      session: s.id,
      user_id: 'app-1',
      access_token: await token(two, rk, s.id, 'app-1'),
    }).then(
      () => null,
      (err: { status: number }) => err.status,
    );
    expect(refused).toBe(409);
    // The API key's connection stays: it publishes and is acknowledged.
    held.send({
      type: 'publish',
      stream_type: 'chat',
      body: Buffer.from('{"text":"here"}').toString('base64'),
      id: 'c1',
    });
    await held.waitFor(isControl('ack'));
    expect(held.received.text.some(isControl('replaced'))).toBe(false);
    held.ws.close();
  });
});

describe('a removal while the participant is away', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => {
    t = app;
    a = tenant;
  });

  it('answers 404, and still refuses the tokens issued before it', async () => {
    const s = await createSession(t, a.key);
    const host = await openSocket(await listen(t), {
      session: s.id,
      user_id: 'host',
      access_token: await token(t, a.key, s.id, 'host'),
    });
    await host.waitFor(isControl('welcome'));
    // p holds a token, between two connections (a reconnect under way), when the host removes them.
    const held = await token(t, a.key, s.id, 'p');
    const removal = await call(t, 'POST', `/v1/sessions/${s.id}/participants/p/remove`, { key: a.key });
    expect(removal.status).toBe(404);
    expect(removal.body.error?.message).toMatch(/refused all the same/);
    const refused = await openSocket(await listen(t), {
      session: s.id,
      user_id: 'p',
      access_token: held,
    }).then(
      () => null,
      (err: { status: number }) => err.status,
    );
    expect(refused).toBe(403);
    // A token issued after the removal lets p in: a removal is not a ban.
    const back = await openSocket(await listen(t), {
      session: s.id,
      user_id: 'p',
      access_token: await token(t, a.key, s.id, 'p'),
    });
    await back.waitFor(isControl('welcome'));
    back.ws.close();
    host.ws.close();
  });
});

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)(
  'a removal racing a reconnect, on two server processes',
  () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    const procs: Proc[] = [];
    const bases: string[] = [];
    beforeAll(async () => {
      const storage = await processStorage('removal', cleanups);
      // One after the other: the first migrates the schema.
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        const proc = runServer({
          ...storage,
          PORT: String(port),
          REDIS_URL,
          SESSION_DEPARTURE_TIMEOUT_S: '5',
          LOG_LEVEL: 'warn',
          SECRET_KEY: 'removal-secret-removal-secret-012345',
        });
        procs.push(proc);
        bases.push(`http://127.0.0.1:${port}`);
        await waitForHttp(`${bases[i]}/health`, 60_000);
      }
    }, 90_000);
    afterAll(async () => {
      for (const p of procs)
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      for (const c of cleanups.reverse()) await c();
    });

    it('keeps the participant out whichever comes first, and refuses the tokens issued before', async () => {
      const [one, two] = bases as [string, string];
      const { key } = await httpTenant(one);
      const auth = { authorization: `Bearer ${key}` };
      const s = (await httpJson(one, 'POST', '/v1/sessions', { name: 'race' }, auth)).data;
      const tokenAt = async (base: string, user_id: string) =>
        (await httpJson(base, 'POST', `/v1/sessions/${s.id}/connection`, { user_id }, auth)).data
          .access_token as string;
      const ws = (base: string) => base.replace('http', 'ws');
      const connect = (base: string, access_token: string): Promise<TestSocket | number> =>
        openSocket(ws(base), { session: s.id, user_id: 'p', access_token }).then(
          (x) => x,
          (err: { status: number }) => err.status,
        );
      const host = await openSocket(ws(one), {
        session: s.id,
        user_id: 'host',
        access_token: await tokenAt(one, 'host'),
      });
      await host.waitFor(isControl('welcome'));
      /** p's joins less leaves, as the host (on the other process) was told them. */
      const pIn = () =>
        host.received.text.filter((m) => isControl('join')(m) && m.user_id === 'p').length -
        host.received.text.filter((m) => isControl('leave')(m) && m.user_id === 'p').length;
      const stayed: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const first = await connect(two, await tokenAt(two, 'p'));
        if (typeof first === 'number')
          throw new Error(`round ${round}: the first connection was refused (${first})`);
        await first.waitFor(isControl('welcome'));
        const early = await tokenAt(two, 'p');
        const again = await tokenAt(two, 'p');
        const [reconnect, removal] = await Promise.all([
          connect(two, again),
          fetch(`${one}/v1/sessions/${s.id}/participants/p/remove`, { method: 'POST', headers: auth }),
        ]);
        expect([200, 404]).toContain(removal.status);
        if (typeof reconnect !== 'number') {
          const closed = await Promise.race([reconnect.closed, gone(5_000)]);
          if (closed === null) {
            stayed.push(`${round}: the reconnect stayed open`);
            reconnect.ws.close();
            await reconnect.closed;
          } else expect(closed.code).toBe(CLOSE.REMOVED);
        } else expect(reconnect).toBe(403);
        if ((await Promise.race([first.closed, gone(10_000)])) === null) {
          stayed.push(`${round}: the first connection stayed open (removal answered ${removal.status})`);
          first.ws.close();
          await first.closed;
        }
        await eventually(() => pIn() === 0, 5_000, 'the host to see p gone').catch(() =>
          stayed.push(`${round}: the host still counts p in`),
        );
        const late = await connect(one, early);
        if (typeof late !== 'number') {
          stayed.push(`${round}: an early token let p in`);
          late.ws.close();
          await late.closed;
        } else expect(late).toBe(403);
      }
      expect(stayed).toEqual([]);
      host.ws.close();
    }, 180_000);
  },
);
