import { encodeEvc1 } from '@vss/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../src/bus/events.js';
import {
  ENGINE,
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { eventually, join as joinLive, jpeg, leave, publish, type TestSocket } from './support/live.js';
import { filesHaving } from './support/files.js';

/**
 * The media clock of this file's recordings: an hour ahead of the time it loads, so that the
 * timeline's own events (joins, at the server's time) come before every recorded message; their
 * server takes timestamps up to a day from its own clock (LIVE_CLOCK_SKEW_S).
 */
const T0 = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
const FIXED_CLOCK = { LIVE_CLOCK_SKEW_S: '86400' };
/** A byte pattern that appears only inside alice's camera frames. */
const ALICE_MARK = Buffer.from('ALICE-CAMERA-SECRET-PIXELS');

function aliceFrame(i: number): Buffer {
  const f = jpeg(i, 4000);
  ALICE_MARK.copy(f, 100);
  return f;
}
const vp8 = (i: number) =>
  Buffer.from(
    encodeEvc1({
      key: i === 0,
      codec: 'vp8',
      timestampUs: i * 200_000,
      durationUs: 200_000,
      description: new Uint8Array(0),
      data: new Uint8Array([i, 1, 2, 3]),
    }),
  );
const opus = (i: number) =>
  Buffer.from(
    encodeEvc1({
      key: true,
      codec: 'opus',
      timestampUs: i * 20_000,
      durationUs: 20_000,
      description: new Uint8Array(0),
      data: new Uint8Array([i & 255, 9]),
    }),
  );
const pcm = (i: number) =>
  Buffer.from(
    encodeEvc1({
      key: true,
      codec: 'pcm-s16',
      timestampUs: i * 100_000,
      durationUs: 100_000,
      description: new TextEncoder().encode('{"sampleRate":48000,"numberOfChannels":1}'),
      data: new Uint8Array(64).fill(i & 255),
    }),
  );

interface Published {
  stream: string;
  ts: number;
  body: Buffer;
}

/** Publishes everything with ids and waits for the last ack on each socket. */
async function record(socket: TestSocket, items: Published[], prefix: string): Promise<void> {
  items.forEach((p, i) =>
    socket.send(publish(p.stream, p.body, { timestamp_ms: p.ts, id: `${prefix}${i}` })),
  );
  await socket.waitFor((m) => m.event === 'ack' && m.data.id === `${prefix}${items.length - 1}`, 20_000);
}

/** Reads every event from `fromTs` on by following next_base_seq. */
async function readAll(
  t: TestApp,
  url: string,
  fromTs: number,
  windowSize: number,
  auth: { key?: string } = {},
) {
  const events: Array<{ seq: number; timestamp_ms: number; stream_id: string; body_base64: string }> = [];
  let base: number | null | undefined;
  let answers = 0;
  do {
    const q = `from_ts=${fromTs}&window_size=${windowSize}${base != null ? `&base_seq=${base}` : ''}`;
    const res = await call(t, 'GET', `${url}${url.includes('?') ? '&' : '?'}${q}`, auth);
    if (res.status !== 200) throw new Error(`playback failed: ${res.raw}`);
    // Compact JSON, fields in the documented order: exactly the bytes a client library produces,
    // and the newline every JSON answer ends with.
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.raw).toBe(`${JSON.stringify(res.body)}\n`);
    events.push(...res.body.data.events);
    base = res.body.data.next_base_seq;
    answers += 1;
    if (answers > 10_000) throw new Error('paging does not end');
  } while (base !== null);
  return { events, answers };
}

describe('recordings', () => {
  let t: TestApp;
  let a: Tenant;
  let sessionId: string;
  const published: Published[] = [];
  const busEvents: DomainEvent[] = [];

  beforeAll(async () => {
    t = await startApp({ env: { ...FIXED_CLOCK, SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    t.runtime.bus.onAny((e) => busEvents.push(e));
    sessionId = (await createSession(t, a.key, 'recorded')).id;
    const alice = await joinLive(t, a.key, sessionId, 'alice');
    const bob = await joinLive(t, a.key, sessionId, 'bob');
    const mine: Published[] = [];
    const theirs: Published[] = [];
    for (let i = 0; i <= 30; i++)
      mine.push({ stream: 'media/alice/cam', ts: T0 + i * 100, body: aliceFrame(i) });
    for (let i = 0; i < 150; i++) mine.push({ stream: 'media/alice/mic', ts: T0 + i * 20, body: opus(i) });
    for (let i = 0; i <= 15; i++)
      theirs.push({ stream: 'media/bob/screen', ts: T0 + 500 + i * 200, body: vp8(i) });
    for (let i = 0; i <= 30; i++)
      theirs.push({ stream: 'media/bob/mic', ts: T0 + 500 + i * 100, body: pcm(i) });
    mine.push({
      stream: 'chat',
      ts: T0 + 1000,
      body: Buffer.from(JSON.stringify({ text: 'hello from alice' })),
    });
    theirs.push({ stream: 'chat', ts: T0 + 1200, body: Buffer.from(JSON.stringify({ text: 'hi alice' })) });
    theirs.push({
      stream: 'director',
      ts: T0 + 1500,
      body: Buffer.from(JSON.stringify({ type: 'director.focus', data: { user_id: 'bob' } })),
    });
    await Promise.all([record(alice, mine, 'a'), record(bob, theirs, 'b')]);
    published.push(...mine, ...theirs);
    await leave(alice);
    await leave(bob);
    await eventually(
      () => busEvents.find((e) => e.type === 'recording.ready' && e.sessionId === sessionId),
      10_000,
      'recording.ready',
    );
  }, 60_000);
  afterAll(() => t.close());

  it('announces recording.ready with duration, stream count and bytes, on the bus and in the timeline', async () => {
    const ready = busEvents.find((e) => e.type === 'recording.ready' && e.sessionId === sessionId)!;
    expect(ready.data).toMatchObject({
      stream_count: 7,
      duration_ms: expect.any(Number),
      bytes: expect.any(Number),
    });
    const timeline = (await call(t, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: a.key })).body.data;
    expect(timeline.at(-1)).toMatchObject({ type: 'recording.ready', actor: 'system', data: ready.data });
    for (const e of timeline)
      expect(Object.keys(e).sort()).toEqual(['actor', 'data', 'seq', 'ts', 'type', 'v']);
    expect(timeline.map((e: { type: string }) => e.type)).toContain('track.published');
  });

  it('describes the recording in the manifest: participants, tracks and their bounds', async () => {
    const res = await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: a.key });
    expect(res.status).toBe(200);
    const m = res.body.data;
    expect(m).toMatchObject({
      version: 1,
      session_id: sessionId,
      // A player opened by anybody (public, or from a link) can say what it plays.
      session_name: 'recorded',
      streams: { events: 'events', chat: 'chat', director: 'director' },
    });
    expect(m.capabilities).toEqual([
      'separated-tracks',
      'event-timeline',
      'director-track',
      'configurable-layouts',
    ]);
    expect(m.participants).toEqual([
      {
        user_id: 'alice',
        // No display name was given: the user_id is the name.
        display_name: 'alice',
        tracks: [
          {
            kind: 'cam',
            stream_id: 'media/alice/cam',
            start_ts: T0,
            end_ts: T0 + 3000,
            segments: [{ start_ts: T0, end_ts: T0 + 3000 }],
          },
          {
            kind: 'mic',
            stream_id: 'media/alice/mic',
            start_ts: T0,
            end_ts: T0 + 2980,
            segments: [{ start_ts: T0, end_ts: T0 + 2980 }],
          },
        ],
      },
      {
        user_id: 'bob',
        display_name: 'bob',
        tracks: [
          {
            kind: 'mic',
            stream_id: 'media/bob/mic',
            start_ts: T0 + 500,
            end_ts: T0 + 3500,
            segments: [{ start_ts: T0 + 500, end_ts: T0 + 3500 }],
          },
          {
            kind: 'screen',
            stream_id: 'media/bob/screen',
            start_ts: T0 + 500,
            end_ts: T0 + 3500,
            segments: [{ start_ts: T0 + 500, end_ts: T0 + 3500 }],
          },
        ],
      },
    ]);
    expect(m.epoch).toBe(m.start_ts);
    expect(m.end_ts).toBeGreaterThanOrEqual(T0 + 3500);
    // Restricted keys may read manifests.
    const rk = (await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: {} })).body.data.secret;
    expect((await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: rk })).body.data).toEqual(m);
  });

  it('describes the timeline: participants, streams, event count and bounds', async () => {
    const res = await call(t, 'GET', `/v1/sessions/${sessionId}/playback/timeline`, { key: a.key });
    const meta = res.body.data;
    expect(meta.participant_count).toBe(2);
    expect(meta.stream_ids.sort()).toEqual([
      'chat',
      'director',
      'events',
      'media/alice/cam',
      'media/alice/mic',
      'media/bob/mic',
      'media/bob/screen',
    ]);
    const stored = published.length;
    expect(meta.total_events_estimated).toBeGreaterThan(stored);
    // Timeline events carry the server's clock, media the publishers' (here a fixed future T0).
    const timeline = (await call(t, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: a.key })).body
      .data as Array<{ ts: number }>;
    expect(meta.min_ts).toBe(Math.min(T0, ...timeline.map((e) => e.ts)));
    expect(meta.max_ts).toBe(Math.max(T0 + 3500, ...timeline.map((e) => e.ts)));
  });

  it('plays back every event exactly once, in order, byte-identical, for several window sizes', async () => {
    for (const windowSize of [1, 37, 250, 1000, 30_000, 300_000]) {
      const { events } = await readAll(t, `/v1/sessions/${sessionId}/playback`, T0, windowSize, {
        key: a.key,
      });
      const seqs = events.map((e) => e.seq);
      expect(new Set(seqs).size, `window ${windowSize}: no duplicates`).toBe(seqs.length);
      const media = events.filter((e) => e.stream_id.startsWith('media/'));
      expect(media.length, `window ${windowSize}: every media event`).toBe(
        published.filter((p) => p.stream.startsWith('media/')).length,
      );
      for (const p of published.filter((x) => x.stream.startsWith('media/'))) {
        const e = media.find((m) => m.stream_id === p.stream && m.timestamp_ms === p.ts)!;
        expect(Buffer.from(e.body_base64, 'base64').equals(p.body)).toBe(true);
      }
      // Within each window, seq order; windows follow each other in time.
      const chat = events
        .filter((e) => e.stream_id === 'chat')
        .map((e) => JSON.parse(Buffer.from(e.body_base64, 'base64').toString()));
      expect(chat.map((c) => c.data.text).sort()).toEqual(['hello from alice', 'hi alice']);
    }
  });

  it('starts at from_ts, and an answer holds its window in seq order, with what arrived among it', async () => {
    const res = await call(
      t,
      'GET',
      `/v1/sessions/${sessionId}/playback?from_ts=${T0 + 1000}&window_size=500`,
      { key: a.key },
    );
    const w = res.body.data;
    expect(w.events.length).toBeGreaterThan(0);
    for (const e of w.events) expect(e.timestamp_ms).toBeGreaterThanOrEqual(T0 + 1000);
    const seqs = w.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x: number, y: number) => x - y));
    expect(w.base_seq).toBe(seqs[0]);
    // bob's chat, stamped in this window, was published after his media: the answer runs to it.
    if (w.next_base_seq !== null) expect(w.next_base_seq).toBeGreaterThan(seqs.at(-1));
    const { events } = await readAll(t, `/v1/sessions/${sessionId}/playback`, T0 + 1000, 500, { key: a.key });
    expect(events.every((e) => e.timestamp_ms >= T0 + 1000)).toBe(true);
    expect(events.filter((e) => e.stream_id === 'media/alice/cam')).toHaveLength(21);
    // The first answer holds every event stamped in its window, [from_ts, from_ts + 500), and
    // ends with the last of them: the events after it are those that arrived after.
    const inWindow = events.filter((e) => e.timestamp_ms < T0 + 1500).map((e) => e.seq);
    expect(seqs).toEqual(expect.arrayContaining(inWindow));
    expect(seqs.at(-1)).toBe(Math.max(...inWindow));
  });

  it('refuses bad playback queries, naming the parameter', async () => {
    const url = `/v1/sessions/${sessionId}/playback`;
    const cases: Array<[string, string]> = [
      ['', 'query.from_ts is required'],
      ['?from_ts=abc', 'query.from_ts must be an integer'],
      [`?from_ts=${T0}&window_size=0`, 'query.window_size must be >= 1'],
      [`?from_ts=${T0}&window_size=300001`, 'query.window_size must be <= 300000'],
      [`?from_ts=${T0}&window_size=ten`, 'query.window_size must be an integer'],
      [`?from_ts=${T0}&base_seq=-1`, 'query.base_seq must be >= 0'],
      ['?from_ts=-5', 'query.from_ts must be >= 0'],
    ];
    for (const [q, message] of cases)
      expect(expectError(await call(t, 'GET', url + q, { key: a.key }), 400, 'BAD_REQUEST')).toBe(message);
  });

  it('keeps private sessions private on every public route, and opens them when made public', async () => {
    const routes = ['manifest', 'playback/timeline', `playback?from_ts=${T0}`, `replay?from_ts=${T0}`];
    for (const r of routes)
      expectError(await call(t, 'GET', `/v1/public/sessions/${sessionId}/${r}`), 404, 'NOT_FOUND');
    expectError(
      await call(t, 'GET', `/v1/public/sessions/00000000-0000-7000-8000-000000000000/manifest`),
      404,
      'NOT_FOUND',
    );
    // Without credentials, the credentialed routes ask for one.
    expectError(await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`), 401, 'UNAUTHORIZED');
    await call(t, 'PUT', `/v1/sessions/${sessionId}/visibility`, { key: a.key, body: { is_public: true } });
    try {
      for (const r of routes)
        expect((await call(t, 'GET', `/v1/public/sessions/${sessionId}/${r}`)).status).toBe(200);
      expect((await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`)).status).toBe(200);
      const { events } = await readAll(t, `/v1/public/sessions/${sessionId}/playback`, T0, 30_000);
      expect(events.filter((e) => e.stream_id.startsWith('media/')).length).toBe(
        published.filter((p) => p.stream.startsWith('media/')).length,
      );
    } finally {
      await call(t, 'PUT', `/v1/sessions/${sessionId}/visibility`, {
        key: a.key,
        body: { is_public: false },
      });
    }
  });

  it('lets a replay link play a private session until it expires or is revoked, and never another session', async () => {
    const res = await call(t, 'POST', `/v1/sessions/${sessionId}/replay-links`, {
      key: a.key,
      body: { expires_in_minutes: 60 },
    });
    expect(res.status).toBe(201);
    const link = res.body.data;
    expect(link.link).toBe(
      `http://vss.test/v1/public/sessions/${sessionId}/replay?token=${encodeURIComponent(link.token)}`,
    );
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000);
    const path = new URL(link.link).pathname + new URL(link.link).search;
    const { events } = await readAll(t, path, T0, 30_000);
    expect(events.filter((e) => e.stream_id === 'media/alice/cam')).toHaveLength(31);

    // Default lifetime is one day.
    const def = (await call(t, 'POST', `/v1/sessions/${sessionId}/replay-links`, { key: a.key, body: {} }))
      .body.data;
    expect(Math.round((Date.parse(def.expires_at) - Date.now()) / 60_000)).toBe(1440);

    // A token of another session, a forged token: refused.
    const other = await createSession(t, a.key);
    const otherLink = (
      await call(t, 'POST', `/v1/sessions/${other.id}/replay-links`, { key: a.key, body: {} })
    ).body.data;
    expectError(
      await call(
        t,
        'GET',
        `/v1/public/sessions/${sessionId}/replay?from_ts=${T0}&token=${encodeURIComponent(otherLink.token)}`,
      ),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await call(t, 'GET', `/v1/public/sessions/${sessionId}/replay?from_ts=${T0}&token=forged-token`),
      401,
      'UNAUTHORIZED',
    );

    // Expired: refused.
    await t.runtime.database.db
      .updateTable('replay_links')
      .set({ expires_at: Date.now() - 1 })
      .where('session_id', '=', other.id)
      .execute();
    expectError(
      await call(
        t,
        'GET',
        `/v1/public/sessions/${other.id}/replay?from_ts=${T0}&token=${encodeURIComponent(otherLink.token)}`,
      ),
      401,
      'UNAUTHORIZED',
    );

    // The link also opens the session's manifest and timeline metadata, which a player lays the
    // recording out from; without it the session, being private, is not found there.
    const q = `?token=${encodeURIComponent(link.token)}`;
    const manifest = await call(t, 'GET', `/v1/public/sessions/${sessionId}/manifest${q}`);
    expect(manifest.status).toBe(200);
    expect(manifest.body.data).toEqual(
      (await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: a.key })).body.data,
    );
    const meta = await call(t, 'GET', `/v1/public/sessions/${sessionId}/playback/timeline${q}`);
    expect(meta.body.data).toEqual(
      (await call(t, 'GET', `/v1/sessions/${sessionId}/playback/timeline`, { key: a.key })).body.data,
    );
    // The whole timeline too (a player's list and markers): every event, not only the first window's.
    const timeline = await call(t, 'GET', `/v1/public/sessions/${sessionId}/timeline${q}`);
    expect(timeline.status, timeline.raw).toBe(200);
    expect(timeline.body.data).toEqual(
      (await call(t, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: a.key })).body.data,
    );
    expect(timeline.body.data.length).toBeGreaterThan(0);
    expectError(await call(t, 'GET', `/v1/public/sessions/${sessionId}/timeline`), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/public/sessions/${other.id}/timeline${q}`), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'GET', `/v1/public/sessions/${sessionId}/manifest`), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/public/sessions/${other.id}/manifest${q}`), 401, 'UNAUTHORIZED');
    expectError(
      await call(t, 'GET', `/v1/public/sessions/${sessionId}/playback/timeline?token=forged`),
      401,
      'UNAUTHORIZED',
    );

    // Revoked: refused.
    const revoked = await call(t, 'DELETE', `/v1/sessions/${sessionId}/replay-links`, { key: a.key });
    expect(revoked.body.data).toEqual({ session_id: sessionId, revoked: 2 });
    expectError(await call(t, 'GET', `${path}&from_ts=${T0}`), 401, 'UNAUTHORIZED');
    expectError(await call(t, 'GET', `/v1/public/sessions/${sessionId}/manifest${q}`), 401, 'UNAUTHORIZED');
  });

  it('opens a replay link exactly as returned: the first window from the start of the recording', async () => {
    const link = (await call(t, 'POST', `/v1/sessions/${sessionId}/replay-links`, { key: a.key, body: {} }))
      .body.data;
    const opened = await call(t, 'GET', new URL(link.link).pathname + new URL(link.link).search);
    expect(opened.status, opened.raw).toBe(200);
    const meta = await call(t, 'GET', `/v1/sessions/${sessionId}/playback/timeline`, { key: a.key });
    const firstTs = meta.body.data.min_ts;
    // The same first window as an explicit from_ts at the recording's first event.
    const explicit = await call(
      t,
      'GET',
      `${new URL(link.link).pathname}${new URL(link.link).search}&from_ts=${firstTs}`,
    );
    expect(opened.body.data).toEqual(explicit.body.data);
    expect(opened.body.data.events[0].timestamp_ms).toBe(firstTs);
    // A bad from_ts is still refused, naming the field.
    const bad = await call(
      t,
      'GET',
      `${new URL(link.link).pathname}${new URL(link.link).search}&from_ts=soon`,
    );
    expect(expectError(bad, 400, 'BAD_REQUEST')).toMatch(/from_ts/);
  });

  it('lists the replay links of a session without their tokens, and revokes one of them alone', async () => {
    const s = await createSession(t, a.key);
    const url = `/v1/sessions/${s.id}/replay-links`;
    const first = (await call(t, 'POST', url, { key: a.key, body: { expires_in_minutes: 10 } })).body.data;
    const second = (await call(t, 'POST', url, { key: a.key, body: {} })).body.data;
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await call(t, 'GET', url, { key: a.key });
    expect(listed.status, listed.raw).toBe(200);
    // Newest first; never the token, in no field.
    expect(listed.body.data.map((l: { id: string }) => l.id)).toEqual([second.id, first.id]);
    expect(listed.raw).not.toContain(first.token);
    expect(listed.raw).not.toContain(second.token);
    expect(listed.body.data[1]).toEqual({
      id: first.id,
      session_id: s.id,
      created_at: expect.any(String),
      expires_at: first.expires_at,
    });
    // A page of one announces the next.
    const page = await call(t, 'GET', `${url}?limit=1`, { key: a.key });
    expect(page.body.data.map((l: { id: string }) => l.id)).toEqual([second.id]);
    expect(page.headers.link).toMatch(/rel="next"/);

    // Revoking the first leaves the second working.
    const replay = (l: { link: string }) => {
      const u = new URL(l.link);
      return call(t, 'GET', `${u.pathname}${u.search}&from_ts=${T0}`);
    };
    expect((await replay(first)).status).toBe(200);
    const revoked = await call(t, 'DELETE', `${url}/${first.id}`, { key: a.key });
    expect(revoked.status, revoked.raw).toBe(200);
    expect(revoked.body.data).toEqual({ id: first.id, deleted: true });
    expectError(await replay(first), 401, 'UNAUTHORIZED');
    expect((await replay(second)).status).toBe(200);
    expect((await call(t, 'GET', url, { key: a.key })).body.data.map((l: { id: string }) => l.id)).toEqual([
      second.id,
    ]);
    // Twice, or a link that never was: 404.
    expect(
      expectError(await call(t, 'DELETE', `${url}/${first.id}`, { key: a.key }), 404, 'NOT_FOUND'),
    ).toMatch(/replay link/);
    expectError(
      await call(t, 'DELETE', `${url}/00000000-0000-7000-8000-000000000000`, { key: a.key }),
      404,
      'NOT_FOUND',
    );
    // A link of another session of the same project, through this session: 404, and it still works.
    const other = await createSession(t, a.key);
    const otherLink = (
      await call(t, 'POST', `/v1/sessions/${other.id}/replay-links`, { key: a.key, body: {} })
    ).body.data;
    expectError(await call(t, 'DELETE', `${url}/${otherLink.id}`, { key: a.key }), 404, 'NOT_FOUND');
    expect(
      (await call(t, 'GET', `/v1/sessions/${other.id}/replay-links`, { key: a.key })).body.data,
    ).toHaveLength(1);
    // Another tenant sees neither the list nor the link.
    const b = await tenant(t);
    expectError(await call(t, 'GET', url, { key: b.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'DELETE', `${url}/${second.id}`, { key: b.key }), 404, 'NOT_FOUND');
    expect((await replay(second)).status).toBe(200);
    // Bad ids and queries name the field.
    expect(
      expectError(await call(t, 'DELETE', `${url}/not-an-id`, { key: a.key }), 400, 'BAD_REQUEST'),
    ).toMatch(/linkId/);
    expect(
      expectError(await call(t, 'GET', `/v1/sessions/nope/replay-links`, { key: a.key }), 400, 'BAD_REQUEST'),
    ).toMatch(/sessionId/);
    expect(expectError(await call(t, 'GET', `${url}?limit=0`, { key: a.key }), 400, 'BAD_REQUEST')).toMatch(
      /limit/,
    );
    expectError(await call(t, 'GET', url), 401, 'UNAUTHORIZED');
  });

  it('refuses bad replay-link requests and other tenants', async () => {
    const url = `/v1/sessions/${sessionId}/replay-links`;
    for (const body of [
      { expires_in_minutes: 0 },
      { expires_in_minutes: 43_201 },
      { expires_in_minutes: 'soon' },
      { expires: 5 },
    ])
      expectError(await call(t, 'POST', url, { key: a.key, body }), 400, 'BAD_REQUEST');
    expect((await call(t, 'POST', url, { key: a.key, body: { expires_in_minutes: 43_200 } })).status).toBe(
      201,
    );
    const b = await tenant(t);
    expectError(await call(t, 'POST', url, { key: b.key, body: {} }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: b.key }), 404, 'NOT_FOUND');
    expectError(
      await call(t, 'GET', `/v1/sessions/${sessionId}/playback?from_ts=${T0}`, { key: b.key }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(t, 'DELETE', `/v1/sessions/${sessionId}/participants/alice`, { key: b.key }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('playback of events that arrived late', () => {
  it('returns every event once and in seq order when an event stamped in one window arrives after events of the next', async () => {
    const t = await startApp({ env: FIXED_CLOCK });
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      const alice = await joinLive(t, a.key, s.id, 'alice');
      // One socket, so seq follows this order. With 250 ms windows from T0, the frame stamped
      // T0 + 245 arrives after one of the second window (T0 + 260), and T0 + 240 after two;
      // T0 + 490 arrives after one of the third window.
      const stamps = [0, 100, 200, 260, 245, 300, 240, 400, 510, 490, 600, 760, 700];
      await record(
        alice,
        stamps.map((d, i) => ({ stream: 'media/alice/cam', ts: T0 + d, body: jpeg(i, 100) })),
        'late',
      );
      const url = `/v1/sessions/${s.id}/playback`;
      for (const [fromTs, windowSize] of [
        [T0, 250],
        [T0 + 100, 250],
        [T0, 100],
        [T0 + 245, 10],
      ] as const) {
        const { events } = await readAll(t, url, fromTs, windowSize, { key: a.key });
        const seqs = events.map((e) => e.seq);
        expect(seqs, `from ${fromTs - T0}, window ${windowSize}: in seq order`).toEqual(
          [...seqs].sort((x, y) => x - y),
        );
        expect(new Set(seqs).size).toBe(seqs.length);
        const cams = events.filter((e) => e.stream_id === 'media/alice/cam');
        // Each frame once, in the order it arrived.
        expect(cams.map((e) => Buffer.from(e.body_base64, 'base64').readUInt32BE(4))).toEqual(
          stamps.flatMap((d, i) => (T0 + d >= fromTs ? [i] : [])),
        );
      }
      await leave(alice);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('playback answers capped inside one window', () => {
  it('splits a window over 4 MiB across answers, and following next_base_seq returns each event once', async () => {
    const t = await startApp({ env: FIXED_CLOCK });
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      const alice = await joinLive(t, a.key, s.id, 'alice');
      const big = (i: number) => {
        const f = jpeg(i, 1_500_000);
        f.writeUInt32BE(i, 8);
        return f;
      };
      const items = Array.from({ length: 6 }, (_, i) => ({
        stream: 'media/alice/cam',
        ts: T0 + i,
        body: big(i),
      }));
      await record(alice, items, 'big');
      const first = (
        await call(t, 'GET', `/v1/sessions/${s.id}/playback?from_ts=${T0}&window_size=1000`, { key: a.key })
      ).body.data;
      // 4 MiB hold two 1.5 MB frames: the answer stops inside the window and says where to go on.
      expect(
        first.events.filter((e: { stream_id: string }) => e.stream_id === 'media/alice/cam'),
      ).toHaveLength(2);
      expect(first.next_base_seq).toBe(first.events.at(-1).seq + 1);
      const { events, answers } = await readAll(t, `/v1/sessions/${s.id}/playback`, T0, 1000, { key: a.key });
      // Two frames an answer, through the last event of the first window; one more when
      // second-window events of other publishers arrived after that one.
      expect([3, 4]).toContain(answers);
      const cams = events.filter((e) => e.stream_id === 'media/alice/cam');
      expect(cams.map((e) => Buffer.from(e.body_base64, 'base64').readUInt32BE(8))).toEqual([
        0, 1, 2, 3, 4, 5,
      ]);
      await leave(alice);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('playback answers capped at 5000 events', () => {
  it('caps an answer at 5000 events, continues at the next one, and keeps interleaved windows in seq order', async () => {
    const t = await startApp({ env: FIXED_CLOCK });
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      // Publishers stay under the per-connection burst; each k-th packet with k % 4 == 3 belongs to
      // the next 1-second window, so the two windows' seqs interleave all along the recording.
      const users = Array.from({ length: 24 }, (_, j) => `u${j}`);
      const sockets: TestSocket[] = [];
      for (const u of users) sockets.push(await joinLive(t, a.key, s.id, u, 'binary'));
      const tsOf = (k: number) => T0 + (k % 4 === 3 ? 1000 : 0) + k;
      await Promise.all(
        sockets.map((socket, j) =>
          record(
            socket,
            Array.from({ length: 350 }, (_, k) => ({
              stream: `media/${users[j]}/mic`,
              ts: tsOf(k),
              body: opus(k),
            })),
            'p',
          ),
        ),
      );
      const url = `/v1/sessions/${s.id}/playback`;
      const first = (await call(t, 'GET', `${url}?from_ts=${T0}&window_size=1000`, { key: a.key })).body.data;
      expect(first.events).toHaveLength(5000);

      const { events, answers } = await readAll(t, url, T0, 1000, { key: a.key });
      const media = events.filter((e) => e.stream_id.startsWith('media/'));
      // 5000, then through the last event of the first window; a third answer when second-window
      // events of other publishers arrived after that one.
      expect([2, 3]).toContain(answers);
      expect(media).toHaveLength(24 * 350);
      expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
      // Every event once, in seq order: the second window's events come among the first's, where
      // they arrived, not after them.
      expect(events[5000]!.seq).toBe(first.next_base_seq);
      const seqs = events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(first.events.some((e: { timestamp_ms: number }) => e.timestamp_ms >= T0 + 1000)).toBe(true);

      // A seek into the second window without base_seq: only that window's events, in one answer.
      const seek = (await call(t, 'GET', `${url}?from_ts=${T0 + 1000}&window_size=1000`, { key: a.key })).body
        .data;
      expect(seek.events.filter((e: { stream_id: string }) => e.stream_id.startsWith('media/'))).toHaveLength(
        24 * 87,
      );
      await Promise.all(sockets.map(leave));
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('redaction', () => {
  it('removes every media stream of a participant from storage and leaves the rest byte-identical', async () => {
    const t = await startApp({ env: { ...FIXED_CLOCK, SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      const alice = await joinLive(t, a.key, s.id, 'alice');
      const bob = await joinLive(t, a.key, s.id, 'bob');
      const aliceItems = [
        ...Array.from({ length: 10 }, (_, i) => ({
          stream: 'media/alice/cam',
          ts: T0 + i * 100,
          body: aliceFrame(i),
        })),
        ...Array.from({ length: 10 }, (_, i) => ({
          stream: 'media/alice/mic',
          ts: T0 + i * 100,
          body: opus(i),
        })),
        { stream: 'chat', ts: T0 + 50, body: Buffer.from(JSON.stringify({ text: 'alice says a secret' })) },
      ];
      const bobItems = Array.from({ length: 10 }, (_, i) => ({
        stream: 'media/bob/cam',
        ts: T0 + i * 100,
        body: jpeg(1000 + i, 3000),
      }));
      await record(alice, aliceItems, 'a');
      await record(bob, bobItems, 'b');
      await t.runtime.writer.flush();
      const before = await readAll(t, `/v1/sessions/${s.id}/playback`, T0, 30_000, { key: a.key });
      // On disk before: in a segment file under DATA_DIR.
      if (ENGINE === 'sqlite') expect(filesHaving(t.dataDir, ALICE_MARK)).not.toEqual([]);

      // Never published: 404. Bad input: 400.
      expectError(
        await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/carol`, { key: a.key }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/alice?include_chat=maybe`, { key: a.key }),
        400,
        'BAD_REQUEST',
      );

      // Redacting during the live session: the answer, then alice's further media is refused.
      const res = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/alice`, { key: a.key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ redacted: 'alice', deletedStreams: 2 });
      alice.send(publish('media/alice/cam', aliceFrame(99), { id: 'after' }));
      expect((await alice.waitFor((m) => m.event === 'error' && m.data.id === 'after')).data.code).toBe(
        'REDACTED',
      );

      // Gone at the storage level.
      const stored: string[] = [];
      for await (const e of t.runtime.streams.read(s.id, {})) stored.push(e.streamId);
      expect(stored.filter((id) => id.startsWith('media/alice/'))).toEqual([]);
      // No file in DATA_DIR (segments, the index, its log) holds a byte sequence of alice's.
      if (ENGINE === 'sqlite') expect(filesHaving(t.dataDir, ALICE_MARK)).toEqual([]);

      // Everything else is unchanged, byte for byte; alice's chat stays (it is not media).
      const after = await readAll(t, `/v1/sessions/${s.id}/playback`, T0, 30_000, { key: a.key });
      const keep = (e: { stream_id: string }) =>
        !e.stream_id.startsWith('media/alice/') && e.stream_id !== 'events';
      expect(after.events.filter(keep)).toEqual(before.events.filter(keep));
      const manifest = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
      expect(manifest.participants.map((p: { user_id: string }) => p.user_id)).toEqual(['bob']);
      const timeline = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body.data;
      expect(timeline.find((e: { type: string }) => e.type === 'participant.redacted')).toMatchObject({
        actor: 'system',
        data: { user_id: 'alice', streams: ['media/alice/cam', 'media/alice/mic'] },
      });

      // With include_chat, alice's chat bodies become a redaction marker.
      await record(bob, [{ stream: 'media/bob/mic', ts: T0, body: opus(1) }], 'm');
      await record(
        alice,
        [{ stream: 'chat', ts: T0 + 60, body: Buffer.from(JSON.stringify({ text: 'second secret' })) }],
        'c',
      );
      // alice has no media left: a second redaction without media is 404 even with include_chat.
      expectError(
        await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/alice?include_chat=true`, { key: a.key }),
        404,
        'NOT_FOUND',
      );
      await leave(alice);
      await leave(bob);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('replaces the participant\u2019s chat bodies with a marker when asked', async () => {
    const t = await startApp({ env: FIXED_CLOCK });
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      const alice = await joinLive(t, a.key, s.id, 'alice');
      const bob = await joinLive(t, a.key, s.id, 'bob');
      await record(
        alice,
        [
          { stream: 'media/alice/cam', ts: T0, body: aliceFrame(1) },
          { stream: 'chat', ts: T0 + 1, body: Buffer.from(JSON.stringify({ text: 'my secret plan' })) },
        ],
        'a',
      );
      await record(
        bob,
        [{ stream: 'chat', ts: T0 + 2, body: Buffer.from(JSON.stringify({ text: 'bob stays' })) }],
        'b',
      );
      const res = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/alice?include_chat=true`, {
        key: a.key,
      });
      expect(res.body.data).toEqual({ redacted: 'alice', deletedStreams: 1 });
      const { events } = await readAll(t, `/v1/sessions/${s.id}/playback`, T0, 30_000, { key: a.key });
      const chat = events
        .filter((e) => e.stream_id === 'chat')
        .map((e) => JSON.parse(Buffer.from(e.body_base64, 'base64').toString()));
      expect(chat).toEqual([
        { v: 1, type: 'chat.message', ts: T0 + 1, actor: 'alice', data: { text: null, redacted: true } },
        { v: 1, type: 'chat.message', ts: T0 + 2, actor: 'bob', data: { text: 'bob stays' } },
      ]);
      if (ENGINE === 'sqlite') expect(filesHaving(t.dataDir, Buffer.from('my secret plan'))).toEqual([]);
      await leave(alice);
      await leave(bob);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('the length of a recording', () => {
  it('ends at the last media or leave, not when the session ended after the departure wait', async () => {
    const t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '2' } });
    try {
      const a = await tenant(t);
      const busEvents: DomainEvent[] = [];
      t.runtime.bus.onAny((e) => busEvents.push(e));
      const s = await createSession(t, a.key);
      const alice = await joinLive(t, a.key, s.id, 'alice');
      const bob = await joinLive(t, a.key, s.id, 'bob');
      // Media on the server's clock, as a browser stamps it, and (to be sure) stamped before the leaves.
      const start = Date.now() - 1000;
      await record(
        alice,
        Array.from({ length: 5 }, (_, i) => ({
          stream: 'media/alice/cam',
          ts: start + i * 100,
          body: aliceFrame(i),
        })),
        'a',
      );
      await record(bob, [{ stream: 'media/bob/mic', ts: start + 200, body: opus(0) }], 'b');
      await leave(bob);
      await leave(alice);
      const ready = await eventually(
        () => busEvents.find((e) => e.type === 'recording.ready' && e.sessionId === s.id),
        10_000,
        'recording.ready',
      );
      const session = (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data;
      const timeline = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body
        .data as Array<{
        type: string;
        ts: number;
      }>;
      const lastLeave = Math.max(...timeline.filter((e) => e.type === 'participant.left').map((e) => e.ts));
      const firstJoin = Math.min(...timeline.map((e) => e.ts));
      // The session ended two seconds after the last one left; the recording did not go on.
      expect(Date.parse(session.ended_at)).toBeGreaterThanOrEqual(lastLeave + 2000);
      const m = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
      const first = Math.min(firstJoin, start);
      expect(m.start_ts).toBe(first);
      expect(m.end_ts).toBe(lastLeave);
      expect(ready.data).toMatchObject({ duration_ms: lastLeave - first });
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('deleting a session', () => {
  it('removes its recording and links, and is refused while live', async () => {
    const t = await startApp({ env: { ...FIXED_CLOCK, SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      const alice = await joinLive(t, a.key, s.id, 'alice');
      await record(alice, [{ stream: 'media/alice/cam', ts: T0, body: aliceFrame(1) }], 'a');
      const link = (await call(t, 'POST', `/v1/sessions/${s.id}/replay-links`, { key: a.key, body: {} })).body
        .data;
      expectError(await call(t, 'DELETE', `/v1/sessions/${s.id}`, { key: a.key }), 409, 'CONFLICT');
      await leave(alice);
      await eventually(
        async () => (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
        10_000,
        'end',
      );
      expect((await call(t, 'DELETE', `/v1/sessions/${s.id}`, { key: a.key })).status).toBe(200);
      const left: unknown[] = [];
      for await (const e of t.runtime.streams.read(s.id, {})) left.push(e);
      expect(left).toEqual([]);
      expect(await t.runtime.streams.stats(s.id)).toEqual([]);
      expectError(
        await call(
          t,
          'GET',
          `/v1/public/sessions/${s.id}/replay?from_ts=${T0}&token=${encodeURIComponent(link.token)}`,
        ),
        401,
        'UNAUTHORIZED',
      );
      expect(
        await t.runtime.database.db
          .selectFrom('replay_links')
          .selectAll()
          .where('session_id', '=', s.id)
          .execute(),
      ).toEqual([]);
    } finally {
      await t.close();
    }
  }, 60_000);
});
