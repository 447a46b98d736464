import { execFile } from 'node:child_process';
import { ffmpeg, FFMPEG } from './media.js';

/** Decoding export output with ffmpeg: streams and duration, pixels, samples. */

/** What ffmpeg says about an MP4: its streams and duration. */
export async function probe(file: string): Promise<{ durationS: number; video: string; audio: string }> {
  const res = await new Promise<string>((resolve) =>
    execFile(FFMPEG, ['-hide_banner', '-i', file], (_err, _stdout, stderr) => resolve(stderr)),
  );
  const d = /Duration: (\d+):(\d+):(\d+\.\d+)/.exec(res);
  return {
    durationS: d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : NaN,
    video: /Stream #0:\d.*Video: (.*)/.exec(res)?.[1] ?? '',
    audio: /Stream #0:\d.*Audio: (.*)/.exec(res)?.[1] ?? '',
  };
}

/** Every video frame of an MP4, decoded at a quarter of its size as RGB. */
export interface Decoded {
  width: number;
  height: number;
  frames: Buffer[];
  /** the colour at (x, y) of the full-size picture in frame `i` */
  at(i: number, x: number, y: number): [number, number, number];
}

export async function decodeVideo(file: string, width: number, height: number): Promise<Decoded> {
  const w = width / 4;
  const h = height / 4;
  const { stdout } = await ffmpeg([
    '-i',
    file,
    '-vf',
    `scale=${w}:${h}`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-',
  ]);
  const size = w * h * 3;
  const frames: Buffer[] = [];
  for (let o = 0; o + size <= stdout.length; o += size) frames.push(stdout.subarray(o, o + size));
  return {
    width,
    height,
    frames,
    at(i, x, y) {
      const f = frames[i]!;
      const p = (Math.floor(y / 4) * w + Math.floor(x / 4)) * 3;
      return [f[p]!, f[p + 1]!, f[p + 2]!];
    },
  };
}

/** The audio of an MP4 as mono 16-bit samples at 8 kHz. */
export async function decodeAudio(file: string): Promise<Int16Array> {
  const { stdout } = await ffmpeg(['-i', file, '-vn', '-ac', '1', '-ar', '8000', '-f', 's16le', '-']);
  return new Int16Array(stdout.buffer, stdout.byteOffset, Math.floor(stdout.length / 2));
}

/** Root mean square of the samples between two times (seconds), 0 to 32768. */
export function rms(samples: Int16Array, fromS: number, toS: number): number {
  const a = Math.floor(fromS * 8000);
  const b = Math.min(samples.length, Math.floor(toS * 8000));
  let sum = 0;
  for (let i = a; i < b; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, b - a));
}

/** How strong `hz` is in decodeAudio's 8 kHz samples (Goertzel), as an amplitude comparable to RMS. */
export function toneLevel(samples: Int16Array, hz: number): number {
  const w = (2 * Math.PI * hz) / 8000;
  const c = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (const x of samples) {
    const s0 = x + c * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (2 * Math.sqrt(Math.max(0, s1 * s1 + s2 * s2 - c * s1 * s2))) / samples.length;
}

/** The name of the colour nearest to `rgb` among `palette`, and how far it is. */
export function nearest(
  rgb: [number, number, number],
  palette: Record<string, [number, number, number]>,
): string {
  let best = '';
  let dist = Infinity;
  for (const [name, c] of Object.entries(palette)) {
    const d = Math.hypot(rgb[0] - c[0], rgb[1] - c[1], rgb[2] - c[2]);
    if (d < dist) {
      dist = d;
      best = name;
    }
  }
  return dist < 90 ? best : `none (${rgb.join(',')})`;
}
