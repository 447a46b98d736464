import { encodeBinaryFrame, encodeEvc1, LIVE_ERRORS } from '@vss/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { VIDEO_BUDGET_MS } from '../src/modules/live/pacer.js';
import { eventually, join, jpeg, leave, publish, type TestSocket } from './support/live.js';

/** A VP8-looking EVC1 chunk: `n` in its bytes tells frames apart; the server reads only the key flag. */
function chunk(n: number, key: boolean, layer: number, size = 400): Buffer {
  const data = Buffer.alloc(size, n & 0xff);
  data.writeUInt32BE(n, 0);
  data[4] = layer;
  const c = encodeEvc1({
    key,
    codec: 'vp8',
    timestampUs: n * 66_666,
    durationUs: 66_666,
    description: new Uint8Array(0),
    data,
  });
  return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
}

/** Frame number and layer of a received cam message. */
function frameOf(m: Record<string, any>): { n: number; layer: number; key: boolean } {
  const body = Buffer.from(m.body, 'base64');
  const at = 27; // the EVC1 header of a `vp8` chunk without a description
  return { n: body.readUInt32BE(at), layer: body[at + 4]!, key: (body[5]! & 1) === 1 };
}

/** A JPEG of `width`x`height` as its start-of-frame segment says, padded to `size` bytes. */
function sizedJpeg(n: number, width: number, height: number, size = 2000): Buffer {
  const b = Buffer.alloc(size, n & 0xff);
  Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08]).copy(b, 0);
  b.writeUInt16BE(height, 7);
  b.writeUInt16BE(width, 9);
  b[11] = 3;
  b.writeUInt32BE(n, 12);
  b[size - 2] = 0xff;
  b[size - 1] = 0xd9;
  return b;
}

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const isCam = (m: Record<string, any>) => m.type === 'message' && m.stream_type === 'media/alice/cam';
const isError = (code: string) => (m: Record<string, any>) =>
  m.type === 'control' && m.event === 'error' && m.data.code === code;

describe('video layers', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
  });
  afterAll(() => t.close());

  /** alice publishes pictures 0..n-1 in three layers, key frames at 0 and every 10th. */
  async function publishLayers(alice: TestSocket, n: number, t0: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      for (const layer of [0, 1, 2]) {
        const id = `f${i}-${layer}`;
        alice.send(
          publish('media/alice/cam', chunk(i, i % 10 === 0, layer), {
            timestamp_ms: t0 + i * 66,
            id,
            ...(layer ? { layer } : {}),
          }),
        );
      }
    }
    await alice.waitForCount(isControl('ack'), n * 3);
  }

  it('records layer 0 only, relays the best layer to a fast receiver, and acks reduced layers without a seq', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const t0 = Date.now();
    await publishLayers(alice, 20, t0);
    const acks = alice.received.text.filter(isControl('ack'));
    expect(acks.filter((m) => typeof m.data.seq === 'number')).toHaveLength(20);
    expect(acks.filter((m) => m.data.seq === undefined).map((m) => m.data.layer)).toEqual(
      Array.from({ length: 20 }, () => [1, 2]).flat(),
    );
    const got = (await bob.waitForCount(isCam, 20)).map(frameOf);
    expect(got.map((f) => f.layer)).toEqual(Array(20).fill(0));
    expect(got.map((f) => f.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Only layer 0 went into the recording.
    const res = await call(t, 'GET', `/v1/sessions/${s.id}/playback?from_ts=${t0 - 1000}&window_size=60000`, {
      key: a.key,
    });
    const cams = (res.body.data.events as Array<Record<string, any>>).filter(
      (e) => e.stream_id === 'media/alice/cam',
    );
    expect(cams).toHaveLength(20);
    expect(t.runtime.hub.stats.relayed).toBeGreaterThanOrEqual(40);
    await leave(alice);
    await leave(bob);
  });

  it('refuses a reduced layer larger than the recorded layer, naming both sizes; a smaller one is relayed', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const now = Date.now();
    alice.send(publish('media/alice/cam', sizedJpeg(0, 320, 180), { id: 'base', timestamp_ms: now }));
    // The attack: full-size video as layer 1, shown live and never recorded.
    alice.send(
      publish('media/alice/cam', sizedJpeg(1, 1280, 720, 20_000), { id: 'big', layer: 1, timestamp_ms: now }),
    );
    alice.send(
      publish('media/alice/cam', sizedJpeg(2, 160, 90), { id: 'small', layer: 1, timestamp_ms: now }),
    );
    const err = await alice.waitFor(isError(LIVE_ERRORS.BAD_LAYER));
    expect(err.data.id).toBe('big');
    expect(err.data.message).toMatch(/layer 1 is 1280x720, larger than the recorded layer 0 \(320x180\)/);
    await alice.waitFor((m) => m.type === 'control' && m.event === 'ack' && m.data.id === 'small');
    await eventually(() => bob.received.text.some(isCam), 5000, "bob to get alice's camera");
    const sizes = bob.received.text.filter(isCam).map((m) => Buffer.from(m.body, 'base64').length);
    expect(sizes).not.toContain(20_000);
    await leave(alice);
    await leave(bob);
  });

  it('refuses unknown layers, a layer on the microphone, and a malformed one, naming the layer', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const now = Date.now();
    alice.send(publish('media/alice/cam', chunk(1, true, 3), { layer: 3, id: 'l3', timestamp_ms: now }));
    alice.send(publish('media/alice/cam', chunk(1, true, 0), { layer: 'x', id: 'lx', timestamp_ms: now }));
    alice.send(publish('media/alice/cam', chunk(1, true, 0), { layer: -1, id: 'lneg', timestamp_ms: now }));
    const opus = encodeEvc1({
      key: true,
      codec: 'opus',
      timestampUs: 0,
      durationUs: 20_000,
      description: new Uint8Array(0),
      data: new Uint8Array(40),
    });
    alice.send(publish('media/alice/mic', Buffer.from(opus), { layer: 1, id: 'mic1', timestamp_ms: now }));
    // A binary publish of kind 3 with layer 7.
    alice.ws.send(
      Buffer.from(
        encodeBinaryFrame({
          kind: 1,
          streamType: 'media/alice/cam',
          timestampMs: now,
          id: 'bin7',
          layer: 7,
          payload: chunk(2, true, 7),
        }),
      ),
    );
    const errors = await alice.waitForCount(isError(LIVE_ERRORS.BAD_LAYER), 5);
    expect(Object.fromEntries(errors.map((e) => [e.data.id, e.data.message]))).toEqual({
      l3: 'layer must be 0, 1 or 2 (got 3)',
      lx: 'layer must be an integer (0, 1 or 2)',
      lneg: 'layer must be 0, 1 or 2 (got -1)',
      mic1: 'layer: a mic track has no layers (only 0)',
      bin7: 'layer must be 0, 1 or 2 (got 7)',
    });
    // Nothing of them was relayed, and the session goes on: a good frame after them arrives.
    alice.send(publish('media/alice/cam', chunk(9, true, 0), { id: 'ok', timestamp_ms: now }));
    await alice.waitFor((m) => isControl('ack')(m) && m.data.id === 'ok');
    const cams = (await bob.waitForCount(isCam, 1)).map(frameOf);
    expect(cams.map((f) => f.n)).toEqual([9]);
    expect(bob.received.text.filter(isCam)).toHaveLength(1);
    await leave(alice);
    await leave(bob);
  });

  it("passes a receiver's key-frame request to the publisher, refuses floods and unknown tracks, and asks a publisher once however many receivers ask", async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const receivers = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5'].map((u) => join(t, a.key, s.id, u)));
    alice.send(publish('media/alice/cam', chunk(0, true, 0), { id: 'k0', timestamp_ms: Date.now() }));
    await Promise.all(receivers.map((r) => r.waitFor(isCam)));
    const before = { ...t.runtime.hub.keyframes.counts };

    receivers[0]!.send({ type: 'keyframe', user_id: 'alice', track: 'cam' });
    const asked = await alice.waitFor(isControl('keyframe'));
    expect(asked).toMatchObject({ user_id: 'alice', data: { track: 'cam', layer: 0 } });
    // The same receiver again at once: refused. Four others at once: one key frame was just asked.
    receivers[0]!.send({ type: 'keyframe', user_id: 'alice', track: 'cam' });
    expect((await receivers[0]!.waitFor(isError(LIVE_ERRORS.RATE_LIMITED))).data.message).toMatch(/keyframe/);
    for (const r of receivers.slice(1)) r.send({ type: 'keyframe', user_id: 'alice', track: 'cam' });
    // Unknown publisher, a track not published, audio, and a malformed request.
    const r5 = receivers[4]!;
    r5.send({ type: 'keyframe', user_id: 'nobody', track: 'cam' });
    r5.send({ type: 'keyframe', user_id: 'alice', track: 'screen' });
    r5.send({ type: 'keyframe', user_id: 'alice', track: 'mic' });
    r5.send({ type: 'keyframe', user_id: 'alice' });
    const bad = await r5.waitForCount(isError(LIVE_ERRORS.BAD_MESSAGE), 4);
    expect(bad.map((e) => e.data.message)).toEqual([
      'keyframe: nobody publishes no cam in this session',
      'keyframe: alice publishes no screen in this session',
      'keyframe: alice publishes no video on mic in this session',
      'keyframe needs user_id and track strings',
    ]);
    const c = t.runtime.hub.keyframes.counts;
    expect(c.fromReceivers - before.fromReceivers).toBe(9);
    expect(c.refused - before.refused).toBe(4);
    expect(c.limited - before.limited).toBe(4);
    expect(alice.received.text.filter(isControl('keyframe'))).toHaveLength(1);
    // Nobody else was told anything, and the session goes on.
    for (const r of receivers) expect(r.received.text.filter(isControl('keyframe'))).toEqual([]);
    alice.send(publish('media/alice/cam', chunk(1, false, 0), { id: 'k1', timestamp_ms: Date.now() }));
    await Promise.all(receivers.map((r) => r.waitForCount(isCam, 2)));
    for (const r of [alice, ...receivers]) await leave(r);
  });

  it('a receiver that fell behind skips to the next key frame, is told so, and keeps every audio message', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const fast = await join(t, a.key, s.id, 'fast');
    const raw = (bob.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    const opus = (i: number) =>
      Buffer.from(
        encodeEvc1({
          key: true,
          codec: 'opus',
          timestampUs: i * 20_000,
          durationUs: 20_000,
          description: new Uint8Array(0),
          data: new Uint8Array(60).fill(i & 0xff),
        }),
      );
    const isMic = (m: Record<string, any>) => m.type === 'message' && m.stream_type === 'media/alice/mic';
    const t0 = Date.now();
    let sent = 0;
    // Pictures of 20 KB: bob stops reading after the first, so what is in flight to him fills.
    const send = (i: number) => {
      alice.send(
        publish('media/alice/cam', chunk(i, i % 20 === 0, 0, 20_000), { timestamp_ms: t0 + i * 66 }),
      );
      alice.send(publish('media/alice/mic', opus(i), { timestamp_ms: t0 + i * 66 }));
      sent = i + 1;
    };
    send(0);
    await bob.waitFor(isCam);
    raw.pause();
    for (let i = 1; i < 19; i++) send(i);
    await fast.waitForCount(isCam, sent);
    await fast.waitForCount(isMic, sent);
    // Bob's link has taken nothing since: his queued video ages past its budget at the server.
    const pacer = t.runtime.hub.connections().find((c) => c.userId === 'bob')!.pacer!;
    await eventually(() => pacer.oldestVideoMs(Date.now()) > VIDEO_BUDGET_MS, 5000, "bob's video to age");
    raw.resume();
    // Nothing fresh of alice's camera waits for bob, and no key frame: he is told the video stalled.
    const stalled = await bob.waitFor((m) => isControl('layer')(m) && m.data.state === 'stalled');
    expect(stalled).toMatchObject({ user_id: 'alice', data: { track: 'cam', layer: 0, state: 'stalled' } });
    for (let i = 19; i < 25; i++) send(i);
    await fast.waitForCount(isCam, sent);
    // The key frame ends the stall: he is told he has the full picture again.
    await bob.waitFor((m) => isControl('layer')(m) && m.data.state === 'full');
    await bob.waitFor((m) => isCam(m) && frameOf(m).n === 24);
    const frames = bob.received.text.filter(isCam).map(frameOf);
    // After the gap, the first frame bob got is a key frame (20), and from there every frame.
    const gapAt = frames.findIndex((f, i) => i > 0 && f.n !== frames[i - 1]!.n + 1);
    expect(gapAt).toBeGreaterThan(0);
    expect(frames[gapAt]).toMatchObject({ n: 20, key: true });
    expect(frames.slice(gapAt).map((f) => f.n)).toEqual([20, 21, 22, 23, 24]);
    // Audio was never dropped for the video.
    await bob.waitForCount(isMic, sent);
    expect(t.runtime.hub.stats.keyframeSkips).toBeGreaterThan(0);
    for (const r of [alice, bob, fast]) await leave(r);
  });

  it('keeps delivering to a participant whose own publishing waits for storage (its pongs wait unread)', async () => {
    const t2 = await startApp({ env: { LIVE_INGEST_BUFFER_MB: '1' } });
    const a2 = await tenant(t2);
    const s = await createSession(t2, a2.key);
    const pub = await join(t2, a2.key, s.id, 'pub');
    const senders = await Promise.all(Array.from({ length: 10 }, (_, i) => join(t2, a2.key, s.id, `s${i}`)));
    // Storage is behind: each socket is read once more, then waits until it catches up.
    t2.runtime.hub.ingest.take(2 * 1024 * 1024);
    pub.send(publish('chat', Buffer.from(JSON.stringify({ text: 'hi' })), { id: 'first' }));
    await eventually(() => t2.runtime.hub.stats.pauses === 1);
    // Ten others publish a 40 KB picture each, far more than goes out before a first pong.
    senders.forEach((x, i) =>
      x.send(publish(`media/s${i}/cam`, jpeg(i, 40_000), { timestamp_ms: Date.now() })),
    );
    // Pub gets them all while its socket is still not read.
    await pub.waitForCount((m) => m.type === 'message' && m.stream_type.endsWith('/cam'), 10);
    expect(t2.runtime.hub.connections().find((c) => c.userId === 'pub')).toBeDefined();
    t2.runtime.hub.ingest.give(2 * 1024 * 1024);
    await pub.waitFor((m) => isControl('ack')(m) && m.data.id === 'first');
    for (const x of [pub, ...senders]) await leave(x);
    await t2.close();
  });

  it('tells a receiver whose link is full why it is closed before closing it (replaced: control, then 4409)', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const raw = (bob.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    // Pictures bob does not read: what is in flight to him fills, and the rest waits at the server.
    for (let i = 0; i < 12; i++)
      alice.send(publish('media/alice/cam', jpeg(i, 30_000), { timestamp_ms: Date.now(), id: `p${i}` }));
    await alice.waitForCount(isControl('ack'), 12);
    const pacer = t.runtime.hub.connections().find((c) => c.userId === 'bob')!.pacer!;
    await eventually(() => pacer.backlog > 0, 5000, "bob's backlog");
    // Bob joins again elsewhere: the older connection is told, then closed with 4409.
    const bob2 = await join(t, a.key, s.id, 'bob');
    raw.resume();
    const closed = await bob.closed;
    expect(closed.code).toBe(4409);
    expect(bob.received.text.filter(isControl('replaced'))).toHaveLength(1);
    for (const x of [alice, bob2]) await leave(x);
  });
});
