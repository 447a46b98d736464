/**
 * The bots' video: one ffmpeg process encodes VP8 (what browsers send) in real time, from a test
 * pattern or a looped video file, and writes IVF to a pipe; every frame is handed to every bot.
 * Encoding once and fanning the same frames out is what lets `--count 50` cost one encoder, not 50.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { IvfReader, type IvfFrame } from './ivf.js';

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
}

/**
 * ffmpeg arguments. `probe` encodes one frame to nothing, as fast as it can: it proves that the
 * input decodes and that libvpx is there, before any bot joins the session.
 */
export function ffmpegArgs(spec: VideoSpec, probe: boolean): string[] {
  const { file, width: w, height: h, fps } = spec;
  // `-re` reads the input at its own rate, so frames leave ffmpeg in real time, as from a camera.
  const pace = probe ? [] : ['-re'];
  const input = file
    ? [...pace, ...(probe ? [] : ['-stream_loop', '-1']), '-i', file]
    : [...pace, '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=${fps}`];
  // A file keeps its aspect ratio inside the bot's frame; the fps filter gives one constant rate.
  const filter = file
    ? `scale=${w}:${h}:force_original_aspect_ratio=decrease:force_divisible_by=2,` +
      `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,fps=${fps},format=yuv420p`
    : 'format=yuv420p';
  const gop = String(2 * fps);
  const vp8 = [
    '-c:v',
    'libvpx',
    // Real-time settings, as a browser's encoder runs: fastest speed, no look-ahead (so no
    // alternate reference frames: every IVF record is one shown frame), error resilience.
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-lag-in-frames',
    '0',
    '-auto-alt-ref',
    '0',
    '-error-resilient',
    '1',
    '-b:v',
    `${spec.bitrateKbps}k`,
    // A key frame every 2 s, exactly: a bot that joins or reconnects waits for one at most that long.
    '-g',
    gop,
    '-keyint_min',
    gop,
  ];
  const output = probe ? ['-frames:v', '1', '-f', 'null', '-'] : ['-f', 'ivf', 'pipe:1'];
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    ...input,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    filter,
    ...vp8,
    ...output,
  ];
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

function exitText(code: number | null, signal: NodeJS.Signals | null, last: string): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return last ? `${last} (ffmpeg ${how})` : `ffmpeg ${how}`;
}

/** Ends a child: SIGTERM, then SIGKILL if it has not gone after `graceMs`; resolves once it has exited. */
async function endChild(child: ChildProcess, exited: Promise<void>, graceMs = 2000): Promise<void> {
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

/** Spawns ffmpeg; `exited` resolves once the process is gone (also when it never started). */
function start(ffmpeg: string, args: string[]) {
  const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** A frame as the bots get it. */
export interface VideoFrame extends IvfFrame {
  durationUs: number;
}

/** The running encoder: subscribe to its frames; `stop()` ends the process. */
export class VideoEncoder {
  readonly pid: number | undefined;
  readonly args: string[];
  private readonly proc: ReturnType<typeof start>;
  private readonly listeners = new Set<(frame: VideoFrame) => void>();
  private readonly endListeners = new Set<(error: Error | null) => void>();
  private readonly durationUs: number;
  private stopping = false;
  private ended = false;

  constructor(ffmpeg: string, spec: VideoSpec) {
    this.args = ffmpegArgs(spec, false);
    this.durationUs = Math.round(1e6 / spec.fps);
    this.proc = start(ffmpeg, this.args);
    this.pid = this.proc.child.pid;
    const reader = new IvfReader();
    this.proc.child.stdout!.on('data', (chunk: Buffer) => {
      let frames: IvfFrame[];
      try {
        frames = reader.push(chunk);
      } catch (err) {
        this.end(err as Error);
        void this.stop();
        return;
      }
      for (const f of frames) {
        const frame = { ...f, durationUs: this.durationUs };
        for (const fn of this.listeners) fn(frame);
      }
    });
    void this.proc.exited.then(() => {
      const { child } = this.proc;
      const err = this.proc.spawnError();
      if (this.stopping) this.end(null);
      else if (err) this.end(new Error(`cannot run ${ffmpeg}: ${err.message}`));
      else
        this.end(
          new Error(
            `the video encoder stopped: ${exitText(child.exitCode, child.signalCode, this.proc.last())}`,
          ),
        );
    });
  }

  /** Calls `fn` with every encoded frame; returns the unsubscribe function. */
  onFrame(fn: (frame: VideoFrame) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Calls `fn` once when the encoder ends: null when stopped, an Error when it failed on its own. */
  onEnd(fn: (error: Error | null) => void): void {
    this.endListeners.add(fn);
  }

  /** Ends ffmpeg (SIGTERM, then SIGKILL) and resolves once the process is gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.listeners.clear();
    await endChild(this.proc.child, this.proc.exited);
  }

  private end(error: Error | null): void {
    if (this.ended) return;
    this.ended = true;
    for (const fn of this.endListeners) fn(error);
    this.endListeners.clear();
  }
}
