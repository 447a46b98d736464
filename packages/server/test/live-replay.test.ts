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
import { join, jpeg, leave, listen, openSocket, publish, token } from './support/live.js';

describe('replay over the WebSocket', () => {
  let t: TestApp;
  let a: Tenant;
  let sessionId: string;
  /**
   * The media clock of this file's recordings: an hour ahead of the time it loads, so that the
   * timeline's own events (joins, at the server's time) come before every recorded message; their
   * server takes timestamps up to a day from its own clock (LIVE_CLOCK_SKEW_S).
   */
  const T0 = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
  const FIXED_CLOCK = { LIVE_CLOCK_SKEW_S: '86400' };
  const SPAN = 2000;

  beforeAll(async () => {
    t = await startApp({ env: FIXED_CLOCK });
    a = await tenant(t);
    sessionId = (await createSession(t, a.key)).id;
    // A recording with known media timestamps: alice's camera every 100 ms over 2 s, bob's every 500 ms.
    const alice = await join(t, a.key, sessionId, 'alice');
    const bob = await join(t, a.key, sessionId, 'bob');
    for (let ms = 0; ms <= SPAN; ms += 100)
      alice.send(publish('media/alice/cam', jpeg(ms), { timestamp_ms: T0 + ms, id: `a${ms}` }));
    // Alice's frames are recorded first: at T0 both have one, and the replay starts with hers.
    await alice.waitFor((m) => m.event === 'ack' && m.data.id === `a${SPAN}`);
    for (let ms = 0; ms <= SPAN; ms += 500)
      bob.send(publish('media/bob/cam', jpeg(ms + 1), { timestamp_ms: T0 + ms, id: `b${ms}` }));
    await alice.waitFor((m) => m.event === 'ack' && m.data.id === `a${SPAN}`);
    await bob.waitFor((m) => m.event === 'ack' && m.data.id === `b${SPAN}`);
    await leave(alice);
    await leave(bob);
  });
  afterAll(() => t.close());

  async function replay(extra: Record<string, unknown>) {
    const base = await listen(t);
    const access_token = await token(t, a.key, sessionId, 'viewer', { replay: true, ...extra });
    const s = await openSocket(base, { session: sessionId, access_token, user_id: 'viewer' });
    const welcome = await s.waitFor((m) => m.event === 'welcome');
    const started = Date.now();
    await s.waitFor((m) => m.event === 'end', 20_000);
    const elapsed = Date.now() - started;
    const media = s.received.text.filter((m) => m.type === 'message' && m.stream_type.startsWith('media/'));
    await s.closed;
    return { welcome, elapsed, media, all: s.received.text };
  }

  it('plays the recording from from_ts at speed 4 in about a quarter of its span, then ends', async () => {
    const { welcome, elapsed, media } = await replay({ from_ts: T0, speed: 4 });
    expect(welcome.data.mode).toBe('replay');
    expect(media).toHaveLength(21 + 5);
    // The span is 2000 ms: at speed 4 that is 500 ms.
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(900);
    expect(Buffer.from(media[0]!.body, 'base64').equals(jpeg(0))).toBe(true);
    const seqs = media.map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  it('plays only the focus stream, or one user\u2019s media, and starts at from_ts', async () => {
    const one = await replay({ from_ts: T0 + 1000, speed: 16, focus: 'media/bob/cam' });
    expect(one.media.map((m) => m.timestamp_ms)).toEqual([T0 + 1000, T0 + 1500, T0 + 2000]);
    expect(one.all.filter((m) => m.type === 'message').every((m) => m.stream_type === 'media/bob/cam')).toBe(
      true,
    );
    const user = await replay({ from_ts: T0 + 1900, speed: 16, focus: 'alice' });
    expect(user.media.map((m) => [m.stream_type, m.timestamp_ms])).toEqual([
      ['media/alice/cam', T0 + 1900],
      ['media/alice/cam', T0 + 2000],
    ]);
  });

  it('refuses to publish on a replay connection', async () => {
    const base = await listen(t);
    const access_token = await token(t, a.key, sessionId, 'viewer', {
      replay: true,
      from_ts: T0,
      speed: 0.25,
    });
    const s = await openSocket(base, { session: sessionId, access_token, user_id: 'viewer' });
    s.send(publish('chat', Buffer.from('{"text":"hi"}')));
    expect((await s.waitFor((m) => m.event === 'error')).data.code).toBe('REPLAY_ONLY');
    s.ws.close();
    await s.closed;
  });

  it('refuses replay options out of range', async () => {
    const url = `/v1/sessions/${sessionId}/connection`;
    expectError(
      await call(t, 'POST', url, { key: a.key, body: { user_id: 'v', replay: true, speed: 0 } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'POST', url, { key: a.key, body: { user_id: 'v', replay: true, focus: '' } }),
      400,
      'BAD_REQUEST',
    );
  });
});
