import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { StreamStore } from '../../streams/store.js';
import type { Cuts } from './cuts.js';
import { MKV_FRAME_HEADER_BYTES, mkvFrameHeader, mkvHeader } from './matroska.js';
import type { Extent, ScannedTrack } from './scan.js';
import { TrackFramer } from './track-framer.js';

/** A render that ffmpeg refused or failed: its message and the end of ffmpeg's log. */
export class RenderError extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
  }
}

/**
 * Bytes a feed may queue in front of its pipe (a kernel pipe holds only 64 KiB, three camera
 * frames): ffmpeg keeps reading while this process is busy elsewhere (another track's page of
 * the store), and this process wakes once per 256 KiB drained, not once per frame.
 */
const FEED_AHEAD = 256 * 1024;
/** Frames are gathered into writes of about this size: one writev for many small audio packets. */
const WRITE_BATCH = 64 * 1024;

/**
 * Writes gathered chunks in one writev, waiting while too much is queued; false once the pipe is
 * gone. With room to spare it still lets the event loop turn before the feed reads on, since
 * reading the store and resolving promises never do: a feed that is never held back (a microphone,
 * whose whole track fits in FEED_AHEAD) would otherwise read all of its track in one go, thousands
 * of events, while the other pipes wait for the event loop to refill them.
 */
export function write(pipe: Writable, chunks: Uint8Array[]): Promise<boolean> {
  if (pipe.destroyed || pipe.writableEnded) return Promise.resolve(false);
  pipe.cork();
  for (const c of chunks) pipe.write(c);
  pipe.uncork();
  if (pipe.writableLength < FEED_AHEAD) return new Promise((resolve) => setImmediate(resolve, true));
  return new Promise((resolve) => {
    const done = () => {
      pipe.off('drain', done);
      pipe.off('close', done);
      resolve(!pipe.destroyed);
    };
    pipe.on('drain', done);
    pipe.on('close', done);
  });
}

/**
 * Feeds one recorded track into an ffmpeg input pipe: read from the store (within `extent`),
 * turned into frames on the export's clock by a TrackFramer, framed as Matroska (one frame per
 * cluster, with its time), gathered into batched writes. Ends the pipe when done; stops early when
 * ffmpeg closes it or `signal` aborts. Rejects when reading the store fails.
 */
export async function feedTrack(
  store: StreamStore,
  pipe: Writable,
  req: {
    sessionId: string;
    track: ScannedTrack;
    epochMs: number;
    cuts: Cuts;
    extent: Extent;
    signal: AbortSignal;
  },
): Promise<void> {
  pipe.on('error', () => {}); // EPIPE once ffmpeg has what it needs or has stopped: its exit says why
  const { track } = req;
  const framer = new TrackFramer(track.format, req.epochMs, req.cuts);
  // A clip's window, in the database: frames stamped outside it are not even read.
  const { fromMs, toMs } = req.cuts.window;
  const range = {
    streamId: track.streamId,
    fromSeq: req.extent.fromSeq,
    toSeq: req.extent.toSeq,
    fromTs: fromMs === -Infinity ? undefined : fromMs,
    toTs: toMs === Infinity ? undefined : toMs,
  };
  try {
    let batch: Uint8Array[] = [mkvHeader(track.format.mkv)];
    let bytes = 0;
    let open = true;
    for await (const e of store.read(req.sessionId, range)) {
      if (req.signal.aborted) break;
      const f = framer.frame(e.ts, e.body);
      if (!f) continue;
      batch.push(mkvFrameHeader(f.atUs, f.key, f.data.length), f.data);
      bytes += MKV_FRAME_HEADER_BYTES + f.data.length;
      if (bytes < WRITE_BATCH) continue;
      open = await write(pipe, batch);
      batch = [];
      bytes = 0;
      if (!open) break;
    }
    if (open && batch.length) await write(pipe, batch);
  } finally {
    pipe.end();
  }
}

/**
 * Starts ffmpeg so that it cannot outlive this process. Killed outright (SIGKILL, the OOM killer),
 * this process would otherwise leave its ffmpeg rendering for minutes: its inputs end, but the
 * graph pads every output frame up to the count it was given, while another process renders the
 * job again. Linux's PR_SET_PDEATHSIG is out of Node's reach, ffmpeg does not stop at the end of
 * its stdin, and it ignores SIGPIPE on its progress pipe. So ffmpeg runs under `sh`, which also
 * starts a watcher reading a pipe from this process (the child's stdin) that nothing is ever
 * written to: the read ends only when this process closes the pipe (`stop`) or dies, when the
 * kernel closes it, and the watcher then kills ffmpeg. The watcher holds none of ffmpeg's other
 * pipes; `sh` waits for ffmpeg and exits with its status, so this process sees ffmpeg's exit as
 * before. On Windows, which has no `sh`, ffmpeg runs directly and `stop` kills it.
 *
 * `stdio`: ffmpeg's stdout, stderr and its extra pipes (fd 3 on), as `spawn` takes them.
 */
export function spawnTied(
  command: string,
  args: string[],
  opts: { cwd?: string; stdio: Array<'pipe' | 'ignore'> },
): ChildProcess & { stop(): void } {
  if (process.platform === 'win32') {
    const child = spawn(command, args, { cwd: opts.cwd, stdio: ['ignore', ...opts.stdio] });
    return Object.assign(child, { stop: () => void child.kill('SIGKILL') });
  }
  const extra = opts.stdio.length - 2;
  const closeExtra = Array.from({ length: extra }, (_, k) => `${3 + k}>&-`).join(' ');
  const script = [
    // fd 9: the pipe from this process; ffmpeg itself reads nothing from stdin (-nostdin or not).
    'exec 9<&0 0</dev/null',
    '"$0" "$@" 9<&- &',
    'ffmpeg=$!',
    `{ while read -r _; do :; done; kill -KILL "$ffmpeg"; } <&9 >/dev/null 2>&1 ${closeExtra} &`,
    'watcher=$!',
    'exec 9<&-',
    'wait "$ffmpeg"',
    'code=$?',
    'kill "$watcher" 2>/dev/null',
    'exit "$code"',
  ].join('\n');
  const child = spawn('/bin/sh', ['-c', script, command, ...args], {
    cwd: opts.cwd,
    stdio: ['pipe', ...opts.stdio],
  });
  child.stdin!.on('error', () => {}); // closed by the watcher's end once ffmpeg is gone
  child.once('exit', () => child.stdin!.destroy());
  return Object.assign(child, { stop: () => void child.stdin!.destroy() });
}

/** The end of ffmpeg's log kept for an error. */
const LOG_TAIL = 4000;

/** One ffmpeg run with inputs fed through pipes: what `runFfmpeg` needs. */
export interface FfmpegRun {
  ffmpeg: string;
  args: string[];
  /** ffmpeg's working directory (the graph names its files relative to it) */
  cwd?: string;
  signal: AbortSignal;
  /** one writer per input pipe, fd 3 + k: it ends its pipe when done */
  feeds: Array<(pipe: Writable) => Promise<void>>;
  /** ffmpeg's stdout as it comes (ignored when absent) */
  onStdout?: (chunk: Buffer) => void;
  /** past `ms`, ffmpeg is stopped and the run fails with `message` */
  deadline?: { ms: number; message: string };
  /** what the run does, for the message of a failed exit ("ffmpeg failed measuring …") */
  doing?: string;
}

/**
 * Runs ffmpeg to its end with its inputs fed through pipes, the way every export step does: its
 * log's end kept for the error, stopped (SIGKILL) when `signal` aborts, when its deadline passes,
 * or when reading the recording for a feed fails. Rejects with the abort's reason when aborted,
 * else with a RenderError saying what failed and carrying the end of ffmpeg's log.
 */
export async function runFfmpeg(run: FfmpegRun): Promise<void> {
  if (run.signal.aborted) throw run.signal.reason;
  const child = spawnTied(run.ffmpeg, run.args, {
    cwd: run.cwd,
    stdio: [run.onStdout ? 'pipe' : 'ignore', 'pipe', ...run.feeds.map(() => 'pipe' as const)],
  });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString('utf8')).slice(-LOG_TAIL)));
  if (run.onStdout) child.stdout!.on('data', run.onStdout);
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  const kill = () => child.stop();
  run.signal.addEventListener('abort', kill, { once: true });
  let overtime = false;
  const timer = run.deadline
    ? setTimeout(() => {
        overtime = true;
        kill();
      }, run.deadline.ms)
    : null;
  let feedError: Error | undefined;
  const feeds = run.feeds.map((feed, k) =>
    feed(child.stdio[3 + k] as Writable).catch((err: unknown) => {
      feedError ??= err as Error;
      kill();
    }),
  );
  const [{ code, error }] = await Promise.all([exited, Promise.all(feeds)]);
  if (timer) clearTimeout(timer);
  run.signal.removeEventListener('abort', kill);
  if (run.signal.aborted) throw run.signal.reason;
  if (overtime) throw new RenderError(run.deadline!.message, log.trim());
  if (error) throw new RenderError(`ffmpeg could not be started (${run.ffmpeg}): ${error.message}`, '');
  // 127: `sh` found no such executable (ffmpeg itself never exits with it).
  if (code === 127 && process.platform !== 'win32')
    throw new RenderError(
      `ffmpeg could not be started (${run.ffmpeg}): not found or not executable`,
      log.trim(),
    );
  if (feedError) throw new RenderError(`reading the recording failed: ${feedError.message}`, log.trim());
  if (code !== 0) {
    const last = log.trim().split('\n').pop() ?? '';
    const doing = run.doing ? ` ${run.doing}` : '';
    throw new RenderError(`ffmpeg failed${doing} (exit code ${code})${last ? `: ${last}` : ''}`, log.trim());
  }
}
