/**
 * `vss bot` publishes as the dashboard does: three VP8 layers of each picture (layer 0 recorded
 * and acked, layers 1 and 2 relayed only), Opus on its microphone, and fewer layers when its
 * uplink queues up. What the bot sends is read on the wire by a TCP relay between it and the real
 * server, which can also slow the bot's uplink down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveClient } from '@vss/client';
import { decodeBinaryFrame, decodeEvc1, type BinaryFrame } from '@vss/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { findFfmpeg, runBots, type BotEvent, type BotOptions } from '../src/bot/index.js';
import { decodeAudio, decodeVideo, nearest, probe, rms } from '../../server/test/support/decode.js';
import { exportTo } from '../../server/test/support/exports.js';
import { eventually } from '../../server/test/support/wait.js';
import { api, useCliServer, vss } from './support.js';

const noFfmpeg = ((): string | null => {
  try {
    findFfmpeg();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
})();
if (noFfmpeg) console.error(`[vss] vss bot layer tests skipped: ${noFfmpeg}`);

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A frame the bot sent, as the relay read it, and when. */
interface Sent {
  at: number;
  /** bytes on the wire, WebSocket header included */
  wireBytes: number;
  frame: BinaryFrame;
}

/**
 * A TCP relay in front of the server: reads the WebSocket frames each client sends (client frames
 * are masked, never compressed here: the server turns per-message deflate off) and, when
 * `rateKbps` is set, reads from the client no faster than that, so that what it sends queues in
 * its own socket as on a slow uplink. The server's answers go back untouched.
 */
class Relay {
  readonly sent: Sent[] = [];
  rateKbps: number | null = null;
  port = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: number) {
    this.server = createServer((client) => this.relay(client));
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }

  private relay(client: Socket): void {
    const upstream = createConnection(this.target, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    let head = true;
    let buf: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buf = Buffer.concat([buf, chunk]);
      if (head) {
        const i = buf.indexOf('\r\n\r\n');
        if (i < 0) return;
        buf = buf.subarray(i + 4);
        head = false;
      }
      buf = this.frames(buf);
      if (this.rateKbps !== null) {
        client.pause();
        setTimeout(() => client.resume(), (chunk.length * 8) / this.rateKbps);
      }
    });
  }

  /** Reads the complete WebSocket frames at the start of `buf`; returns the rest. */
  private frames(buf: Buffer): Buffer {
    for (;;) {
      if (buf.length < 2) return buf;
      const opcode = buf[0]! & 0x0f;
      let len = buf[1]! & 0x7f;
      let o = 2;
      if (len === 126) {
        if (buf.length < 4) return buf;
        len = buf.readUInt16BE(2);
        o = 4;
      } else if (len === 127) {
        if (buf.length < 10) return buf;
        len = Number(buf.readBigUInt64BE(2));
        o = 10;
      }
      const masked = (buf[1]! & 0x80) !== 0;
      const start = o + (masked ? 4 : 0);
      if (buf.length < start + len) return buf;
      const payload = Buffer.from(buf.subarray(start, start + len));
      if (masked) for (let i = 0; i < len; i++) payload[i]! ^= buf[o + (i % 4)]!;
      if (opcode === 2)
        this.sent.push({ at: Date.now(), wireBytes: start + len, frame: decodeBinaryFrame(payload) });
      buf = buf.subarray(start + len);
    }
  }
}

/** Width and height from a VP8 key frame's header (RFC 6386, 9.1); null for a delta frame. */
function vp8Size(data: Uint8Array): { width: number; height: number } | null {
  if ((data[0]! & 1) !== 0) return null;
  if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) throw new Error('not a VP8 key frame');
  return { width: (data[6]! | (data[7]! << 8)) & 0x3fff, height: (data[8]! | (data[9]! << 8)) & 0x3fff };
}

/** The frequency of the strongest tone in `samples` (8 kHz), by counting zero crossings. */
function pitch(samples: Int16Array, fromS: number, toS: number): number {
  let crossings = 0;
  const a = Math.floor(fromS * 8000);
  const b = Math.min(samples.length, Math.floor(toS * 8000));
  for (let i = a + 1; i < b; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return crossings / 2 / ((b - a) / 8000);
}

describe('bot options: layers', () => {
  it.each([0, 4, 1.5])('refuses layers %s before anything runs', async (layers) => {
    await expect(
      runBots({
        baseUrl: 'http://127.0.0.1:9',
        sessionId: 's',
        connectionToken: () => Promise.reject(new Error('no token should be minted')),
        count: 1,
        durationS: 1,
        layers,
      }),
    ).rejects.toThrow(`layers must be 1, 2 or 3, got ${layers}`);
  });

  it.each([
    [3, [{ afterS: 1, step: 3 }]],
    [1, [{ afterS: 1, step: 1 }]],
    [3, [{ afterS: -1, step: 1 }]],
  ])('with %s layers refuses forced steps %j', async (layers, forcedSteps) => {
    await expect(
      runBots({
        baseUrl: 'http://127.0.0.1:9',
        sessionId: 's',
        connectionToken: () => Promise.reject(new Error('no token should be minted')),
        count: 1,
        durationS: 1,
        layers,
        forcedSteps,
      }),
    ).rejects.toThrow(`forcedSteps must be a list of { afterS >= 0, step from 0 to ${layers - 1} }`);
  });
});

describe.skipIf(noFfmpeg !== null)('vss bot layers against a server', () => {
  // The session ends as soon as the last bot has left, so that its recording can be exported.
  const server = useCliServer({ SESSION_DEPARTURE_TIMEOUT_S: '0' });
  const relays: Relay[] = [];
  afterAll(async () => {
    for (const r of relays) await r.close();
  });

  async function relay(): Promise<{ relay: Relay; baseUrl: string }> {
    const r = new Relay(Number(new URL(server.baseUrl).port));
    relays.push(r);
    return { relay: r, baseUrl: await r.listen() };
  }

  async function newSession(): Promise<string> {
    return (await api(server, 'POST', '/v1/sessions', { body: { name: 'bots' } })).data.id as string;
  }

  function options(sessionId: string, baseUrl: string, events: BotEvent[] = []): BotOptions {
    return {
      baseUrl,
      sessionId,
      connectionToken: async (userId) =>
        (await api(server, 'POST', `/v1/sessions/${sessionId}/connection`, { body: { user_id: userId } }))
          .data.access_token as string,
      count: 1,
      durationS: 4,
      chatEveryS: 0,
      onEvent: (e) => events.push(e),
    };
  }

  /** The recorded frames of one stream, through the playback windows. */
  async function recorded(sessionId: string, streamId: string): Promise<Uint8Array[]> {
    const manifest = (await api(server, 'GET', `/v1/sessions/${sessionId}/manifest`)).data;
    const out: Uint8Array[] = [];
    let baseSeq: number | null = null;
    do {
      const q = `from_ts=${manifest.start_ts - 10_000}&window_size=300000${baseSeq === null ? '' : `&base_seq=${baseSeq}`}`;
      const { data } = await api(server, 'GET', `/v1/sessions/${sessionId}/playback?${q}`);
      for (const e of data.events)
        if (e.stream_id === streamId) out.push(new Uint8Array(Buffer.from(e.body_base64, 'base64')));
      baseSeq = data.next_base_seq;
    } while (baseSeq !== null);
    return out;
  }

  it('sends each picture in three layers of 640x360, 320x180 and 160x90, only layer 0 acked and recorded, starting low and at full rate within seconds; its microphone is Opus', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const report = await runBots({ ...options(sessionId, baseUrl), durationS: 10 });
    const [bot] = report.bots;
    expect(bot!.errors).toEqual([]);
    // It starts at the least it sends (layer 0 at its floor, and the smallest layer) and steps up
    // twice on a link that carries everything.
    expect(bot, JSON.stringify(bot)).toMatchObject({ uplinkStep: 0, stepChanges: 2 });

    const cam = r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam');
    const byLayer = [0, 1, 2].map((l) => cam.filter((s) => (s.frame.layer ?? 0) === l));
    const sizes = [
      [640, 360],
      [320, 180],
      [160, 90],
    ];
    for (const [l, frames] of byLayer.entries()) {
      // 10 s from the encoder's start, which a busy machine may delay by a second: the smallest
      // layer at 15 fps throughout, layer 1 from the first step up (about 2.5 s in), layer 0 at
      // the floor's 5 fps until the second (about 5 s in) and its next key frame, then at 15.
      expect(frames.length, `layer ${l}`).toBeGreaterThanOrEqual([40, 45, 120][l]!);
      const chunks = frames.map((s) => decodeEvc1(s.frame.payload));
      // Each layer starts at a key frame of its own size; the reduced ones have one every second.
      expect(chunks[0]!.key, `layer ${l} starts at a key frame`).toBe(true);
      const keys = chunks.filter((c) => c.key);
      expect(keys.length).toBeGreaterThanOrEqual(l === 0 ? 2 : 3);
      for (const k of keys)
        expect(vp8Size(k.data), `layer ${l}`).toEqual({ width: sizes[l]![0], height: sizes[l]![1] });
      expect(chunks.every((c) => c.codec === 'vp8')).toBe(true);
      // Layer 0 asks for an ack (it is recorded), the reduced layers do not.
      expect(frames.every((s) => (l === 0 ? s.frame.id !== undefined : s.frame.id === undefined))).toBe(true);
    }
    // The layers of one picture carry the same times: every picture of layer 0 (at the floor, one
    // in three) is one the smallest layer, sent throughout, has too.
    const times = (l: number) =>
      byLayer[l]!.map((s) => `${s.frame.timestampMs} ${decodeEvc1(s.frame.payload).timestampUs}`);
    const smallest = new Set(times(2));
    const shared = times(0).filter((t) => smallest.has(t));
    expect(shared.length, "layer 0 frames with the smallest layer's times").toBeGreaterThanOrEqual(
      times(0).length - 2,
    );
    // Layer 0 went on from the first picture to the last, at its floor first, then at full rate.
    const layer0 = byLayer[0]!.map((s) => decodeEvc1(s.frame.payload));
    const rate = (from: number, to: number) => {
      const t0 = layer0[0]!.timestampUs;
      return layer0
        .filter((c) => c.timestampUs >= t0 + from * 1e6 && c.timestampUs < t0 + to * 1e6)
        .reduce((n, c) => n + c.data.length, 0);
    };
    expect(rate(0, 2) * 2, 'layer 0 bytes: the first 2 s against the last 4').toBeLessThan(rate(6, 10));
    // A frame dropped behind a full socket (a loaded machine) waits for a key frame, 2 s at most.
    const gaps = layer0.slice(1).map((c, i) => (c.timestampUs - layer0[i]!.timestampUs) / 1000);
    expect(Math.max(...gaps), "layer 0's longest gap, ms").toBeLessThan(2100);
    expect(bot!.videoFrames).toBe(byLayer[0]!.length);
    expect(bot!.relayedFrames).toBe(byLayer[1]!.length + byLayer[2]!.length);
    expect(bot!.framesAcked).toBe(bot!.framesSent);

    // The microphone: Opus, 20 ms frames, the stream's OpusHead as the description, as a browser sends.
    const mic = r.sent
      .filter((s) => s.frame.streamType === 'media/bot-1/mic')
      .map((s) => decodeEvc1(s.frame.payload));
    expect(mic.length).toBeGreaterThanOrEqual(240);
    for (const c of mic) {
      expect(c).toMatchObject({ codec: 'opus', key: true, durationUs: 20_000 });
      expect(Buffer.from(c.description.subarray(0, 8)).toString('latin1')).toBe('OpusHead');
      // About 32 kbit/s: 80 bytes a frame, far below pcm-s16's 1920.
      expect(c.data.length).toBeLessThan(200);
    }
    expect(mic.map((c) => c.timestampUs)).toEqual(mic.map((_, i) => mic[0]!.timestampUs + i * 20_000));

    // Recorded: layer 0 only, all of it.
    const rec = (await recorded(sessionId, 'media/bot-1/cam')).map((b) => decodeEvc1(b));
    expect(rec).toHaveLength(byLayer[0]!.length);
    for (const c of rec.filter((c) => c.key)) expect(vp8Size(c.data)).toEqual({ width: 640, height: 360 });
    expect(await recorded(sessionId, 'media/bot-1/mic')).toHaveLength(mic.length);
  });

  it('stepped down, layer 0 goes on at its floor and layer 1 stops: the recording has no gap in the camera, and its export the whole tone', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const report = await runBots({
      ...options(sessionId, baseUrl),
      durationS: 8,
      forcedSteps: [
        { afterS: 3, step: 1 },
        { afterS: 5.5, step: 2 },
      ],
    });
    const [bot] = report.bots;
    expect(bot!.errors).toEqual([]);
    expect(bot, JSON.stringify(bot)).toMatchObject({ uplinkStep: 2, stepChanges: 2 });
    expect(bot!.framesAcked).toBe(bot!.framesSent);

    // On the wire: each layer keeps its size; layer 0 goes on at a fraction of its bytes from the
    // first step, layer 1 stops at the second.
    const cam = r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam');
    const mic = r.sent.filter((s) => s.frame.streamType === 'media/bot-1/mic');
    const t0 = decodeEvc1(mic[0]!.frame.payload).timestampUs;
    const lastOf = (layer: number) => {
      const frames = cam
        .filter((s) => (s.frame.layer ?? 0) === layer)
        .map((s) => decodeEvc1(s.frame.payload));
      for (const c of frames.filter((c) => c.key))
        expect(vp8Size(c.data)).toEqual(
          [
            { width: 640, height: 360 },
            { width: 320, height: 180 },
            { width: 160, height: 90 },
          ][layer],
        );
      return (frames.at(-1)!.timestampUs - t0) / 1e6;
    };
    // A step is taken at the first picture after the uplink's next check (every 250 ms) past its
    // time; a busy machine delays pictures further.
    // (An encoder starved of CPU for a moment makes no pictures then, and its pictures' times may
    // trail the bot's clock by up to a second before they are re-anchored: hence the margins.)
    expect(lastOf(0)).toBeGreaterThan(6.5);
    expect(lastOf(1)).toBeGreaterThan(3.5);
    expect(lastOf(1)).toBeLessThan(6.5);
    expect(lastOf(2)).toBeGreaterThan(6.5);
    const layer0 = cam.filter((s) => !s.frame.layer).map((s) => decodeEvc1(s.frame.payload));
    const bytesOf = (from: number, to: number) =>
      layer0
        .filter((c) => c.timestampUs - t0 >= from * 1e6 && c.timestampUs - t0 < to * 1e6)
        .reduce((n, c) => n + c.data.length, 0);
    // At the floor, a third of the pictures at a fifth of the bitrate (key frames are most of it).
    expect(bytesOf(5, 7) * 2, "layer 0's bytes at its floor against full rate, 2 s each").toBeLessThan(
      bytesOf(0.5, 2.5),
    );
    const times = layer0.map((c) => c.timestampUs);
    const longest = Math.max(...times.slice(1).map((t, i) => t - times[i]!)) / 1000;
    // No gap from the steps; a frame dropped behind a full socket (a loaded machine) waits for the
    // next key frame, at most 2 s away.
    expect(longest, "layer 0's longest gap, ms").toBeLessThan(2100);

    // Recorded: what was acked, layer 0 only.
    expect(await recorded(sessionId, 'media/bot-1/cam')).toHaveLength(bot!.videoFrames);
    expect(await recorded(sessionId, 'media/bot-1/mic')).toHaveLength(bot!.audioFrames);

    const dir = mkdtempSync(join(tmpdir(), 'vss-bot-layers-'));
    scratch.push(dir);
    const file = join(dir, 'steps.mp4');
    await eventually(
      async () => (await api(server, 'GET', `/v1/sessions/${sessionId}`)).data.ended_at,
      20_000,
      'the session to end',
    );
    await exportTo(server.app, server.key, sessionId, file);
    expect((await probe(file)).durationS).toBeGreaterThan(7.5);
    // The layout shows the one camera over the whole 1280x720 picture: the test pattern's six bars,
    // sampled in their upper part (away from its clock and moving marks), throughout: at the floor
    // as at full rate, never the name card of a camera that is off.
    const video = await decodeVideo(file, 1280, 720);
    const bars: Record<string, [number, number, number]> = {
      red: [255, 0, 0],
      green: [0, 255, 0],
      yellow: [255, 255, 0],
      blue: [0, 0, 255],
      magenta: [255, 0, 255],
      cyan: [0, 255, 255],
    };
    const order = Object.keys(bars);
    const samples = (i: number) => order.map((_, b) => video.at(i, Math.round(((b + 0.5) * 1280) / 6), 300));
    const showsPattern = (i: number) =>
      samples(i).filter((rgb, b) => nearest(rgb, bars) === order[b]).length >= 5;
    const at = (s: number) => Math.round(s * 15);
    expect(showsPattern(at(2)), 'the pattern at 2 s').toBe(true);
    expect(showsPattern(at(7)), 'the pattern at 7 s').toBe(true);
    // From the camera's first picture (the export's first moments may come before it) to the last
    // half second (the bot leaves as its last pictures are in flight).
    const first = video.frames.findIndex((_, i) => showsPattern(i));
    expect(first, 'the first frame that shows the pattern').toBeLessThan(15);
    const broken = video.frames.flatMap((_, i) => (i < first || i >= at(7.5) || showsPattern(i) ? [] : [i]));
    expect(broken, 'frames that do not show the pattern').toEqual([]);
    // The tone of bot-1, 300 Hz, throughout: the change of encoding costs the sound nothing.
    const audio = await decodeAudio(file);
    for (let w = 0.5; w < 7.5; w += 0.5) {
      expect(rms(audio, w, w + 0.5), `the level at ${w} s`).toBeGreaterThan(1000);
      expect(Math.abs(pitch(audio, w, w + 0.5) - 300), `the pitch at ${w} s`).toBeLessThan(15);
    }
  }, 60_000);

  it('on a slow uplink sends layer 0 at its floor, the audio going on, and at full rate again once the link is fast', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const controller = new AbortController();
    const events: BotEvent[] = [];
    const run = runBots({
      ...options(sessionId, baseUrl, events),
      durationS: 120,
      statsEveryS: 0.25,
      signal: controller.signal,
    });
    /** the bot's uplink step, as the latest stats event tells */
    const step = () => {
      const s = events.findLast((e) => e.type === 'stats');
      return s?.type === 'stats' && s.connected === 1 ? s.steps.indexOf(1) : -1;
    };
    const layer0 = () => r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam' && !s.frame.layer);
    let slowFrom = 0;
    let fastFrom = 0;
    try {
      await eventually(() => layer0().length > 0 && step() === 0, 20_000, 'layer 0 on the wire');
      // The link now carries 250 kbit/s: less than the three layers and the audio (about 500
      // kbit/s), more than the reduced layers and the audio.
      slowFrom = Date.now();
      r.rateKbps = 250;
      await eventually(() => step() > 0, 20_000, 'a step down');
      const steppedAt = Date.now();
      console.error(`[vss] stepped down ${steppedAt - slowFrom} ms after the link slowed`);
      // The recorded layer goes on, at its floor.
      await eventually(
        () => layer0().filter((s) => s.at > steppedAt + 1000).length >= 5,
        10_000,
        'layer 0 at its floor',
      );
      r.rateKbps = null;
      fastFrom = Date.now();
      await eventually(() => step() === 0 && layer0().at(-1)!.at > fastFrom, 40_000, 'full rate again');
      console.error(`[vss] full rate again ${Date.now() - fastFrom} ms after the link was fast`);
    } finally {
      controller.abort();
    }
    const report = await run;
    const [bot] = report.bots;
    for (const e of bot!.errors) expect(e).toMatch(/acks still outstanding/);
    expect(bot!.stepChanges).toBeGreaterThanOrEqual(2);
    // While stepped down, layer 0 (recorded) and the smallest layer went on.
    const during = r.sent.filter((s) => s.at > slowFrom && s.at < fastFrom);
    expect(during.filter((s) => s.frame.layer === 2).length).toBeGreaterThan(5);
    expect(
      during.filter((s) => s.frame.streamType === 'media/bot-1/cam' && !s.frame.layer).length,
    ).toBeGreaterThan(5);
    // Audio was never dropped for the video: every 20 ms frame went out, in order.
    const mic = r.sent
      .filter((s) => s.frame.streamType === 'media/bot-1/mic')
      .map((s) => decodeEvc1(s.frame.payload).timestampUs);
    expect(mic.length).toBeGreaterThan(100);
    const gaps = mic.flatMap((t, i) =>
      i > 0 && t - mic[i - 1]! !== 20_000 ? [`${mic[i - 1]} -> ${t}`] : [],
    );
    expect(gaps).toEqual([]);
  }, 120_000);

  it("counts the key-frame requests a viewer's decoder makes, which the server passes on", async () => {
    const sessionId = await newSession();
    const controller = new AbortController();
    const events: BotEvent[] = [];
    const run = runBots({
      ...options(sessionId, server.baseUrl, events),
      durationS: 60,
      statsEveryS: 0.25,
      signal: controller.signal,
    });
    const token = (
      await api(server, 'POST', `/v1/sessions/${sessionId}/connection`, { body: { user_id: 'viewer' } })
    ).data.access_token as string;
    const viewer = new LiveClient({
      url: server.baseUrl.replace(/^http/, 'ws'),
      session: sessionId,
      userId: 'viewer',
      token,
      format: 'binary',
      WebSocket,
    });
    const requests = () => {
      const s = events.findLast((e) => e.type === 'stats');
      return s?.type === 'stats' ? s.keyframeRequests : 0;
    };
    try {
      await viewer.connect();
      const camSeen = new Promise<void>((resolve) =>
        viewer.on('message', (m) => m.streamType === 'media/bot-1/cam' && resolve()),
      );
      await camSeen;
      const before = requests();
      await viewer.requestKeyFrame('bot-1', 'cam');
      await eventually(() => requests() > before, 10_000, 'the request counted');
    } finally {
      await viewer.close();
      controller.abort();
    }
    const report = await run;
    expect(report.bots[0]!.errors).toEqual([]);
    expect(report.bots[0]!.keyframeRequests).toBeGreaterThanOrEqual(1);
  });

  it('--layers 1 sends layer 0 alone', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const report = await runBots({ ...options(sessionId, baseUrl), durationS: 2, layers: 1 });
    expect(report.bots[0]!.errors).toEqual([]);
    expect(report.bots[0]!.relayedFrames).toBe(0);
    // every camera picture the bot sent went out as layer 0 (how many depends on the machine's load)
    expect(report.bots[0]!.videoFrames).toBeGreaterThan(0);
    const cam = () => r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam');
    await eventually(
      () => cam().length >= report.bots[0]!.videoFrames,
      10_000,
      'the relay read every picture',
    );
    expect(cam().length).toBe(report.bots[0]!.videoFrames);
    expect(cam().every((s) => s.frame.layer === undefined)).toBe(true);
  });

  it('vss bot --layers refuses a bad count, naming the option', async () => {
    for (const bad of ['0', '4', 'two']) {
      const res = await vss(['bot', 'some-session', '--layers', bad], { env: server.env });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`'--layers <n>' argument '${bad}' is invalid`);
      expect(res.stderr).toContain('expected a whole number from 1 to 3');
    }
  });
});
