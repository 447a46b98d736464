import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveClient } from '@vss/client';
import { encodeEvc1 } from '@vss/protocol';
import { WebSocket } from 'ws';
import { locateFfmpeg } from '../../src/modules/exports/ffmpeg.js';
import { call, type TestApp } from './app.js';
import { listen, token } from './live.js';
import { eventually } from './wait.js';

/** Making media for export tests: frames and packets with ffmpeg, and recording them live. */

/** The ffmpeg the service chooses on this machine (PATH's, else the bundled one): tests make and decode media with it too. */
export const FFMPEG = locateFfmpeg(null, process.env.PATH ?? '').path;

/** Runs ffmpeg; resolves with stdout (binary) and stderr. */
export function ffmpeg(args: string[]): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) =>
    execFile(
      FFMPEG,
      ['-hide_banner', '-nostdin', ...args],
      { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`ffmpeg ${args.join(' ')} failed: ${stderr.toString()}`));
        else resolve({ stdout, stderr: stderr.toString() });
      },
    ),
  );
}

/** One JPEG of a solid colour (an ffmpeg colour name or 0xRRGGBB). */
export async function solidJpeg(colour: string, size = '320x240'): Promise<Buffer> {
  const { stdout } = await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    `color=c=${colour}:s=${size}`,
    '-frames:v',
    '1',
    '-f',
    'mjpeg',
    '-',
  ]);
  return stdout;
}

/** A chunk of a WebCodecs encoder: its timestamp from the start of the track and its bytes. */
export interface Chunk {
  offsetUs: number;
  durationUs: number;
  key: boolean;
  data: Buffer;
}

/**
 * VP8 or VP9 of a solid colour, encoded by the bundled ffmpeg (libvpx), split into frames from its
 * IVF output. No alternate reference frames, so every IVF frame is one shown frame.
 */
export function vpxChunks(codec: 'vp8' | 'vp9', colour: string, seconds: number, fps = 15): Promise<Chunk[]> {
  return vpxOf(codec, `color=c=${colour}:s=320x240:r=${fps}`, seconds, fps);
}

/**
 * VP8 or VP9 of a test pattern whose colours turn all the time (ffmpeg's `testsrc` or `testsrc2`,
 * its hue rotating once a second), as a camera's encoder gives it: every inter frame changes every
 * block, so a decoder fed two encoders in turn draws visibly broken pictures.
 */
export function vpxPattern(
  codec: 'vp8' | 'vp9',
  pattern: 'testsrc' | 'testsrc2',
  seconds: number,
  fps = 15,
): Promise<Chunk[]> {
  return vpxOf(codec, `${pattern}=s=320x240:r=${fps},hue=H=2*PI*t`, seconds, fps);
}

async function vpxOf(codec: 'vp8' | 'vp9', source: string, seconds: number, fps: number): Promise<Chunk[]> {
  const { stdout } = await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    source,
    '-t',
    String(seconds),
    '-c:v',
    codec === 'vp8' ? 'libvpx' : 'libvpx-vp9',
    '-b:v',
    '300k',
    '-g',
    String(fps),
    '-auto-alt-ref',
    '0',
    '-f',
    'ivf',
    '-',
  ]);
  const out: Chunk[] = [];
  let o = 32; // IVF file header
  while (o + 12 <= stdout.length) {
    const n = stdout.readUInt32LE(o);
    const pts = Number(stdout.readBigUInt64LE(o + 4));
    const data = stdout.subarray(o + 12, o + 12 + n);
    // VP8 frame tag: bit 0 clear on key frames. VP9 (profile 0) uncompressed header: frame marker
    // 0b10, two profile bits, show_existing_frame, then frame_type, 0 on key frames.
    const key = codec === 'vp8' ? (data[0]! & 1) === 0 : (data[0]! & 0xcc) === 0x80;
    out.push({ offsetUs: Math.round((pts * 1e6) / fps), durationUs: Math.round(1e6 / fps), key, data });
    o += 12 + n;
  }
  return out;
}

/** H.264 (Annex B, no B-frames) of a solid colour, encoded by the bundled ffmpeg (libx264), one file per frame. */
export function h264Chunks(colour: string, seconds: number, fps = 15): Promise<Chunk[]> {
  return h264Of(`color=c=${colour}:s=320x240:r=${fps}`, seconds, fps);
}

/**
 * H.264 (Annex B, no B-frames) of any lavfi `source`, one chunk per frame, with a key frame every
 * `gop` frames and nowhere else (no scene-cut key frames: a test knows which frames are keys).
 */
export async function h264Of(source: string, seconds: number, fps: number, gop = fps): Promise<Chunk[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vss-h264-'));
  try {
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      source,
      '-t',
      String(seconds),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-bf',
      '0',
      '-g',
      String(gop),
      '-keyint_min',
      String(gop),
      '-sc_threshold',
      '0',
      '-f',
      'image2',
      join(dir, 'f%04d.h264'),
    ]);
    return readdirSync(dir)
      .sort()
      .map((name, i) => {
        const data = readFileSync(join(dir, name));
        // A key frame holds an IDR slice (NAL unit type 5).
        let key = false;
        for (let o = 0; o + 3 < data.length; o++)
          if (data[o] === 0 && data[o + 1] === 0 && data[o + 2] === 1 && (data[o + 3]! & 0x1f) === 5)
            key = true;
        return { offsetUs: Math.round((i * 1e6) / fps), durationUs: Math.round(1e6 / fps), key, data };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * H.264 as a WebCodecs encoder gives it with `avc: { format: 'avc' }`: the frames of h264Chunks
 * with every NAL unit length-prefixed (4 bytes) and the parameter sets moved into an avcC
 * description, and the codec string (`avc1.PPCCLL`) read from the SPS.
 */
export async function avccChunks(
  colour: string,
  seconds: number,
  fps = 15,
): Promise<{ codec: string; description: Uint8Array; chunks: Chunk[] }> {
  const annexB = await h264Chunks(colour, seconds, fps);
  const nals = (data: Buffer): Buffer[] => {
    const starts: Array<{ at: number; len: number }> = [];
    for (let o = 0; o + 2 < data.length; o++)
      if (data[o] === 0 && data[o + 1] === 0 && data[o + 2] === 1) {
        starts.push({ at: o + 3, len: o > 0 && data[o - 1] === 0 ? 4 : 3 });
        o += 2;
      }
    return starts.map((s, i) =>
      data.subarray(s.at, i + 1 < starts.length ? starts[i + 1]!.at - starts[i + 1]!.len : data.length),
    );
  };
  let sps: Buffer | undefined;
  let pps: Buffer | undefined;
  const chunks = annexB.map((c) => {
    const units = nals(c.data).filter((u) => {
      const type = u[0]! & 0x1f;
      if (type === 7) sps ??= u;
      if (type === 8) pps ??= u;
      return type !== 7 && type !== 8;
    });
    const data = Buffer.concat(
      units.flatMap((u) => {
        const len = Buffer.alloc(4);
        len.writeUInt32BE(u.length);
        return [len, u];
      }),
    );
    return { ...c, data };
  });
  if (!sps || !pps) throw new Error('libx264 wrote no SPS or PPS');
  const description = Buffer.concat([
    Buffer.from([1, sps[1]!, sps[2]!, sps[3]!, 0xff, 0xe1, sps.length >> 8, sps.length & 0xff]),
    sps,
    Buffer.from([1, pps.length >> 8, pps.length & 0xff]),
    pps,
  ]);
  const codec = `avc1.${[sps[1]!, sps[2]!, sps[3]!].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  return { codec, description, chunks };
}

/** Opus packets (20 ms) of a sine tone, encoded by the bundled ffmpeg (libopus), split from its Ogg output. */
export async function opusPackets(frequency: number, seconds: number): Promise<Chunk[]> {
  const { stdout } = await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    `sine=f=${frequency}:r=48000`,
    '-t',
    String(seconds),
    '-c:a',
    'libopus',
    '-b:a',
    '48k',
    '-frame_duration',
    '20',
    '-f',
    'ogg',
    '-',
  ]);
  const packets: Buffer[] = [];
  let pending: Buffer[] = [];
  let o = 0;
  while (o + 27 <= stdout.length && stdout.toString('ascii', o, o + 4) === 'OggS') {
    const segments = stdout[o + 26]!;
    let p = o + 27 + segments;
    for (let i = 0; i < segments; i++) {
      const len = stdout[o + 27 + i]!;
      pending.push(stdout.subarray(p, p + len));
      p += len;
      if (len < 255) {
        packets.push(Buffer.concat(pending));
        pending = [];
      }
    }
    o = p;
  }
  // The first two packets are OpusHead and OpusTags.
  return packets.slice(2).map((data, i) => ({ offsetUs: i * 20_000, durationUs: 20_000, key: true, data }));
}

/** pcm-s16 chunks (20 ms, mono, 16 kHz) of a sine tone. */
export function pcmChunks(frequency: number, seconds: number, sampleRate = 16_000): Chunk[] {
  const per = sampleRate / 50;
  const out: Chunk[] = [];
  for (let c = 0; c < Math.round(seconds * 50); c++) {
    const data = Buffer.alloc(per * 2);
    for (let i = 0; i < per; i++) {
      const n = c * per + i;
      data.writeInt16LE(Math.round(12_000 * Math.sin((2 * Math.PI * frequency * n) / sampleRate)), i * 2);
    }
    out.push({ offsetUs: c * 20_000, durationUs: 20_000, key: true, data });
  }
  return out;
}

/** Wraps a chunk in EVC1 with its timestamp on the track's clock. */
export function evc1(
  codec: string,
  chunk: Chunk,
  baseUs: number,
  description: Uint8Array = new Uint8Array(0),
): Buffer {
  const b = encodeEvc1({
    key: chunk.key,
    codec,
    timestampUs: baseUs + chunk.offsetUs,
    durationUs: chunk.durationUs,
    description,
    data: chunk.data,
  });
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** One message a participant publishes, at `atMs` after the recording's start. */
export interface Planned {
  user: string;
  atMs: number;
  stream: string;
  payload?: Buffer;
  /** a director command instead of a payload */
  director?: { type: 'director.focus'; data: { user_id: string } };
  /** unpublish the stream instead */
  unpublish?: boolean;
}

/** `seconds` of a solid-colour H.264 camera (EVC1), as the planned messages of `user`. */
export async function h264Camera(user: string, colour: string, seconds: number): Promise<Planned[]> {
  return (await h264Chunks(colour, seconds)).map((c) => ({
    user,
    atMs: c.offsetUs / 1000,
    stream: `media/${user}/cam`,
    payload: evc1('avc1.42c00c', c, 0),
  }));
}

/** `seconds` of a tone from a 16 kHz PCM microphone (EVC1), as the planned messages of `user`. */
export function pcmVoice(user: string, frequency: number, seconds: number): Planned[] {
  const description = new TextEncoder().encode(JSON.stringify({ sampleRate: 16_000, numberOfChannels: 1 }));
  return pcmChunks(frequency, seconds).map((c) => ({
    user,
    atMs: c.offsetUs / 1000,
    stream: `media/${user}/mic`,
    payload: evc1('pcm-s16', c, 0, description),
  }));
}

/**
 * Records a session through the live client: each participant connects (a late one when its first
 * message is due) and publishes with explicit media timestamps (start + atMs), in time order,
 * then everybody leaves and the test waits for the session to end. Returns the recording's start
 * (ms since 1970). Keep each participant under 400 messages: the server's per-connection burst.
 * `names`: the display name each user id joins with (none for the others).
 */
export async function recordSession(
  t: TestApp,
  key: string,
  sessionId: string,
  plan: Planned[],
  names: Record<string, string> = {},
): Promise<{ startMs: number }> {
  const base = await listen(t);
  const startMs = Date.now() - 60_000;
  const clients = new Map<string, LiveClient>();
  const client = async (user: string) => {
    let c = clients.get(user);
    if (c) return c;
    c = new LiveClient({
      url: base,
      session: sessionId,
      userId: user,
      format: 'binary',
      WebSocket: WebSocket as never,
      reconnect: false,
      token: () =>
        token(t, key, sessionId, user, names[user] === undefined ? {} : { display_name: names[user] }),
    });
    await c.connect();
    clients.set(user, c);
    return c;
  };
  const ordered = [...plan].sort((a, b) => a.atMs - b.atMs);
  for (const m of ordered) {
    const c = await client(m.user);
    const ts = startMs + m.atMs;
    if (m.unpublish) await c.unpublish(m.stream);
    else if (m.director) await c.publishDirector(m.director, { timestampMs: ts, ack: true });
    else await c.publish(m.stream, m.payload!, { timestampMs: ts, binary: true });
  }
  // Everything acknowledged is durably recorded: one acked message per participant closes the stream.
  for (const [user, c] of clients) await c.publishChat(`bye from ${user}`, { ack: true });
  for (const c of clients.values()) await c.close();
  await eventually(
    async () => {
      const res = await call(t, 'GET', `/v1/sessions`, { key });
      return res.body.data.find((s: { id: string; ended_at: string | null }) => s.id === sessionId)?.ended_at;
    },
    20_000,
    'the session to end',
  );
  return { startMs };
}
