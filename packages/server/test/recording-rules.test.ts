import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evc1, pcmChunks } from './support/media.js';
import {
  apiKey,
  call,
  createSession,
  expectError,
  ENGINE,
  REDIS_URL,
  register,
  startApp,
  tenant,
  useApp,
  type Tenant,
  type TestApp,
} from './support/app.js';
import {
  eventually,
  join,
  jpeg,
  leave,
  listen,
  openSocket,
  publish,
  token,
  type TestSocket,
} from './support/live.js';

/** Recording rules, pause and resume: what is stored of a live session, and who is told. */

const PCM_DESCRIPTION = new TextEncoder().encode(JSON.stringify({ sampleRate: 16_000, numberOfChannels: 1 }));
const pcmVoiceChunk = pcmChunks(440, 0.02)[0]!;
const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const ackOf = (id: string) => (m: Record<string, any>) => isControl('ack')(m) && m.data.id === id;
const messageOf = (stream: string, n?: number) => (m: Record<string, any>) =>
  m.type === 'message' &&
  m.stream_type === stream &&
  (n === undefined || Buffer.from(m.body, 'base64').readUInt32BE(4) === n);

/** A microphone's packet: 20 ms of a tone, as PCM in EVC1. */
const voice = evc1('pcm-s16', pcmVoiceChunk, 0, PCM_DESCRIPTION);

/** Publishes one frame `n` (a picture, or for `mic` a packet of sound), stamped now; resolves with its ack. */
async function frame(s: TestSocket, user: string, n: number, kind = 'cam') {
  const id = `${user}-${kind}-${n}`;
  s.send(publish(`media/${user}/${kind}`, kind === 'mic' ? voice : jpeg(n), { id }));
  return (await s.waitFor(ackOf(id))).data as { id: string; seq: number; recorded?: false };
}

describe('recording rules, pause and resume', () => {
  let t: TestApp;
  let a: Tenant;
  useApp(
    (app, tenant) => {
      t = app;
      a = tenant;
    },
    { env: { SESSION_DEPARTURE_TIMEOUT_S: '1' } },
  );
  const rulesOf = (id: string) => call(t, 'GET', `/v1/sessions/${id}/recording-rules`, { key: a.key });
  const setRules = (id: string, rules: unknown, key = a.key) =>
    call(t, 'PUT', `/v1/sessions/${id}/recording-rules`, { key, body: { rules } });
  const pause = (id: string) => call(t, 'POST', `/v1/sessions/${id}/recording/pause`, { key: a.key });
  const resume = (id: string) => call(t, 'POST', `/v1/sessions/${id}/recording/resume`, { key: a.key });
  const manifest = async (id: string) =>
    (await call(t, 'GET', `/v1/sessions/${id}/manifest`, { key: a.key })).body.data;
  const timeline = async (id: string) =>
    (await call(t, 'GET', `/v1/sessions/${id}/timeline`, { key: a.key })).body.data as Array<any>;

  it('records everything by default, and refuses bad rules naming the field', async () => {
    const s = await createSession(t, a.key);
    expect((await rulesOf(s.id)).body.data).toEqual({
      session_id: s.id,
      state: 'recording',
      paused_at: null,
      rules: [],
    });
    const bad: Array<[unknown, string]> = [
      [[{ type: 'exclude', kind: 'video' }], 'kind'],
      [[{ type: 'drop', all: true }], 'type'],
      [[{ type: 'exclude' }], 'body.rules[0]'],
      [
        [
          { type: 'include', all: true },
          { type: 'exclude', all: true, user_id: 'bob' },
        ],
        'body.rules[1]',
      ],
      [[{ type: 'exclude', user_id: 'a\u0000b' }], 'user_id'],
      [[{ type: 'exclude', all: true, colour: 'red' }], 'colour'],
      [Array.from({ length: 101 }, () => ({ type: 'exclude', all: true })), 'rules'],
      ['all', 'rules'],
    ];
    for (const [rules, field] of bad) {
      const message = expectError(await setRules(s.id, rules), 400, 'BAD_REQUEST');
      expect(message, JSON.stringify(rules).slice(0, 80)).toContain(field);
    }
    // Nothing half written: the rules are still the default.
    expect((await rulesOf(s.id)).body.data.rules).toEqual([]);
    // Exactly 100 rules, naming people who have not joined (nor ever may), are taken.
    const hundred = Array.from({ length: 100 }, (_, i) => ({
      type: 'exclude' as const,
      user_id: `nobody-${i}`,
    }));
    expect((await setRules(s.id, hundred)).body.data.rules).toEqual(hundred);
    // Another organisation's key does not find the session.
    const other = await register(t);
    expectError(await setRules(s.id, [], await apiKey(t, other)), 404, 'NOT_FOUND');
  });

  it("relays an excluded participant's camera live and stores none of it; a rule changed mid-session applies from then", async () => {
    const s = await createSession(t, a.key);
    // Set before anyone joined: the timeline starts with it.
    await setRules(s.id, [{ type: 'exclude', user_id: 'bob', kind: 'cam' }]);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    expect((await bob.waitFor(isControl('welcome'))).data.recording).toEqual({
      state: 'recording',
      rules: [{ type: 'exclude', user_id: 'bob', kind: 'cam' }],
      hosts: [],
    });
    expect(await frame(bob, 'bob', 1)).toMatchObject({ recorded: false });
    await alice.waitFor(messageOf('media/bob/cam', 1));
    expect(await frame(bob, 'bob', 2, 'mic')).not.toHaveProperty('recorded');
    expect(await frame(alice, 'alice', 3)).not.toHaveProperty('recorded');
    let m = await manifest(s.id);
    const kinds = (x: any) =>
      Object.fromEntries(x.participants.map((p: any) => [p.user_id, p.tracks.map((k: any) => k.kind)]));
    expect(kinds(m)).toEqual({ alice: ['cam'], bob: ['mic'] });

    // From now on Bob's camera is recorded; Alice is told.
    const changed = await setRules(s.id, []);
    expect(changed.body.data.rules).toEqual([]);
    expect((await alice.waitFor(isControl('recording'))).data).toEqual({
      state: 'recording',
      rules: [],
      hosts: [],
    });
    const after = await frame(bob, 'bob', 4);
    expect(after).not.toHaveProperty('recorded');
    m = await manifest(s.id);
    const bobCam = m.participants
      .find((p: any) => p.user_id === 'bob')
      .tracks.find((k: any) => k.kind === 'cam');
    const events = await timeline(s.id);
    const change = events.filter((e) => e.type === 'recording.rules_changed');
    expect(change.map((e) => e.data.rules)).toEqual([[{ type: 'exclude', user_id: 'bob', kind: 'cam' }], []]);
    // Written with the session's start, not when it was set.
    expect(change[0].ts).toBe(events.find((e) => e.type === 'session.started').ts);
    expect(bobCam.start_ts).toBeGreaterThanOrEqual(change[1].ts);
    expect(bobCam.segments).toEqual([{ start_ts: bobCam.start_ts, end_ts: bobCam.end_ts }]);
    // The playback holds frame 4 of Bob's camera and never frame 1.
    const window = await call(t, 'GET', `/v1/sessions/${s.id}/playback?from_ts=0&window_size=300000`, {
      key: a.key,
    });
    const bobFrames = window.body.data.events
      .filter((e: any) => e.stream_id === 'media/bob/cam')
      .map((e: any) => Buffer.from(e.body_base64, 'base64').readUInt32BE(4));
    expect(bobFrames).toEqual([4]);
    await leave(alice);
    await leave(bob);
  });

  it('pauses and resumes: nothing stored while paused, everyone told, two segments per track, replay skips the span', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    expect((await alice.waitFor(isControl('welcome'))).data.recording).toEqual({
      state: 'recording',
      rules: [],
      hosts: [],
    });
    await frame(alice, 'alice', 1);
    await frame(alice, 'alice', 2, 'mic');
    expectError(await resume(s.id), 409, 'CONFLICT');

    const paused = await pause(s.id);
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ state: 'paused', rules: [] });
    expect((await alice.waitFor(isControl('recording'))).data).toEqual({
      state: 'paused',
      rules: [],
      hosts: [],
    });
    expect(expectError(await pause(s.id), 409, 'CONFLICT')).toContain('already paused');
    // Someone joining while paused learns it in the welcome.
    const bob = await join(t, a.key, s.id, 'bob');
    expect((await bob.waitFor(isControl('welcome'))).data.recording.state).toBe('paused');
    expect(await frame(alice, 'alice', 3)).toMatchObject({ recorded: false });
    await bob.waitFor(messageOf('media/alice/cam', 3));
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'salaries' })), { id: 'chat-1' }));
    expect((await alice.waitFor(ackOf('chat-1'))).data.recorded).toBe(false);
    // A wait the replay must not sit through: stamped frames prove the span, not the clock.
    await eventually(
      () => Date.now() - Date.parse(paused.body.data.paused_at) >= 1500,
      5000,
      'a paused span',
    );

    expect((await resume(s.id)).body.data).toMatchObject({ state: 'recording', paused_at: null });
    expect((await bob.waitFor(isControl('recording'))).data.state).toBe('recording');
    await frame(alice, 'alice', 4);
    await frame(alice, 'alice', 5, 'mic');
    await leave(bob);
    await leave(alice);

    const events = await timeline(s.id);
    const p = events.find((e) => e.type === 'recording.paused');
    const r = events.find((e) => e.type === 'recording.resumed');
    expect(p.actor).toBeTruthy();
    expect(r.data.paused_ms).toBe(r.ts - p.ts);
    const m = await manifest(s.id);
    for (const track of m.participants.find((x: any) => x.user_id === 'alice').tracks) {
      expect(track.segments).toEqual([
        { start_ts: track.start_ts, end_ts: p.ts },
        { start_ts: r.ts, end_ts: track.end_ts },
      ]);
    }
    const chat = await call(t, 'GET', `/v1/sessions/${s.id}/chat`, { key: a.key });
    expect(JSON.stringify(chat.body.data)).not.toContain('salaries');
    const window = await call(t, 'GET', `/v1/sessions/${s.id}/playback?from_ts=0&window_size=300000`, {
      key: a.key,
    });
    const camFrames = window.body.data.events
      .filter((e: any) => e.stream_id === 'media/alice/cam')
      .map((e: any) => Buffer.from(e.body_base64, 'base64').readUInt32BE(4));
    expect(camFrames).toEqual([1, 4]);

    // Replay at normal speed: told where it jumps, and never waits out the paused span.
    const viewer = await openSocket(await listen(t), {
      session: s.id,
      access_token: await token(t, a.key, s.id, 'viewer', { replay: true }),
      user_id: 'viewer',
    });
    const end = await viewer.waitFor(isControl('end'), 15_000);
    const skip = await viewer.waitFor(isControl('skip'));
    expect(skip.data).toMatchObject({ from_ts: p.ts, to_ts: r.ts, reason: 'paused' });
    const order = viewer.received.text.filter((x) => isControl('skip')(x) || messageOf('media/alice/cam')(x));
    expect(order.map((x) => x.type)).toEqual(['message', 'control', 'message']);
    expect(end.data.elapsed_ms).toBeLessThan(r.ts - p.ts);

    // Once ended: pausing is refused.
    await eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
    );
    expect(expectError(await pause(s.id), 409, 'CONFLICT')).toContain('ended');
    expectError(await resume(s.id), 409, 'CONFLICT');
  });

  it('records the host alone under `exclude all` + `include host`: the dashboard member who created the session, not a guest', async () => {
    // Created from the dashboard: its host is the member, whose live user_id is their account id.
    const created = await call(t, 'POST', '/v1/sessions', { cookie: a.cookie, body: { name: 'hosted' } });
    expect(created.status).toBe(201);
    const s = created.body.data;
    const hostOnly = [
      { type: 'exclude', all: true },
      { type: 'include', host: true },
    ];
    expect((await setRules(s.id, hostOnly)).body.data.rules).toEqual(hostOnly);
    const minted = await call(t, 'POST', `/v1/sessions/${s.id}/connection`, {
      cookie: a.cookie,
      body: { display_name: 'Ana' },
    });
    expect(minted.body.data.user_id).toBe(a.userId);
    const base = await listen(t);
    const host = await openSocket(base, {
      session: s.id,
      access_token: minted.body.data.access_token,
      user_id: a.userId,
    });
    expect((await host.waitFor(isControl('welcome'))).data.recording).toEqual({
      state: 'recording',
      rules: hostOnly,
      hosts: [a.userId],
    });
    const bob = await join(t, a.key, s.id, 'bob');
    expect(await frame(host, a.userId, 1)).not.toHaveProperty('recorded');
    expect(await frame(host, a.userId, 2, 'mic')).not.toHaveProperty('recorded');
    expect(await frame(bob, 'bob', 3)).toMatchObject({ recorded: false });
    expect(await frame(bob, 'bob', 4, 'mic')).toMatchObject({ recorded: false });
    // Bob still sees the host live, and the host Bob.
    await bob.waitFor(messageOf(`media/${a.userId}/cam`, 1));
    await host.waitFor(messageOf('media/bob/cam', 3));
    const m = await manifest(s.id);
    expect(m.participants.map((p: any) => p.user_id)).toEqual([a.userId]);
    const hostCam = m.participants[0].tracks.find((k: any) => k.kind === 'cam');
    expect(hostCam.segments).toEqual([{ start_ts: hostCam.start_ts, end_ts: hostCam.end_ts }]);

    // The same rules in a session made with an API key: it has no host, so nothing is recorded.
    const keyed = await createSession(t, a.key);
    await setRules(keyed.id, hostOnly);
    const carol = await join(t, a.key, keyed.id, 'carol');
    expect(await frame(carol, 'carol', 5)).toMatchObject({ recorded: false });

    // `host` names the hosts on its own or with a kind; never with `all` or a user_id.
    const bad: Array<[unknown, string]> = [
      [[{ type: 'include', host: true, user_id: 'bob' }], 'body.rules[0]'],
      [[{ type: 'include', host: true, all: true }], 'body.rules[0]'],
      [[{ type: 'include', host: false }], 'host'],
      [[{ type: 'include', host: 'yes' }], 'host'],
    ];
    for (const [rules, field] of bad) {
      const message = expectError(await setRules(s.id, rules), 400, 'BAD_REQUEST');
      expect(message, JSON.stringify(rules)).toContain(field);
    }
    expect((await setRules(s.id, [{ type: 'exclude', host: true, kind: 'mic' }])).status).toBe(200);
    await leave(host);
    await leave(bob);
    await leave(carol);
  });

  it('starts paused when paused before anyone joined, and refuses those who may not change it', async () => {
    const s = await createSession(t, a.key);
    expect((await pause(s.id)).body.data.state).toBe('paused');
    const alice = await join(t, a.key, s.id, 'alice');
    expect((await alice.waitFor(isControl('welcome'))).data.recording.state).toBe('paused');
    expect(await frame(alice, 'alice', 1)).toMatchObject({ recorded: false });
    await leave(alice);
    const events = await eventually(async () => {
      const all = await timeline(s.id);
      return all.some((e) => e.type === 'recording.paused') ? all : null;
    });
    const started = events.find((e) => e.type === 'session.started');
    expect(events.find((e) => e.type === 'recording.paused').ts).toBe(started.ts);
    expectError(
      await call(t, 'POST', `/v1/sessions/00000000-0000-4000-8000-000000000000/recording/pause`, {
        key: a.key,
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)(
  'recording rules and pause across server processes',
  () => {
    let one: TestApp;
    let two: TestApp;
    let a: Tenant;
    beforeAll(async () => {
      const env = {
        SESSION_DEPARTURE_TIMEOUT_S: '1',
        REDIS_URL,
        SECRET_KEY: 'recording-secret-recording-secret-01',
      };
      one = await startApp({ env });
      two = await startApp({ env, pgSchema: one.pgSchema, dataDir: one.dataDir });
      a = await tenant(one);
    });
    afterAll(async () => {
      await two?.close();
      await one?.close();
    });

    it('applies a change made through one process to what the other stores, and tells everyone in both', async () => {
      const s = await createSession(one, a.key);
      const bob = await join(one, a.key, s.id, 'bob');
      const carol = await join(two, a.key, s.id, 'carol');
      const rules = [{ type: 'exclude', user_id: 'carol', kind: 'cam' }];
      await call(one, 'PUT', `/v1/sessions/${s.id}/recording-rules`, { key: a.key, body: { rules } });
      expect((await carol.waitFor(isControl('recording'))).data).toEqual({
        state: 'recording',
        rules,
        hosts: [],
      });
      expect(await frame(carol, 'carol', 1)).toMatchObject({ recorded: false });
      await bob.waitFor(messageOf('media/carol/cam', 1));

      await call(two, 'POST', `/v1/sessions/${s.id}/recording/pause`, { key: a.key });
      await bob.waitFor((m) => isControl('recording')(m) && m.data.state === 'paused');
      expect(await frame(bob, 'bob', 2)).toMatchObject({ recorded: false });
      await call(one, 'POST', `/v1/sessions/${s.id}/recording/resume`, { key: a.key });
      await carol.waitFor((m) => isControl('recording')(m) && m.data.state === 'paused');
      await carol.waitFor((m) => isControl('recording')(m) && m.data.state === 'recording');
      // A third participant, joining the other process later, is welcomed with the state in force.
      const dan = await join(two, a.key, s.id, 'dan');
      expect((await dan.waitFor(isControl('welcome'))).data.recording).toEqual({
        state: 'recording',
        rules,
        hosts: [],
      });
      expect(await frame(bob, 'bob', 3)).not.toHaveProperty('recorded');
      expect(await frame(carol, 'carol', 4)).toMatchObject({ recorded: false });
      for (const x of [bob, carol, dan]) await leave(x);
      const m = (await call(one, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
      expect(m.participants.map((p: any) => p.user_id)).toEqual(['bob']);
    });
  },
);
