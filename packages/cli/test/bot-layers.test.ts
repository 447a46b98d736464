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
import { decodeBinaryFrame, decodeEvc1, type BinaryFrame } from '@vss/protocol';
import { afterAll, describe, expect, it } from 'vitest';
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
    let buf = Buffer.alloc(0);
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

  it('sends each picture in three layers of 640x360, 320x180 and 160x90, only layer 0 acked and recorded; its microphone is Opus', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const report = await runBots({ ...options(sessionId, baseUrl), durationS: 5 });
    const [bot] = report.bots;
    expect(bot!.errors).toEqual([]);

    const cam = r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam');
    const byLayer = [0, 1, 2].map((l) => cam.filter((s) => (s.frame.layer ?? 0) === l));
    const sizes = [
      [640, 360],
      [320, 180],
      [160, 90],
    ];
    for (const [l, frames] of byLayer.entries()) {
      // 5 s at 15 fps from the encoder's start, which a busy machine may delay by a second.
      expect(frames.length, `layer ${l}`).toBeGreaterThanOrEqual(45);
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
    // The layers of one picture carry the same times.
    const times = (l: number) =>
      byLayer[l]!.map((s) => `${s.frame.timestampMs} ${decodeEvc1(s.frame.payload).timestampUs}`);
    const zero = new Set(times(0));
    for (const l of [1, 2]) {
      const shared = times(l).filter((t) => zero.has(t));
      expect(shared.length, `layer ${l} frames with layer 0's times`).toBeGreaterThanOrEqual(
        times(l).length - 2,
      );
    }
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

  it('a recording whose layer 0 steps down to 320x180 and 160x90 exports: the picture goes on at each step, the tone is heard', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const events: BotEvent[] = [];
    const report = await runBots({
      ...options(sessionId, baseUrl, events),
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

    // On the wire: layer 0 changes size at a key frame; while at step 1 the 160x90 encoding is layer 1.
    const cam = r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam');
    const zero = cam
      .filter((s) => !s.frame.layer)
      .map((s) => ({ at: s.at, bytes: s.wireBytes, chunk: decodeEvc1(s.frame.payload) }));
    const stepAt2 = (size: string) => zero.find((f) => f.chunk.key && `${vp8Size(f.chunk.data)!.width}x${vp8Size(f.chunk.data)!.height}` === size)!;
    const sizes: string[] = [];
    for (const [i, f] of zero.entries()) {
      const size = vp8Size(f.chunk.data);
      if (!size) continue;
      const name = `${size.width}x${size.height}`;
      if (sizes.at(-1) !== name) {
        sizes.push(name);
        expect(f.chunk.key, `frame ${i}`).toBe(true);
      }
    }
    expect(sizes).toEqual(['640x360', '320x180', '160x90']);
    const ones = cam.filter((s) => s.frame.layer === 1).map((s) => vp8Size(decodeEvc1(s.frame.payload).data));
    expect(ones.filter(Boolean).map((s) => `${s!.width}x${s!.height}`)).toEqual(
      expect.arrayContaining(['320x180', '160x90']),
    );
    expect(
      cam.some(
        (s) => s.frame.layer === 2 && s.at > zero.find((f) => vp8Size(f.chunk.data)?.width === 320)!.at,
      ),
    ).toBe(false);

    const dir = mkdtempSync(join(tmpdir(), 'vss-bot-layers-'));
    scratch.push(dir);
    const file = join(dir, 'steps.mp4');
    await eventually(
      async () => (await api(server, 'GET', `/v1/sessions/${sessionId}`)).data.ended_at,
      20_000,
      'the session to end',
    );
    await exportTo(server.app, server.key, sessionId, file);
    {
      const t1 = stepAt2('320x180').at, t2 = stepAt2('160x90').at, t0 = zero[0]!.at, t3 = zero.at(-1)!.at;
      for (const [a, b] of [[t0 + 500, t1], [t1 + 500, t2], [t2 + 500, t3]]) {
        const w = r.sent.filter((x) => x.at >= a! && x.at < b!);
        const kb = (f: (x: Sent) => boolean) => Math.round((w.filter(f).reduce((n, x) => n + x.wireBytes, 0) * 8) / (b! - a!));
        console.log(`[vss] MEASURE ${(b! - a!) / 1000}s total ${kb(() => true)} kbit/s, cam0 ${kb((x) => x.frame.streamType.endsWith('cam') && !x.frame.layer)}, cam1 ${kb((x) => x.frame.layer === 1)}, cam2 ${kb((x) => x.frame.layer === 2)}, mic ${kb((x) => x.frame.streamType.endsWith('mic'))}`);
      }
    }
    const info = await probe(file);
    expect(info.durationS).toBeGreaterThan(7);
    // The layout shows the one camera over the whole 1280x720 picture. The test pattern's six
    // bars, sampled in their upper part (away from its clock and moving marks), must be there at
    // 640x360 (before 3 s), at 320x180 (after the first step) and at 160x90 (after the second):
    // the decoder went on across each change of size.
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
    const showsPattern = (i: number) =>
      order.filter((name, b) => nearest(video.at(i, Math.round(((b + 0.5) * 1280) / 6), 300), bars) === name)
        .length >= 5;
    const stepAt = (size: string) =>
      zero.find(
        (f) => f.chunk.key && `${vp8Size(f.chunk.data)!.width}x${vp8Size(f.chunk.data)!.height}` === size,
      )!;
    // Export time 0 is the first media frame, the bot's audio at its join: its clock's origin.
    const micStart = decodeEvc1(
      r.sent.find((s) => s.frame.streamType === 'media/bot-1/mic')!.frame.payload,
    ).timestampUs;
    const frameAt = (us: number) => Math.round(((us - micStart) / 1e6) * 15);
    const windows = [
      [zero[0]!.chunk.timestampUs, stepAt('320x180').chunk.timestampUs],
      [stepAt('320x180').chunk.timestampUs, stepAt('160x90').chunk.timestampUs],
      [stepAt('160x90').chunk.timestampUs, zero.at(-1)!.chunk.timestampUs],
    ];
    for (const [w, [from, to]] of windows.entries()) {
      const frames = [];
      for (let i = frameAt(from!) + 2; i < Math.min(frameAt(to!) - 1, video.frames.length); i++)
        frames.push(i);
      expect(frames.length, `step ${w}`).toBeGreaterThan(5);
      const good = frames.filter(showsPattern);
      expect(good.length, `step ${w}: frames ${frames.join(' ')} showing the pattern`).toBeGreaterThanOrEqual(
        frames.length * 0.8,
      );
    }
    // The tone of bot-1, 300 Hz, throughout.
    const audio = await decodeAudio(file);
    expect(rms(audio, 1, 7)).toBeGreaterThan(1000);
    expect(pitch(audio, 1, 7)).toBeGreaterThan(285);
    expect(pitch(audio, 1, 7)).toBeLessThan(315);
  }, 60_000);

  it('on a slow uplink steps down to the smaller pictures, audio going on, and back up once the link is fast again', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const controller = new AbortController();
    const events: BotEvent[] = [];
    const run = runBots({
      ...options(sessionId, baseUrl, events),
      durationS: 120,
      signal: controller.signal,
    });
    /** the size of layer 0's latest key frame on the wire, and when it came */
    const latest = () => {
      const keys = r.sent.filter(
        (s) =>
          s.frame.streamType === 'media/bot-1/cam' &&
          !s.frame.layer &&
          vp8Size(decodeEvc1(s.frame.payload).data),
      );
      const k = keys.at(-1);
      return k ? { at: k.at, width: vp8Size(decodeEvc1(k.frame.payload).data)!.width } : null;
    };
    try {
      await eventually(() => latest()?.width === 640, 20_000, 'layer 0 at 640x360');
      // The link now carries 250 kbit/s: less than the three layers (about 600 kbit/s), more than
      // the smaller ones with the audio.
      const slowFrom = Date.now();
      r.rateKbps = 250;
      await eventually(() => (latest()?.width ?? 640) < 640, 20_000, 'layer 0 to step down');
      const steppedAfterMs = latest()!.at - slowFrom;
      r.rateKbps = null;
      const fastFrom = Date.now();
      await eventually(
        () => latest()?.width === 640 && latest()!.at > fastFrom,
        40_000,
        'layer 0 back at 640x360',
      );
      console.log(
        `[vss] stepped down ${steppedAfterMs} ms after the link slowed; back up ${latest()!.at - fastFrom} ms after it was fast`,
      );
    } finally {
      controller.abort();
    }
    const report = await run;
    const [bot] = report.bots;
    for (const e of bot!.errors) expect(e).toMatch(/acks still outstanding/);
    expect(bot!.stepChanges).toBeGreaterThanOrEqual(2);
    // Audio was never dropped for the video: every 20 ms frame went out, in order.
    const mic = r.sent
      .filter((s) => s.frame.streamType === 'media/bot-1/mic')
      .map((s) => decodeEvc1(s.frame.payload).timestampUs);
    expect(mic.length).toBeGreaterThan(100);
    const gaps = mic.flatMap((t, i) => (i > 0 && t - mic[i - 1]! !== 20_000 ? [`${mic[i - 1]} -> ${t}`] : []));
    expect(gaps).toEqual([]);
  }, 120_000);

  it('--layers 1 sends layer 0 alone', async () => {
    const { relay: r, baseUrl } = await relay();
    const sessionId = await newSession();
    const report = await runBots({ ...options(sessionId, baseUrl), durationS: 2, layers: 1 });
    expect(report.bots[0]!.errors).toEqual([]);
    expect(report.bots[0]!.relayedFrames).toBe(0);
    const cam = r.sent.filter((s) => s.frame.streamType === 'media/bot-1/cam');
    expect(cam.length).toBeGreaterThan(15);
    expect(cam.every((s) => s.frame.layer === undefined)).toBe(true);
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
