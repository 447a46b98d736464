/**
 * The recording the export benchmark renders, and the same media as plain files for the bare
 * ffmpeg command: per participant a 640x480 MJPEG camera at 15 fps (ffmpeg's testsrc2, each with
 * its own hue, encoded by that ffmpeg at -q:v 5, about 22 kB a frame) and an Opus
 * microphone (a sine tone, 20 ms packets). The files are made once per length and kept in
 * bench/.out; the recording is written from them into the server's stream store (JPEGs as they
 * are, Opus packets in EVC1), frame k of a camera at floor(k·1000/15) ms so that both sides show
 * the same picture in every output frame.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readSync, closeSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { encodeEvc1 } from '@vss/client';
import { locateFfmpeg, type StreamEvent, type StreamStore } from '@vss/server/tools';
import { ROOT } from './server.ts';

/** The ffmpeg both sides use: the one the server chooses by default (PATH's, else the bundled one). */
export const FFMPEG_FOUND = locateFfmpeg(null, process.env.PATH ?? '');
export const FFMPEG = FFMPEG_FOUND.path;

export const CAM_FPS = 15;
export const PARTICIPANTS = 4;

export interface MediaFiles {
  dir: string;
  cams: string[];
  mics: string[];
}

/** Makes (or finds) the media files of a `minutes`-long recording. */
export function mediaFiles(minutes: number, log: (line: string) => void): MediaFiles {
  const dir = join(ROOT, 'bench/.out', `export-media-${minutes}m`);
  mkdirSync(dir, { recursive: true });
  const cams = Array.from({ length: PARTICIPANTS }, (_, p) => join(dir, `cam${p}.mjpeg`));
  const mics = Array.from({ length: PARTICIPANTS }, (_, p) => join(dir, `mic${p}.ogg`));
  const make = (file: string, args: string[]) => {
    if (existsSync(file) && statSync(file).size > 0) return;
    const tmp = `${file}.tmp`;
    const r = spawnSync(FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', ...args, tmp], {
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error(`ffmpeg could not make ${file}`);
    renameSync(tmp, file);
  };
  const t0 = performance.now();
  for (let p = 0; p < PARTICIPANTS; p++) {
    make(cams[p]!, [
      '-f',
      'lavfi',
      '-i',
      `testsrc2=s=640x480:r=${CAM_FPS},hue=h=${p * 90}`,
      '-t',
      String(minutes * 60),
      '-c:v',
      'mjpeg',
      '-q:v',
      '5',
      '-f',
      'mjpeg',
    ]);
    make(mics[p]!, [
      '-f',
      'lavfi',
      '-i',
      `sine=f=${300 + p * 110}:r=48000`,
      '-t',
      String(minutes * 60),
      '-c:a',
      'libopus',
      '-b:a',
      '32k',
      '-frame_duration',
      '20',
      '-f',
      'ogg',
    ]);
  }
  const s = (performance.now() - t0) / 1000;
  if (s > 1) log(`export: media files made in ${s.toFixed(1)} s (${dir})`);
  return { dir, cams, mics };
}

/** Reads a file in order, 8 MiB at a time. */
function* chunksOf(file: string): Generator<Buffer> {
  const fd = openSync(file, 'r');
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(8 << 20);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) return;
      yield buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The JPEGs of an MJPEG file, one by one: marker segments are skipped by their lengths up to the
 * scan, whose entropy-coded data ends at the first marker other than a stuffed 0xFF00 or RSTn.
 */
export function* jpegFrames(file: string): Generator<Buffer> {
  let buf: Buffer = Buffer.alloc(0);
  let eof = false;
  const chunks = chunksOf(file);
  const fill = () => {
    const next = chunks.next();
    if (next.done) eof = true;
    else buf = buf.length ? Buffer.concat([buf, next.value]) : next.value;
  };
  try {
    for (;;) {
      if (buf.length < 4 && !eof) fill();
      if (buf.length < 4) return;
      if (buf[0] !== 0xff || buf[1] !== 0xd8) throw new Error(`${file}: not an MJPEG stream`);
      let o = 2;
      let end = -1;
      for (;;) {
        while (o + 4 > buf.length && !eof) fill();
        if (o + 4 > buf.length) throw new Error(`${file}: truncated JPEG`);
        const marker = buf[o + 1]!;
        const len = buf.readUInt16BE(o + 2);
        if (marker !== 0xda) {
          o += 2 + len;
          continue;
        }
        o += 2 + len;
        for (;;) {
          while (o + 2 > buf.length && !eof) fill();
          if (o + 2 > buf.length) throw new Error(`${file}: truncated scan`);
          if (buf[o] === 0xff) {
            const m = buf[o + 1]!;
            if (m !== 0x00 && !(m >= 0xd0 && m <= 0xd7)) {
              end = m === 0xd9 ? o + 2 : o;
              break;
            }
            o += 2;
          } else o += 1;
        }
        break;
      }
      yield Buffer.from(buf.subarray(0, end));
      buf = buf.subarray(end);
    }
  } finally {
    // Stopped early (a shorter recording): its file is closed.
    chunks.return(undefined);
  }
}

/** The packets of an Ogg Opus file, without OpusHead and OpusTags. */
export function* opusPackets(file: string): Generator<Buffer> {
  let buf: Buffer = Buffer.alloc(0);
  let pending: Buffer[] = [];
  let index = 0;
  for (const chunk of chunksOf(file)) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let o = 0;
    while (o + 27 <= buf.length) {
      const segments = buf[o + 26]!;
      if (o + 27 + segments > buf.length) break;
      let size = 0;
      for (let i = 0; i < segments; i++) size += buf[o + 27 + i]!;
      if (o + 27 + segments + size > buf.length) break;
      let p = o + 27 + segments;
      for (let i = 0; i < segments; i++) {
        const len = buf[o + 27 + i]!;
        pending.push(buf.subarray(p, p + len));
        p += len;
        if (len < 255) {
          const packet = Buffer.concat(pending);
          pending = [];
          if (index++ >= 2) yield packet;
        }
      }
      o = p;
    }
    buf = Buffer.from(buf.subarray(o));
  }
}

/** What was written into the store. */
export interface Written {
  events: number;
  camFrames: number;
  micPackets: number;
  payloadBytes: number;
  /** ms from the first media frame to the last */
  spanMs: number;
}

/**
 * Writes the recording into `store` in time order (seq 1, 2, … as a live session would number
 * it), 2,000 events a batch: cameras at floor(k·1000/15) ms, microphones at 20 ms steps. With
 * `limitMs`, only the media stamped in its first `limitMs` (a shorter recording of the same media).
 */
export async function writeRecording(
  store: StreamStore,
  sessionId: string,
  media: MediaFiles,
  epochMs: number,
  limitMs = Infinity,
): Promise<Written> {
  const cams = media.cams.map((f) => jpegFrames(f));
  const mics = media.mics.map((f) => opusPackets(f));
  type Next = { ts: number; p: number; cam: boolean; k: number; body: Buffer };
  const heads: Array<Next | null> = [];
  const pull = (p: number, cam: boolean, k: number): Next | null => {
    if ((cam ? Math.floor((k * 1000) / CAM_FPS) : k * 20) >= limitMs) return null;
    const it = cam ? cams[p]! : mics[p]!;
    const r = it.next();
    if (r.done) return null;
    const body = cam
      ? r.value
      : Buffer.from(
          encodeEvc1({
            key: true,
            codec: 'opus',
            timestampUs: k * 20_000,
            durationUs: 20_000,
            description: new Uint8Array(0),
            data: r.value,
          }),
        );
    return { ts: epochMs + (cam ? Math.floor((k * 1000) / CAM_FPS) : k * 20), p, cam, k, body };
  };
  for (let p = 0; p < media.cams.length; p++) heads.push(pull(p, true, 0), pull(p, false, 0));
  let seq = 0;
  let batch: StreamEvent[] = [];
  const out: Written = { events: 0, camFrames: 0, micPackets: 0, payloadBytes: 0, spanMs: 0 };
  let last = epochMs;
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h && (best < 0 || h.ts < heads[best]!.ts)) best = i;
    }
    if (best < 0) break;
    const h = heads[best]!;
    seq++;
    batch.push({
      sessionId,
      seq,
      streamId: `media/participant-${h.p}/${h.cam ? 'cam' : 'mic'}`,
      ts: h.ts,
      body: h.body,
    });
    out.events++;
    if (h.cam) out.camFrames++;
    else out.micPackets++;
    out.payloadBytes += h.body.length;
    last = Math.max(last, h.ts);
    heads[best] = pull(h.p, h.cam, h.k + 1);
    if (batch.length >= 2000) {
      await store.appendBatch(batch);
      batch = [];
    }
  }
  if (batch.length) await store.appendBatch(batch);
  for (const it of [...cams, ...mics]) it.return(undefined);
  out.spanMs = last - epochMs;
  return out;
}
