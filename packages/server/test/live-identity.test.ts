import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { LiveClient } from '@vss/client';
import { CLOSE } from '@vss/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  call,
  createSession,
  ENGINE,
  REDIS_URL,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { decodeVideo } from './support/decode.js';
import { exportTo } from './support/exports.js';
import {
  eventually,
  join,
  jpeg,
  listen,
  openSocket,
  publish,
  token,
  type TestSocket,
} from './support/live.js';
import { evc1, vpxPattern, type Chunk } from './support/media.js';

/** One identity, one live connection: a newer connection of a user replaces the older one. */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;

async function recorded(t: TestApp, sessionId: string, streamId: string) {
  await t.runtime.writer.flush();
  const out: Array<{ seq: number; body: Buffer }> = [];
  for await (const e of t.runtime.streams.read(sessionId, {}))
    if (e.streamId === streamId) out.push({ seq: e.seq, body: Buffer.from(e.body) });
  return out;
}

describe('the same user twice in one session', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '1' } });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('tells the older connection it was replaced and closes it with 4409; the others see one alice', async () => {
    const s = await createSession(t, a.key);
    const bob = await join(t, a.key, s.id, 'bob');
    const first = await join(t, a.key, s.id, 'alice');
    await bob.waitFor(isControl('join'));
    const second = await join(t, a.key, s.id, 'alice');

    const replaced = await first.waitFor(isControl('replaced'));
    expect(replaced).toMatchObject({ user_id: 'alice' });
    expect(await first.closed).toMatchObject({ code: CLOSE.REPLACED });
    // The newer connection stays, and is the one welcomed with alice present once.
    const welcome = second.received.text.find(isControl('welcome'))!;
    expect(welcome.data.participants.sort()).toEqual(['alice', 'bob']);
    expect(second.ws.readyState).toBe(WebSocket.OPEN);
    // bob saw the older alice leave before the newer one joined, never two alices at once.
    await bob.waitForCount(isControl('join'), 2);
    const seen = bob.received.text
      .filter((m) => m.type === 'control' && (m.event === 'join' || m.event === 'leave'))
      .map((m) => `${m.event}:${m.user_id}`);
    expect(seen).toEqual(['join:alice', 'leave:alice', 'join:alice']);
    second.ws.close();
    bob.ws.close();
  });

  it('records one source at a time: nothing the older connection sends after the newer one joined is stored', async () => {
    const s = await createSession(t, a.key);
    const first = await join(t, a.key, s.id, 'alice');
    for (let i = 0; i < 5; i++) first.send(publish('media/alice/cam', jpeg(i), { id: `a${i}` }));
    await first.waitForCount(isControl('ack'), 5);

    const base = await listen(t);
    const secondToken = await token(t, a.key, s.id, 'alice');
    // The older tab keeps publishing while the newer one connects and publishes too.
    const sending = setInterval(() => {
      if (first.ws.readyState === WebSocket.OPEN) first.send(publish('media/alice/cam', jpeg(1000)));
    }, 2);
    let second: TestSocket;
    try {
      second = await openSocket(base, { session: s.id, access_token: secondToken, user_id: 'alice' });
      await second.waitFor(isControl('welcome'));
      await first.closed;
    } finally {
      clearInterval(sending);
    }
    for (let i = 0; i < 5; i++) second.send(publish('media/alice/cam', jpeg(2000 + i), { id: `b${i}` }));
    await second.waitForCount(isControl('ack'), 5);

    const frames = (await recorded(t, s.id, 'media/alice/cam')).map((f) => f.body.readUInt32BE(4));
    const firstOfSecond = frames.indexOf(2000);
    expect(firstOfSecond).toBeGreaterThan(0);
    // After the newer connection's first frame, only its own frames.
    expect(frames.slice(firstOfSecond)).toEqual([2000, 2001, 2002, 2003, 2004]);
    second.ws.close();
  });

  it('does not let the client library reconnect after 4409', async () => {
    const s = await createSession(t, a.key);
    const base = await listen(t);
    const closes: Array<{ code: number; willReconnect: boolean }> = [];
    let reconnects = 0;
    const older = new LiveClient({
      url: base,
      session: s.id,
      userId: 'alice',
      WebSocket: WebSocket as never,
      token: () => token(t, a.key, s.id, 'alice'),
      reconnect: { minDelayMs: 10, maxDelayMs: 20, maxRetries: 5 },
    });
    older.on('close', (e) => closes.push(e));
    older.on('reconnecting', () => (reconnects += 1));
    await older.connect();
    const newer = await join(t, a.key, s.id, 'alice');
    await eventually(() => closes.length > 0, 5_000, 'the older client to close');
    expect(closes[0]).toMatchObject({ code: CLOSE.REPLACED, willReconnect: false });
    // The newer connection is still the only alice a moment of network later.
    newer.send(publish('media/alice/cam', jpeg(1), { id: 'n1' }));
    await newer.waitFor(isControl('ack'));
    expect(reconnects).toBe(0);
    expect(older.readyState).toBe(WebSocket.CLOSED);
    newer.ws.close();
  });
});

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)('the same user on two server processes', () => {
  let one: TestApp;
  let two: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    const env = {
      SESSION_DEPARTURE_TIMEOUT_S: '1',
      REDIS_URL,
      SECRET_KEY: 'identity-secret-identity-secret-0123',
    };
    one = await startApp({ env });
    two = await startApp({ env, pgSchema: one.pgSchema, dataDir: one.dataDir });
    a = await tenant(one);
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it('replaces the connection held by the other process before the newer one is announced', async () => {
    const s = await createSession(one, a.key);
    const first = await join(one, a.key, s.id, 'alice');
    const bob = await join(one, a.key, s.id, 'bob');
    first.send(publish('media/alice/cam', jpeg(1), { id: 'a1' }));
    await first.waitFor(isControl('ack'));
    const second = await join(two, a.key, s.id, 'alice');
    expect(await first.waitFor(isControl('replaced'))).toMatchObject({ user_id: 'alice' });
    expect(await first.closed).toMatchObject({ code: CLOSE.REPLACED });
    const welcome = second.received.text.find(isControl('welcome'))!;
    expect(welcome.data.participants.sort()).toEqual(['alice', 'bob']);
    // The older connection had left before the newer one was announced.
    await bob.waitForCount(isControl('join'), 1);
    await eventually(
      () =>
        bob.received.text
          .filter((m) => m.type === 'control' && (m.event === 'join' || m.event === 'leave'))
          .map((m) => `${m.event}:${m.user_id}`)
          .join(' ') === 'leave:alice join:alice',
      5_000,
      'bob to see the older alice leave, then the newer one join',
    );
    second.ws.close();
    bob.ws.close();
  });

  it('removes a participant held by the other process, and names who is present in either', async () => {
    const s = await createSession(one, a.key);
    const carol = await openSocket(await listen(two), {
      session: s.id,
      user_id: 'carol',
      access_token: await token(two, a.key, s.id, 'carol', { display_name: 'Carol Ng' }),
    });
    await carol.waitFor(isControl('welcome'));
    const bob = await join(one, a.key, s.id, 'bob');
    expect(bob.received.text.find(isControl('welcome'))!.data.names).toEqual({
      bob: 'bob',
      carol: 'Carol Ng',
    });
    const removed = await call(one, 'POST', `/v1/sessions/${s.id}/participants/carol/remove`, { key: a.key });
    expect(removed.status).toBe(200);
    await carol.waitFor(isControl('removed'));
    expect(await carol.closed).toMatchObject({ code: CLOSE.REMOVED });
    await bob.waitFor((m) => isControl('leave')(m) && m.user_id === 'carol');
    bob.ws.close();
  });
});

// The rendering does not depend on the engine: once, on the embedded default.
describe.skipIf(ENGINE !== 'sqlite')('the export of a session where a user joined from a second tab', () => {
  let t: TestApp;
  let a: Tenant;
  let dir: string;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '1' } });
    a = await tenant(t);
    dir = mkdtempSync(joinPath(tmpdir(), 'vss-identity-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const FPS = 15;
  const camera = (c: Chunk, startMs: number) => evc1('vp8', c, startMs * 1000);
  const connect = async (sessionId: string) => {
    const c = new LiveClient({
      url: await listen(t),
      session: sessionId,
      userId: 'alice',
      format: 'binary',
      WebSocket: WebSocket as never,
      reconnect: false,
      token: () => token(t, a.key, sessionId, 'alice'),
    });
    await c.connect();
    return c;
  };
  const ended = (sessionId: string) =>
    eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${sessionId}`, { key: a.key })).body.data?.ended_at,
      20_000,
      'the session to end',
    );

  it("decodes without broken frames: the second tab's part matches a recording of that tab alone", async () => {
    // Two tabs of one user, each with its own encoder (two moving patterns): the first for 4 s,
    // the second joining at 2 s. The first tab keeps sending after the second joined.
    const first = await vpxPattern('vp8', 'testsrc2', 4, FPS);
    const second = await vpxPattern('vp8', 'testsrc', 2, FPS);
    const start = Date.now();
    // Each tab stamps its frames by its own clock: the first tab's fall between the second's.
    const aStart = start + 33;

    const twice = (await createSession(t, a.key, 'two tabs')).id;
    const tabA = await connect(twice);
    const half = first.length / 2;
    for (let i = 0; i < half; i++)
      await tabA.publish('media/alice/cam', camera(first[i]!, aStart), {
        timestampMs: aStart + first[i]!.offsetUs / 1000,
        binary: true,
        ack: i === half - 1,
      });
    const tabB = await connect(twice);
    for (let i = 0; i < second.length; i++) {
      await tabB.publish('media/alice/cam', camera(second[i]!, start + 2000), {
        timestampMs: start + 2000 + second[i]!.offsetUs / 1000,
        binary: true,
      });
      const late = first[half + i]!;
      await Promise.resolve()
        .then(() =>
          tabA.publish('media/alice/cam', camera(late, aStart), {
            timestampMs: aStart + late.offsetUs / 1000,
            binary: true,
          }),
        )
        .catch(() => {});
    }
    await tabB.publishChat('done', { ack: true });
    await tabB.close();
    await tabA.close().catch(() => {});
    await ended(twice);

    // The same media from one tab: the first tab's two seconds, then the second tab's.
    const once = (await createSession(t, a.key, 'one tab')).id;
    const tab = await connect(once);
    for (let i = 0; i < half; i++)
      await tab.publish('media/alice/cam', camera(first[i]!, aStart), {
        timestampMs: aStart + first[i]!.offsetUs / 1000,
        binary: true,
      });
    for (const c of second)
      await tab.publish('media/alice/cam', camera(c, start + 2000), {
        timestampMs: start + 2000 + c.offsetUs / 1000,
        binary: true,
      });
    await tab.publishChat('done', { ack: true });
    await tab.close();
    await ended(once);

    await exportTo(t, a.key, twice, joinPath(dir, 'twice.mp4'));
    await exportTo(t, a.key, once, joinPath(dir, 'once.mp4'));
    const got = await decodeVideo(joinPath(dir, 'twice.mp4'), 1280, 720);
    const want = await decodeVideo(joinPath(dir, 'once.mp4'), 1280, 720);
    expect(got.frames.length).toBeGreaterThan(40);
    // The second tab's part, compared at the same moments: the mean difference of a pixel, in
    // levels of 255 (two sources in one track show as broken blocks, or as frames of both in turn).
    const rate = (d: { frames: Buffer[] }) => d.frames.length / 4;
    const diffs: number[] = [];
    for (let ms = 2300; ms < 3800; ms += 1000 / FPS) {
      const x = got.frames[Math.round((ms / 1000) * rate(got))]!;
      const y = want.frames[Math.round((ms / 1000) * rate(want))]!;
      let sum = 0;
      for (let p = 0; p < x.length; p++) sum += Math.abs(x[p]! - y[p]!);
      diffs.push(sum / x.length);
    }
    expect(diffs.length).toBeGreaterThan(10);
    expect(Math.max(...diffs)).toBeLessThan(3);
  }, 120_000);
});

describe('a join that storage refuses', () => {
  let t: TestApp;
  let a: Tenant;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    process.on('unhandledRejection', onUnhandled);
    // A real storage error on the presence row of one participant, on either engine.
    const { sql } = await import('kysely');
    if (ENGINE === 'postgres')
      await sql`alter table session_members add constraint no_doomed check (user_id <> 'doomed')`.execute(
        t.runtime.database.db,
      );
    else
      await sql`create trigger no_doomed before insert on session_members when new.user_id = 'doomed'
        begin select raise(abort, 'refused by a trigger'); end`.execute(t.runtime.database.db);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await t.close();
  });

  it('closes that socket with 1011 and nothing else: the server goes on serving the others', async () => {
    const s = await createSession(t, a.key);
    const base = await listen(t);
    const doomed = await openSocket(base, {
      session: s.id,
      access_token: await token(t, a.key, s.id, 'doomed'),
      user_id: 'doomed',
    });
    doomed.send(publish('media/doomed/cam', jpeg(1), { id: 'x' }));
    expect(await doomed.closed).toMatchObject({ code: CLOSE.INTERNAL_ERROR });
    expect(doomed.received.text.filter(isControl('welcome'))).toEqual([]);

    const bob = await join(t, a.key, s.id, 'bob');
    expect(bob.received.text.find(isControl('welcome'))!.data.participants).toEqual(['bob']);
    bob.send(publish('media/bob/cam', jpeg(2), { id: 'b' }));
    await bob.waitFor(isControl('ack'));
    // Let the event loop turn over once, so that a rejection nobody handled is reported.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    bob.ws.close();
  });
});
