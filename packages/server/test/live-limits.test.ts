import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { eventually, join, jpeg, listen, openSocket, publish, token } from './support/live.js';

/** The free tier holds for live sessions too: new meetings and stored bytes. */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;

describe('an organisation over its free tier', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp({ env: { FREE_TIER_STREAMING_MINUTES: '0', USAGE_FLUSH_INTERVAL_S: '1' } });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('cannot start a meeting created before it went over, with a new token or one issued before; a meeting under way goes on', async () => {
    const underWay = await createSession(t, a.key, 'under way');
    const notStarted = await createSession(t, a.key, 'not started');
    const early = await token(t, a.key, notStarted.id, 'carol');
    const bob = await join(t, a.key, underWay.id, 'bob');
    await eventually(
      async () => (await call(t, 'GET', '/v1/billing/limits', { key: a.key })).body.data.is_blocked,
      20_000,
      'the organisation to be over its free tier',
    );

    const refused = await call(t, 'POST', `/v1/sessions/${notStarted.id}/connection`, {
      key: a.key,
      body: { user_id: 'carol' },
    });
    expect(expectError(refused, 503, 'USAGE_LIMITS_EXCEEDED')).toMatch(
      /^joining a session that has not started refused/,
    );
    const base = await listen(t);
    const upgrade = await openSocket(base, {
      session: notStarted.id,
      access_token: early,
      user_id: 'carol',
    }).then(
      () => null,
      (err: { status?: number; body?: string }) => err,
    );
    expect(upgrade?.status).toBe(503);
    expect(JSON.parse(upgrade!.body!).error.code).toBe('USAGE_LIMITS_EXCEEDED');
    expect(
      (await call(t, 'GET', `/v1/sessions/${notStarted.id}`, { key: a.key })).body.data.started_at,
    ).toBeNull();

    // The meeting under way: someone joins (and rejoins) it and publishes.
    const alice = await join(t, a.key, underWay.id, 'alice');
    alice.send(publish('media/alice/cam', jpeg(1), { id: 'a1' }));
    await alice.waitFor(isControl('ack'));
    alice.ws.close();
    const again = await join(t, a.key, underWay.id, 'alice');
    again.ws.close();
    bob.ws.close();
  });
});

describe('live media of an organisation without a subscription', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    // 200 kB of free storage: three 64 KiB frames fit, a fourth does not.
    t = await startApp({ env: { FREE_TIER_STORAGE_GB: '0.0002' } });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('is refused once what it stores reaches the free tier; chat is still taken', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    for (let i = 0; i < 6; i++) alice.send(publish('media/alice/cam', jpeg(i, 64 * 1024), { id: `f${i}` }));
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'still here' })), { id: 'chat' }));
    const acks = await alice.waitForCount(isControl('ack'), 4);
    expect(acks.map((m) => m.data.id).sort()).toEqual(['chat', 'f0', 'f1', 'f2']);
    const errors = await alice.waitForCount(isControl('error'), 3);
    expect(errors.map((m) => m.data.id)).toEqual(['f3', 'f4', 'f5']);
    for (const e of errors) {
      expect(e.data.code).toBe('USAGE_LIMITS_EXCEEDED');
      expect(e.data.message).toMatch(/free-tier storage is used up/);
    }
    await t.runtime.writer.flush();
    let media = 0;
    for await (const e of t.runtime.streams.read(s.id, {}))
      if (e.streamId.startsWith('media/')) media += e.body.length;
    expect(media).toBe(3 * 64 * 1024);
    alice.ws.close();
  });

  it('relays no reduced layer once storage is used up: full-size video sent as layer 1 is refused as layer 0 is', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    // The first test used up the organisation's storage; make sure of it here all the same.
    for (let i = 0; i < 4; i++)
      alice.send(publish('media/alice/cam', jpeg(i, 64 * 1024), { id: `base${i}` }));
    await eventually(
      () => alice.received.text.some((m) => m.data?.id === 'base3' && m.event === 'error'),
      10_000,
      'the recorded layer to be refused',
    );
    for (let i = 0; i < 3; i++)
      alice.send(publish('media/alice/cam', jpeg(i, 60 * 1024), { id: `layer${i}`, layer: 1 }));
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'after' })), { id: 'after' }));
    const answers = await eventually(
      () => {
        const got = alice.received.text.filter(
          (m) =>
            m.type === 'control' && typeof m.data?.id === 'string' && /^(layer\d|after)$/.test(m.data.id),
        );
        return got.length === 4 ? got : null;
      },
      10_000,
      'answers to the reduced layer and the chat',
    );
    expect(answers.filter((m) => m.event === 'error').map((m) => [m.data.id, m.data.code])).toEqual([
      ['layer0', 'USAGE_LIMITS_EXCEEDED'],
      ['layer1', 'USAGE_LIMITS_EXCEEDED'],
      ['layer2', 'USAGE_LIMITS_EXCEEDED'],
    ]);
    // bob got the chat sent after them, and none of the reduced layer (60 KiB pictures).
    await bob.waitFor((m) => m.type === 'message' && m.stream_type === 'chat');
    const cams = bob.received.text.filter((m) => m.type === 'message' && m.stream_type === 'media/alice/cam');
    expect(cams.map((m) => Buffer.from(m.body, 'base64').length).filter((n) => n === 60 * 1024)).toEqual([]);
    alice.ws.close();
    bob.ws.close();
  });
});
