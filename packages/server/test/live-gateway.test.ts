import { BINARY_PUBLISH, decodeBinaryFrame, encodeBinaryFrame, encodeEvc1 } from '@vss/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../src/bus/events.js';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { eventually, join, jpeg, leave, listen, openSocket, publish, token } from './support/live.js';

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const isMessage = (streamType: string) => (m: Record<string, any>) =>
  m.type === 'message' && m.stream_type === streamType;

async function recorded(t: TestApp, sessionId: string) {
  await t.runtime.writer.flush();
  const out = [];
  for await (const e of t.runtime.streams.read(sessionId, {})) out.push(e);
  return out;
}

describe('live sessions', () => {
  let t: TestApp;
  let a: Tenant;
  const events: DomainEvent[] = [];
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '1', WS_HEARTBEAT_S: '1' } });
    a = await tenant(t);
    t.runtime.bus.onAny((e) => events.push(e));
  });
  afterAll(() => t.close());

  it('welcomes each participant and tells the others of joins and leaves', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const welcome = bob.received.text.find(isControl('welcome'))!;
    expect(welcome.data.participants.sort()).toEqual(['alice', 'bob']);
    const joined = await alice.waitFor(isControl('join'));
    expect(joined).toMatchObject({ type: 'control', event: 'join', user_id: 'bob', data: {} });
    expect(typeof joined.timestamp_ms).toBe('number');
    await leave(bob);
    expect(await alice.waitFor(isControl('leave'))).toMatchObject({ user_id: 'bob' });
    await leave(alice);
  });

  it('delivers JPEG, EVC1 and chat to the others with stream type, timestamp and exact bytes', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const frame = jpeg(42, 30_000);
    const vp8 = Buffer.from(
      encodeEvc1({
        key: true,
        codec: 'vp8',
        timestampUs: 1_000_000,
        durationUs: 66_666,
        description: new Uint8Array(0),
        data: new Uint8Array([1, 2, 3, 4, 5]),
      }),
    );
    const opus = Buffer.from(
      encodeEvc1({
        key: true,
        codec: 'opus',
        timestampUs: 20_000,
        durationUs: 20_000,
        description: new Uint8Array(0),
        data: new Uint8Array([9, 9, 9]),
      }),
    );
    const t0 = Date.now();
    alice.send(publish('media/alice/cam', frame, { timestamp_ms: t0 }));
    alice.send(publish('media/alice/screen', vp8, { timestamp_ms: t0 + 1 }));
    alice.send(publish('media/alice/mic', opus, { timestamp_ms: t0 + 2 }));
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'hello bob' })), { timestamp_ms: t0 + 3 }));

    const cam = await bob.waitFor(isMessage('media/alice/cam'));
    expect(cam.timestamp_ms).toBe(t0);
    expect(Buffer.from(cam.body, 'base64').equals(frame)).toBe(true);
    expect(Buffer.from((await bob.waitFor(isMessage('media/alice/screen'))).body, 'base64').equals(vp8)).toBe(
      true,
    );
    expect(Buffer.from((await bob.waitFor(isMessage('media/alice/mic'))).body, 'base64').equals(opus)).toBe(
      true,
    );
    const chat = await bob.waitFor(isMessage('chat'));
    expect(JSON.parse(Buffer.from(chat.body, 'base64').toString())).toEqual({
      v: 1,
      type: 'chat.message',
      ts: t0 + 3,
      actor: 'alice',
      data: { text: 'hello bob' },
    });
    expect(await bob.waitFor(isControl('track.published'))).toMatchObject({
      user_id: 'alice',
      data: { kind: 'cam', stream_type: 'media/alice/cam' },
    });

    // The publisher does not get its own messages back.
    expect(alice.received.text.filter((m) => m.type === 'message')).toEqual([]);
    // Seq is one increasing sequence over all streams.
    const seqs = bob.received.text.filter((m) => m.type === 'message').map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);

    // Everything was recorded, byte for byte.
    const rows = await recorded(t, s.id);
    expect(rows.find((r) => r.streamId === 'media/alice/cam')!.body.equals(frame)).toBe(true);
    expect(rows.find((r) => r.streamId === 'media/alice/screen')!.body.equals(vp8)).toBe(true);
    expect(
      rows.filter((r) => r.streamId === 'events').map((r) => JSON.parse(r.body.toString()).type),
    ).toEqual(expect.arrayContaining(['session.started', 'participant.joined', 'track.published']));
    await leave(alice);
    await leave(bob);
  });

  it('records director commands in the envelope and relays them', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    alice.send(
      publish('director', Buffer.from(JSON.stringify({ type: 'director.focus', data: { user_id: 'bob' } }))),
    );
    const m = await bob.waitFor(isMessage('director'));
    expect(JSON.parse(Buffer.from(m.body, 'base64').toString())).toMatchObject({
      v: 1,
      type: 'director.focus',
      actor: 'alice',
      data: { user_id: 'bob' },
    });
    alice.send(
      publish(
        'director',
        Buffer.from(JSON.stringify({ type: 'director.layout', data: { layout: 'mosaic' } })),
        { id: 'd1' },
      ),
    );
    expect(await alice.waitFor(isControl('error'))).toMatchObject({
      data: { code: 'BAD_MESSAGE', id: 'd1' },
    });
    await leave(alice);
    await leave(bob);
  });

  it('acks a publish with an id once durably written, with its seq', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    alice.send(publish('media/alice/cam', jpeg(1), { id: 'frame-1' }));
    const ack = await alice.waitFor(isControl('ack'));
    expect(ack.data).toEqual({ id: 'frame-1', seq: expect.any(Number) });
    const rows = await recorded(t, s.id);
    expect(rows.find((r) => r.seq === ack.data.seq)!.streamId).toBe('media/alice/cam');
    await leave(alice);
  });

  it('refuses, with an error naming the message id: another user\u2019s stream, oversize, bad codec, bad JSON, unknown stream', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const errorFor = (id: string) => alice.waitFor((m) => m.event === 'error' && m.data.id === id);
    alice.send(publish('media/bob/cam', jpeg(1), { id: 'spoof' }));
    expect((await errorFor('spoof')).data.code).toBe('FORBIDDEN_STREAM');
    alice.send(publish('media/alice/cam', Buffer.alloc(2 * 1024 * 1024 + 10, 0xff), { id: 'big' }));
    expect((await errorFor('big')).data.code).toBe('TOO_LARGE');
    alice.send(publish('media/alice/cam', Buffer.from('not an image at all'), { id: 'codec' }));
    expect((await errorFor('codec')).data.code).toBe('BAD_CODEC');
    alice.send(publish('media/alice/mic', jpeg(2), { id: 'jpeg-mic' }));
    expect((await errorFor('jpeg-mic')).data.code).toBe('BAD_CODEC');
    alice.send(publish('events', Buffer.from('{}'), { id: 'events' }));
    expect((await errorFor('events')).data.code).toBe('FORBIDDEN_STREAM');
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'x'.repeat(4001) })), { id: 'long-chat' }));
    expect((await errorFor('long-chat')).data.code).toBe('TOO_LARGE');
    alice.send({ type: 'publish', stream_type: 'chat', body: '***', id: 'b64' });
    expect((await errorFor('b64')).data.code).toBe('BAD_MESSAGE');
    alice.ws.send('{not json');
    await alice.waitFor(
      (m) => m.event === 'error' && m.data.code === 'BAD_MESSAGE' && m.data.id === undefined,
    );
    // None of it reached bob or the recording.
    expect(bob.received.text.filter((m) => m.type === 'message')).toEqual([]);
    expect((await recorded(t, s.id)).filter((r) => r.streamId !== 'events')).toEqual([]);
    // The connection still works.
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'still here' }))));
    await bob.waitFor(isMessage('chat'));
    await leave(alice);
    await leave(bob);
  });

  it('publishes and receives media as binary frames with format=binary', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice', 'binary');
    const bob = await join(t, a.key, s.id, 'bob', 'binary');
    const frame = jpeg(7, 50_000);
    const t0 = Date.now() - 5_000;
    alice.ws.send(
      encodeBinaryFrame({
        kind: BINARY_PUBLISH,
        streamType: 'media/alice/cam',
        timestampMs: t0,
        id: 'bin-1',
        payload: frame,
      }),
    );
    expect((await alice.waitFor(isControl('ack'))).data.id).toBe('bin-1');
    await eventually(() => bob.received.binary.length > 0);
    const got = decodeBinaryFrame(bob.received.binary[0]!);
    expect(got).toMatchObject({ streamType: 'media/alice/cam', timestampMs: t0 });
    expect(Buffer.from(got.payload).equals(frame)).toBe(true);
    // Chat still arrives as JSON text on a binary connection.
    alice.send(publish('chat', Buffer.from(JSON.stringify({ text: 'hi' }))));
    await bob.waitFor(isMessage('chat'));
    await leave(alice);
    await leave(bob);
  });

  it('starts the session on the first join and ends it once the last participant has been gone the timeout', async () => {
    const s = await createSession(t, a.key);
    const before = Date.now();
    const alice = await join(t, a.key, s.id, 'alice');
    const started = (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data;
    expect(Date.parse(started.started_at)).toBeGreaterThanOrEqual(before - 5);
    expect(started.ended_at).toBeNull();
    const bob = await join(t, a.key, s.id, 'bob');
    // Someone is still there: the session goes on. Another session, left by its one participant
    // just after alice left, ends once the departure timeout has passed: by then this one would
    // have ended too.
    const other = await createSession(t, a.key);
    const dan = await join(t, a.key, other.id, 'dan');
    await leave(alice);
    await leave(dan);
    await eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${other.id}`, { key: a.key })).body.data.ended_at,
      10_000,
      'the other session to end',
    );
    expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at).toBeNull();
    const lastLeft = Date.now();
    await leave(bob);
    const ended = await eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
      10_000,
      'ended_at',
    );
    expect(Date.parse(ended) - lastLeft).toBeGreaterThanOrEqual(1000);
    // recording.ready follows once every stream of the ended session is durably written.
    const ready = await eventually(
      () => events.find((e) => e.sessionId === s.id && e.type === 'recording.ready'),
      10_000,
      'recording.ready',
    );
    expect(events.filter((e) => e.sessionId === s.id).map((e) => e.type)).toEqual([
      'session.created',
      'session.started',
      'participant.joined',
      'participant.joined',
      'participant.left',
      'participant.left',
      'session.ended',
      'recording.ready',
    ]);
    expect(ready.data).toEqual({
      duration_ms: expect.any(Number),
      stream_count: 1,
      bytes: expect.any(Number),
    });
    const timeline = (await recorded(t, s.id))
      .filter((r) => r.streamId === 'events')
      .map((r) => JSON.parse(r.body.toString()));
    expect(timeline.map((e) => e.type)).toEqual([
      'session.started',
      'participant.joined',
      'participant.joined',
      'participant.left',
      'participant.left',
      'session.ended',
      'recording.ready',
    ]);
    for (const e of timeline) expect(Object.keys(e).sort()).toEqual(['actor', 'data', 'ts', 'type', 'v']);
    // A new live token is refused; a rejoin with an old one too.
    expect(
      (await call(t, 'POST', `/v1/sessions/${s.id}/connection`, { key: a.key, body: { user_id: 'alice' } }))
        .status,
    ).toBe(409);
  });

  it('ends a track on unpublish, and every open track when its participant leaves', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    alice.send(publish('media/alice/cam', jpeg(1)));
    alice.send(publish('media/alice/screen', jpeg(2)));
    await bob.waitForCount(isControl('track.published'), 2);
    alice.send({ type: 'unpublish', stream_type: 'media/alice/screen' });
    expect(await bob.waitFor(isControl('track.unpublished'))).toMatchObject({ data: { kind: 'screen' } });
    await leave(alice);
    const ends = await bob.waitForCount(isControl('track.unpublished'), 2);
    expect(ends.map((e) => e.data.kind)).toEqual(['screen', 'cam']);
    await leave(bob);
  });

  it('takes an unpublish after the publishes sent before it, however busy the session is', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    // Alice's pictures fill the session's queue; Bob's first frame waits behind them when his
    // unpublish arrives. The unpublish must end the track that frame began, not be refused.
    for (let i = 0; i < 300; i++) alice.send(publish('media/alice/cam', jpeg(i)));
    bob.send(publish('media/bob/cam', jpeg(1)));
    bob.send({ type: 'unpublish', stream_type: 'media/bob/cam' });
    expect(await alice.waitFor(isControl('track.unpublished'))).toMatchObject({
      user_id: 'bob',
      data: { kind: 'cam' },
    });
    expect(bob.received.text.filter(isControl('error'))).toEqual([]);
    await leave(alice);
    await leave(bob);
  });

  it('closes a connection that stops answering pings, and tells the others it left', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const base = await listen(t);
    const access_token = await token(t, a.key, s.id, 'ghost');
    const ghost = await openSocket(
      base,
      { session: s.id, access_token, user_id: 'ghost' },
      { autoPong: false },
    );
    await alice.waitFor(isControl('join'));
    const closed = await ghost.closed;
    expect(closed.code).toBe(1006);
    expect(await alice.waitFor(isControl('leave'), 10_000)).toMatchObject({ user_id: 'ghost' });
    await leave(alice);
  });
  it('keeps a connection that sends but whose pongs are late (a slow link queues them behind its media)', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const base = await listen(t);
    const access_token = await token(t, a.key, s.id, 'slowpoke');
    // No pong ever: as on a link where each pong waits behind seconds of queued media.
    const slow = await openSocket(
      base,
      { session: s.id, access_token, user_id: 'slowpoke' },
      { autoPong: false },
    );
    await alice.waitFor(isControl('join'));
    // At each of three heartbeat pings (1 s apart here) it says something, and nothing else.
    for (let i = 0; i < 3; i++) {
      // The heartbeat's pings are empty (the pacer's probes carry a number).
      await new Promise<void>((r) => {
        const heartbeat = (data: Buffer) => {
          if (data.length > 0) return;
          slow.ws.off('ping', heartbeat);
          r();
        };
        slow.ws.on('ping', heartbeat);
      });
      slow.send(publish('chat', Buffer.from(JSON.stringify({ text: `still here ${i}` })), { id: `c${i}` }));
      await slow.waitFor((m) => isControl('ack')(m) && m.data.id === `c${i}`);
    }
    await alice.waitForCount(isMessage('chat'), 3);
    expect(alice.received.text.filter(isControl('leave'))).toEqual([]);
    await leave(slow);
    await leave(alice);
  });
});

// Its own app with the default heartbeat: a reader paused on purpose must not be taken for dead.
describe('a slow reader', () => {
  it('drops media to a slow reader but delivers it every chat message, while a fast reader gets every frame', async () => {
    const t = await startApp();
    const a = await tenant(t);
    const s = await createSession(t, a.key);
    const publisher = await join(t, a.key, s.id, 'pub');
    const fast = await join(t, a.key, s.id, 'fast');
    const slow = await join(t, a.key, s.id, 'slow');
    // The slow reader stops reading: its socket buffers fill on both sides.
    (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const FRAMES = 150;
    const CHATS = 30;
    const big = jpeg(0, 200_000);
    for (let i = 0; i < FRAMES; i++) {
      big.writeUInt32BE(i, 4);
      publisher.send(publish('media/pub/cam', big, { timestamp_ms: Date.now() }));
      if (i % 5 === 0)
        publisher.send(publish('chat', Buffer.from(JSON.stringify({ text: `chat ${i / 5}` }))));
      // Pace like a camera, one picture after the other, so the fast reader is never the bottleneck.
      await fast.waitForCount(isMessage('media/pub/cam'), i + 1, 20_000);
    }
    await fast.waitForCount(isMessage('media/pub/cam'), FRAMES, 20_000);
    await fast.waitForCount(isMessage('chat'), CHATS, 20_000);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await slow.waitForCount(isMessage('chat'), CHATS, 20_000);
    const slowFrames = slow.received.text.filter(isMessage('media/pub/cam')).length;
    expect(slowFrames).toBeLessThan(FRAMES);
    expect(t.runtime.hub.stats.dropped).toBeGreaterThan(0);
    expect(
      slow.received.text
        .filter(isMessage('chat'))
        .map((m) => JSON.parse(Buffer.from(m.body, 'base64').toString()).data.text),
    ).toEqual(Array.from({ length: CHATS }, (_, i) => `chat ${i}`));
    await leave(publisher);
    await leave(fast);
    await leave(slow);
    await t.close();
  }, 60_000);
});

// Its own app with a 1 MiB ingest budget: a publisher that sends faster than the store records.
describe('a publisher faster than storage', () => {
  it('is read only as fast as the store records: every frame kept and acked, in order, with at most about the budget held', async () => {
    const t = await startApp({ env: { LIVE_INGEST_BUFFER_MB: '1' } });
    const a = await tenant(t);
    const s = await createSession(t, a.key);
    const pub = await join(t, a.key, s.id, 'pub', 'binary');
    const FRAMES = 300;
    const SIZE = 64 * 1024;
    const t0 = Date.now();
    // 19 MiB sent at once, without waiting for anything: far more than the writer commits in the
    // few milliseconds it gathers a batch.
    for (let i = 0; i < FRAMES; i++)
      pub.ws.send(
        encodeBinaryFrame({
          kind: BINARY_PUBLISH,
          streamType: 'media/pub/cam',
          timestampMs: t0 + i,
          id: `f${i}`,
          payload: jpeg(i, SIZE),
        }),
      );
    const acks = await pub.waitForCount(isControl('ack'), FRAMES, 30_000);
    expect(acks.map((m) => m.data.id)).toEqual(Array.from({ length: FRAMES }, (_, i) => `f${i}`));
    expect(pub.received.text.filter(isControl('error'))).toEqual([]);
    const rows = (await recorded(t, s.id)).filter((r) => r.streamId === 'media/pub/cam');
    expect(rows.map((r) => r.body.readUInt32BE(4))).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
    // The server stopped reading from the socket at least once, and never held much more than the
    // budget: a few frames already read when it paused.
    expect(t.runtime.hub.stats.pauses).toBeGreaterThan(0);
    expect(t.runtime.hub.ingest.maxHeld).toBeGreaterThan(1024 * 1024);
    expect(t.runtime.hub.ingest.maxHeld).toBeLessThanOrEqual(1024 * 1024 + 8 * SIZE);
    expect(t.runtime.hub.ingest.heldBytes).toBe(0);
    await leave(pub);
    await t.close();
  }, 60_000);

  it('does not refuse as a burst what a client sent at an allowed rate while it was not read', async () => {
    const t = await startApp({ env: { LIVE_INGEST_BUFFER_MB: '1' } });
    const a = await tenant(t);
    const s = await createSession(t, a.key);
    const pub = await join(t, a.key, s.id, 'pub');
    // Storage is behind (as if a batch of 2 MiB were still being written): the first message
    // pauses the socket, and the client goes on at 150 messages a second (the limit is 200/s,
    // bursts of 400) for 4 s, into TCP.
    const behind = 2 * 1024 * 1024;
    t.runtime.hub.ingest.take(behind);
    const COUNT = 600;
    for (let i = 0; i < COUNT; i++) {
      pub.send(publish('media/pub/cam', jpeg(i), { id: `m${i}` }));
      // Pacing, not a proof: 15 messages every 100 ms is the client's allowed rate.
      if (i % 15 === 14) await new Promise((r) => setTimeout(r, 100));
    }
    expect(t.runtime.hub.stats.pauses).toBe(1);
    // Storage catches up: everything sent meanwhile arrives at once, and is all accepted.
    t.runtime.hub.ingest.give(behind);
    const acks = await pub.waitForCount(isControl('ack'), COUNT, 20_000);
    expect(new Set(acks.map((m) => m.data.id)).size).toBe(COUNT);
    expect(pub.received.text.filter(isControl('error'))).toEqual([]);
    await leave(pub);
    await t.close();
  }, 60_000);

  it('shuts down promptly while a publisher is paused, closing it with 1001', async () => {
    const t = await startApp({ env: { LIVE_INGEST_BUFFER_MB: '1' } });
    const a = await tenant(t);
    const s = await createSession(t, a.key);
    const pub = await join(t, a.key, s.id, 'pub');
    t.runtime.hub.ingest.take(2 * 1024 * 1024);
    pub.send(publish('media/pub/cam', jpeg(1), { id: 'first' }));
    await eventually(() => t.runtime.hub.stats.pauses === 1);
    // A paused socket reads nothing, not even the answer to a close: without resuming it first the
    // shutdown would wait out ws's 30 s close timeout (this test's limit is 15 s).
    await t.close();
    expect((await pub.closed).code).toBe(1001);
  }, 15_000);

  it('refuses a budget that is not a whole number of MiB from 1 to 4096', async () => {
    for (const bad of ['0', '4097', '1.5', 'lots'])
      await expect(startApp({ env: { LIVE_INGEST_BUFFER_MB: bad } })).rejects.toThrow(
        /LIVE_INGEST_BUFFER_MB/,
      );
  });
});
