import { decodeEvc1 } from '@vss/protocol';
import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  createSession,
  describeBrowser,
  joinLive,
  newContext,
  poll,
  receiver,
  signUp,
  accountId,
  type SentVideo,
  type Vss,
  useBrowserApp,
  vp8Size,
  watchSentVideo,
} from './support/browser.js';

/** alice's camera: her account's id names it (set once she has signed up). */
let CAM = '';

/** The recorded events of one stream, read through the playback API with the page's login cookie. */
async function recorded(page: Page, sessionId: string, stream: string, fromTs: number) {
  const events: { seq: number; stream_id: string; body_base64: string }[] = [];
  let base: number | null = null;
  do {
    const q: string = `from_ts=${fromTs}&window_size=300000${base !== null ? `&base_seq=${base}` : ''}`;
    const res = await page.request.get(`/v1/sessions/${sessionId}/playback?${q}`);
    expect(res.status(), await res.text()).toBe(200);
    const data = ((await res.json()) as { data: { events: typeof events; next_base_seq: number | null } })
      .data;
    events.push(...data.events);
    base = data.next_base_seq;
  } while (base !== null);
  return events.filter((e) => e.stream_id === stream);
}

/** The frames of one layer of alice's camera that the page sent. */
const layerOf = (sent: SentVideo[], layer: number) =>
  sent.filter((f) => f.streamType === CAM && f.layer === layer);

describeBrowser('a camera published in layers', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('goes out as full, half and quarter pictures, each from a key frame; layer 0 is recorded and reaches a receiver', async () => {
    const ctx = await newContext(browser, vss.base);
    const a = await ctx.newPage();
    await signUp(a);
    CAM = `media/${await accountId(a)}/cam`;
    const session = await createSession(a, 'Layers');
    const sent = watchSentVideo(a);
    const startedAt = Date.now() - 1000;
    await a.goto(`${session.path}/live`);
    const rx = await receiver(vss, a, session.id, 'rx');
    await joinLive(a, 'alice');

    // A few seconds of each layer, every layer's first frame a key frame.
    await poll(() => Math.min(...[0, 1, 2].map((l) => layerOf(sent, l).length))).toBeGreaterThanOrEqual(45);
    const layers = [0, 1, 2].map((l) => layerOf(sent, l));
    const sizes = layers.map((frames) => [
      ...new Set(frames.filter((f) => f.key).map((f) => `${f.size?.width}x${f.size?.height}`)),
    ]);
    // Chromium's fake camera gives 640×480: half and a quarter of it.
    expect(sizes).toEqual([['640x480'], ['320x240'], ['160x120']]);
    for (const frames of layers) expect(frames[0]!.key).toBe(true);
    // Layer 0 asks for an ack (it is recorded); the reduced layers do not.
    expect(layers[0]!.every((f) => f.id !== undefined)).toBe(true);
    expect(layers[1]!.concat(layers[2]!).some((f) => f.id !== undefined)).toBe(false);
    // One picture, one timestamp: each reduced frame has a layer-0 twin with the same
    // timestamp_ms and chunk timestamp (the encoder may skip a picture on one layer only).
    const full = new Set(layers[0]!.map((f) => `${f.timestampMs}/${f.timestampUs}`));
    for (const l of [1, 2]) {
      const twins = layers[l]!.filter((f) => full.has(`${f.timestampMs}/${f.timestampUs}`)).length;
      expect(twins / layers[l]!.length, `layer ${l} frames with a layer-0 twin`).toBeGreaterThan(0.9);
    }
    // Bytes per layer: the reduced layers are much smaller.
    const bytes = layers.map((frames) => frames.reduce((n, f) => n + f.bytes, 0));
    expect(bytes[1]).toBeLessThan(bytes[0]! / 2);
    expect(bytes[2]).toBeLessThan(bytes[1]!);
    // eslint-disable-next-line no-console -- the measured figures, for whoever reads the run
    console.log(
      `[layers] sent frames ${layers.map((f) => f.length).join('/')}, bytes ${bytes.join('/')}, key sizes ${sizes.join(' ')}`,
    );

    // A receiver on loopback gets the full picture, recorded (a seq): the server may start it on a
    // reduced layer until it has measured the link, then switches it to layer 0 at a key frame.
    const cam = () => rx.video.filter((f) => f.streamType === CAM);
    const fullFrom = () => cam().findIndex((f) => f.key && f.size?.width === 640 && f.seq > 0);
    await poll(() => fullFrom()).toBeGreaterThanOrEqual(0);
    await poll(() => cam().length - fullFrom()).toBeGreaterThan(30);
    const got = cam();
    expect(got[0]!.key).toBe(true);
    const settled = got.slice(fullFrom());
    expect(settled.filter((f) => f.seq > 0).length / settled.length).toBeGreaterThan(0.9);
    // What it got of reduced layers (before that) was never recorded: seq 0, and their sizes.
    for (const f of got.filter((g) => g.seq === 0 && g.key))
      expect(['320x240', '160x120']).toContain(`${f.size?.width}x${f.size?.height}`);

    // The recording holds layer 0 only: every recorded key frame is the full picture.
    await a.getByRole('button', { name: 'Leave' }).click();
    await rx.close();
    const events = await recorded(a, session.id, CAM, startedAt);
    expect(events.length).toBeGreaterThanOrEqual(layers[0]!.length * 0.9);
    const recordedSizes = new Set<string>();
    for (const e of events) {
      const size = keySize(Buffer.from(e.body_base64, 'base64'));
      if (size) recordedSizes.add(size);
    }
    expect([...recordedSizes]).toEqual(['640x480']);
    await ctx.close();
  });

  it('answers a key frame request at once rather than at its next periodic key frame', async () => {
    const ctx = await newContext(browser, vss.base);
    const a = await ctx.newPage();
    await signUp(a);
    const alice = await accountId(a);
    CAM = `media/${alice}/cam`;
    const session = await createSession(a, 'Key frames');
    const sent = watchSentVideo(a);
    await a.goto(`${session.path}/live`);
    const rx = await receiver(vss, a, session.id, 'rx');
    await joinLive(a, 'alice');
    const keys = () => rx.video.filter((f) => f.streamType === CAM && f.key);
    await poll(() => keys().length).toBeGreaterThanOrEqual(2);
    // The periodic key frames come 2 s apart. Ask 600 ms after one (past the 500 ms within which
    // the server passes on no second request for the same layer, docs/protocol.md §6): the answer
    // must come well before the next periodic one, 1.4 s later.
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = keys().length;
      await poll(() => keys().length).toBeGreaterThan(before);
      const last = keys().at(-1)!.at;
      // Pacing, not a proof: the request goes 600 ms after the key frame, as said above.
      await new Promise((r) => setTimeout(r, Math.max(0, last + 600 - performance.now())));
      const askedAt = performance.now();
      await rx.client.requestKeyFrame(alice, 'cam');
      await poll(() => keys().some((k) => k.at > askedAt)).toBe(true);
      waits.push(keys().find((k) => k.at > askedAt)!.at - askedAt);
    }
    // eslint-disable-next-line no-console -- the measured figures, for whoever reads the run
    console.log(`[layers] key frame after a request: ${waits.map((w) => Math.round(w)).join(', ')} ms`);
    for (const w of waits) expect(w).toBeLessThan(800);
    // The page sent them: a key frame on some layer for each request.
    expect(sent.filter((f) => f.streamType === CAM && f.key).length).toBeGreaterThanOrEqual(keys().length);
    await rx.close();
    await ctx.close();
  });
});

/** The size of a recorded VP8 key frame ("640x480"), or null for a delta frame. */
function keySize(body: Buffer): string | null {
  const c = decodeEvc1(new Uint8Array(body));
  const s = c.key ? vp8Size(c.data) : null;
  return s ? `${s.width}x${s.height}` : null;
}
