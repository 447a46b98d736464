/**
 * Running ffmpeg for the bots: finding it, its arguments for the video encodings, the probe that
 * runs before any bot joins, and starting and ending its processes (video.ts and opus.ts run them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * No ffmpeg to run: a problem of the machine's setup, not of the service or of a bot, so that a
 * caller can tell it apart (`vss bot` answers it as a usage error).
 */
export class FfmpegNotFoundError extends Error {
  override readonly name = 'FfmpegNotFoundError';
}

/** A video file ffmpeg cannot decode: a bad input, found before any bot joins. */
export class VideoInputError extends Error {
  override readonly name = 'VideoInputError';
}

/**
 * The ffmpeg binary: FFMPEG_PATH when set, else the first `ffmpeg` on PATH. Throws a one-line
 * FfmpegNotFoundError otherwise.
 */
export function findFfmpeg(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.FFMPEG_PATH;
  if (configured) {
    if (!isExecutableFile(configured))
      throw new FfmpegNotFoundError(`FFMPEG_PATH is ${configured}, which is not an executable file`);
    return configured;
  }
  const name = process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutableFile(join(dir, name))) return join(dir, name);
  }
  throw new FfmpegNotFoundError(
    'ffmpeg not found: install ffmpeg (e.g. apt install ffmpeg) or set FFMPEG_PATH to its binary',
  );
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What to encode and how. */
export interface VideoSpec {
  /** a file to decode and loop; absent: the testsrc2 pattern (moving, with a running clock) */
  file?: string;
  width: number;
  height: number;
  fps: number;
  bitrateKbps: number;
  /** how many encodings (simulcast layers) to make of each picture: 1 to 3 */
  layers: number;
}

/** One of the encodings ffmpeg makes of each picture. */
export interface Encoding {
  width: number;
  height: number;
  bitrateKbps: number;
  /** frames between key frames (of this encoding's own frames) */
  gop: number;
  /** encodes one picture in this many (the floor: one in three), the others not at all; default 1 */
  every?: number;
}

/** Whether encoding `e` makes a frame of the picture at `ptsUs` (the same rule as its filter's). */
export const encodes = (e: Encoding, ptsUs: number, fps: number): boolean =>
  (e.every ?? 1) === 1 || Math.round((ptsUs * fps) / 1e6) % e.every! === 0;

/** Halves a side `times` times, keeping it even (4:2:0 needs even sides) and at least 2. */
const reduce = (side: number, times: number): number => Math.max(2, 2 * Math.round(side / 2 ** times / 2));

/** The floor encoding's bitrate: a fifth of layer 0's, at least 50 kbit/s (and never above it). */
export const floorKbps = (bitrateKbps: number): number =>
  Math.min(bitrateKbps, Math.max(50, Math.round(bitrateKbps / 5)));
/** The floor encodes one picture in this many: a third of the frame rate. */
export const FLOOR_EVERY = 3;

/**
 * The encodings, largest first: the bot's size at its bitrate with a key frame every 2 s, then half
 * and a quarter of the width and height at about 150 and 50 kbit/s with a key frame every second.
 * Why the reduced ones get key frames twice as often: ffmpeg's libvpx takes no key-frame command
 * while it runs, so a receiver (or the uplink adaptation) that needs to start on a reduced layer
 * waits for the next periodic one; at most a second.
 *
 * With reduced layers, one more comes last: the floor, the bot's full size at a third of its frame
 * rate and a fifth of its bitrate, with a key frame every 2 s, on the same pictures as layer 0's
 * (so that layer 0 changes encoding without waiting longer than it would for its own). It is what
 * layer 0 (the recorded camera) carries when the uplink cannot take the
 * full rate: the recording goes on at the same size, slower and blurrier, instead of stopping. Why
 * a third of the frame rate: at the full rate libvpx spends about 200 kbit/s on 640x360 whatever
 * it is asked (measured on the test pattern), more than a 300 kbit/s uplink leaves beside the
 * audio; at 5 fps it keeps near 90 (a key frame a second would make it 113). Why a second encoding rather than changing layer 0's bitrate:
 * ffmpeg's libvpx takes no new bitrate while it runs, and a change of picture size would cost the
 * export its sound for some seconds (layers.ts).
 */
export function encodingsOf(spec: VideoSpec): Encoding[] {
  const all: Encoding[] = [
    { width: spec.width, height: spec.height, bitrateKbps: spec.bitrateKbps, gop: 2 * spec.fps },
    { width: reduce(spec.width, 1), height: reduce(spec.height, 1), bitrateKbps: 150, gop: spec.fps },
    { width: reduce(spec.width, 2), height: reduce(spec.height, 2), bitrateKbps: 50, gop: spec.fps },
  ];
  const layers = all.slice(0, spec.layers);
  if (spec.layers < 2) return layers;
  return [
    ...layers,
    {
      width: spec.width,
      height: spec.height,
      bitrateKbps: floorKbps(spec.bitrateKbps),
      gop: Math.max(1, Math.round((2 * spec.fps) / FLOOR_EVERY)),
      every: FLOOR_EVERY,
    },
  ];
}

/** The pipe (file descriptor) encoding `i` is written to: stdout, then fds 3, 4, 5. */
export const pipeOf = (i: number): number => (i === 0 ? 1 : i + 2);

function vp8Args(e: Encoding): string[] {
  return [
    '-c:v',
    'libvpx',
    // Real-time settings, as a browser's encoder runs: no look-ahead (so no alternate reference
    // frames: every IVF record is one shown frame), error resilience. The fastest speed VP8 has
    // (16): the three encodings then take less CPU than one did at 8 (measured: 2.9 against 3.8
    // CPU seconds per 10 s at 640x360), and a test pattern looks the same.
    '-deadline',
    'realtime',
    '-cpu-used',
    '16',
    '-lag-in-frames',
    '0',
    '-auto-alt-ref',
    '0',
    '-error-resilient',
    '1',
    '-b:v',
    `${e.bitrateKbps}k`,
    // Key frames at a fixed interval, exactly: a bot that joins or reconnects waits for one at
    // most that long, and the encodings' key frames fall on the same pictures.
    '-g',
    String(e.gop),
    '-keyint_min',
    String(e.gop),
  ];
}

/**
 * ffmpeg arguments. One process decodes (or draws) each picture once, splits it and encodes every
 * encoding, so all of them carry the same pts for the same picture and cost one decoder. `probe`
 * encodes one frame of the largest to nothing, as fast as it can: it proves that the input decodes
 * and that libvpx is there, before any bot joins the session.
 */
export function ffmpegArgs(spec: VideoSpec, probe: boolean): string[] {
  const { file, width: w, height: h, fps } = spec;
  // `-re` reads the input at its own rate, so frames leave ffmpeg in real time, as from a camera.
  const pace = probe ? [] : ['-re'];
  const input = file
    ? [...pace, ...(probe ? [] : ['-stream_loop', '-1']), '-i', file]
    : [...pace, '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=${fps}`];
  // A file keeps its aspect ratio inside the bot's frame; the fps filter gives one constant rate.
  const base = file
    ? `[0:v:0]scale=${w}:${h}:force_original_aspect_ratio=decrease:force_divisible_by=2,` +
      `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,fps=${fps},format=yuv420p`
    : '[0:v:0]format=yuv420p';
  const encodings = probe ? encodingsOf({ ...spec, layers: 1 }) : encodingsOf(spec);
  const n = encodings.length;
  const split = n > 1 ? `,split=${n}${encodings.map((_, i) => `[s${i}]`).join('')}` : '[s0]';
  // Why bilinear: the reduced pictures are small previews; it costs a fraction of bicubic.
  // The floor keeps the full size and takes one picture in `every`, chosen by its time (encodes()).
  const scales = encodings
    .slice(1)
    .map((e, j) =>
      e.every
        ? `;[s${j + 1}]select=eq(mod(round(t*${fps})\\,${e.every})\\,0)[e${j + 1}]`
        : `;[s${j + 1}]scale=${e.width}:${e.height}:flags=bilinear[e${j + 1}]`,
    );
  const graph = base + split + scales.join('');
  const outputs = encodings.flatMap((e, i) => [
    '-map',
    i === 0 ? '[s0]' : `[e${i}]`,
    ...vp8Args(e),
    // The floor's pictures keep their times: ffmpeg would otherwise repeat each to the full rate.
    ...(e.every ? ['-fps_mode', 'passthrough'] : []),
    // Each frame leaves as soon as it is encoded: a pipe's output is otherwise held in a 32 KiB
    // buffer, seconds of the smallest layer.
    ...(probe
      ? ['-frames:v', '1', '-f', 'null', '-']
      : ['-flush_packets', '1', '-f', 'ivf', `pipe:${pipeOf(i)}`]),
  ]);
  return ['-hide_banner', '-nostdin', '-loglevel', 'error', ...input, '-filter_complex', graph, ...outputs];
}

/** Keeps the end of ffmpeg's stderr: with `-loglevel error` its last line names what went wrong. */
function stderrTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    tail = (tail + d).slice(-4096);
  });
  return () =>
    tail
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? '';
}

export function exitText(code: number | null, signal: NodeJS.Signals | null, last: string): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return last ? `${last} (ffmpeg ${how})` : `ffmpeg ${how}`;
}

/** Ends a child: SIGTERM, then SIGKILL if it has not gone after `graceMs`; resolves once it has exited. */
export async function endChild(child: ChildProcess, exited: Promise<void>, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), graceMs)));
  if ((await Promise.race([exited.then(() => 'gone' as const), late])) === 'late') child.kill('SIGKILL');
  clearTimeout(timer);
  // Why wait for the exit event: only then has Node reaped the process; a test (or a user with
  // `ps`) must not find it afterwards.
  return exited;
}

/**
 * Spawns ffmpeg with `outputs` pipes to read (stdout, then fds 3, 4, …); `exited` resolves once the
 * process is gone (also when it never started).
 */
export function start(ffmpeg: string, args: string[], outputs = 1) {
  const extra = Array.from({ length: Math.max(0, outputs - 1) }, () => 'pipe' as const);
  const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe', ...extra] });
  let spawnError: Error | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (err) => {
      spawnError = err;
      // A failed spawn emits no exit event.
      if (child.pid === undefined) resolve();
    });
    child.once('exit', () => resolve());
  });
  return { child, exited, spawnError: () => spawnError, last: stderrTail(child) };
}

/**
 * Runs the probe; rejects with ffmpeg's own last words. Ends early (resolving) when `signal`
 * aborts. `onSpawn` learns the process id.
 */
export async function probe(
  ffmpeg: string,
  spec: VideoSpec,
  signal: AbortSignal | undefined,
  onSpawn: (pid: number, args: string[]) => void,
  timeoutMs = 20_000,
): Promise<void> {
  const args = ffmpegArgs(spec, true);
  const p = start(ffmpeg, args);
  if (p.child.pid !== undefined) onSpawn(p.child.pid, args);
  const stop = () => void endChild(p.child, p.exited);
  signal?.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, timeoutMs);
  try {
    await p.exited;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
  if (signal?.aborted) return;
  const err = p.spawnError();
  if (err) throw new Error(`cannot run ${ffmpeg}: ${err.message}`);
  if (p.child.exitCode === 0) return;
  const what = spec.file ? `cannot use ${spec.file} as video` : 'cannot encode the VP8 test pattern';
  const Failure = spec.file ? VideoInputError : Error;
  if (p.child.signalCode) throw new Failure(`${what}: ffmpeg did not finish within ${timeoutMs / 1000} s`);
  throw new Failure(`${what}: ${exitText(p.child.exitCode, null, p.last())}`);
}
