import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Writable } from 'node:stream';
import type { StreamStore } from '../../streams/store.js';
import { estimate, measureWith } from './font-metrics.js';
import { fontFor } from './fonts.js';
import { ffmpegArgs, buildGraph } from './graph.js';
import { gridComposition, presenterComposition, type Layout, type Orientation } from './layout.js';
import { MKV_FRAME_HEADER_BYTES, mkvFrameHeader, mkvHeader } from './matroska.js';
import { TrackFramer } from './track-framer.js';
import { cutsOf, readPausedSpans, type Cuts } from './cuts.js';
import { scanRecording, type Scan } from './scan.js';

/** A render that ffmpeg refused or failed: its message and the end of ffmpeg's log. */
export class RenderError extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
  }
}

export interface RenderRequest {
  sessionId: string;
  layout: Layout;
  orientation: Orientation;
  focus: string | null;
  /** where the MP4 is written (a temporary name; the caller renames it once complete) */
  output: string;
  /** a scratch directory for this attempt (created and removed here) */
  workDir: string;
  ffmpeg: string;
  /** the font names are drawn in (a text it lacks characters of, in the installed font that has most), or null for fontconfig's Sans */
  font: string | null;
  /** name bars on the tiles with video (default true) */
  names?: boolean;
  /** keep the spans in which recording was paused (default false: they are cut out) */
  keepGaps?: boolean;
  /** x264 preset (the product's unless a benchmark says otherwise) */
  preset?: string;
  signal: AbortSignal;
  /**
   * How long the render may take, from the recorded span: `baseS` plus `factor` times the span.
   * Past it ffmpeg is stopped and the render fails (RenderError), so that a long or stretched
   * recording cannot hold the export queue for everyone else. None: no deadline.
   */
  deadline?: { baseS: number; factor: number };
  /** the share of the export written so far, 0 to 1, now and then */
  onProgress?: (fraction: number) => void;
}

export interface RenderResult {
  bytes: number;
  frames: number;
  fps: number;
  durationUs: number;
  scan: Scan;
}

const LOG_TAIL = 4000;

/**
 * Output rate: 15 fps when every camera was recorded at up to 20 fps (a 15 fps call loses nothing
 * and the encoder does half the work of 30), 30 fps when any was faster.
 */
export function outputFps(scan: Scan): number {
  let fastest = 0;
  for (const t of scan.tracks) {
    if (t.kind === 'mic' || t.frames < 2 || t.lastUs <= t.firstUs) continue;
    fastest = Math.max(fastest, (t.frames - 1) / ((t.lastUs - t.firstUs) / 1e6));
  }
  return fastest > 20 ? 30 : 15;
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
function write(pipe: Writable, chunks: Uint8Array[]): Promise<boolean> {
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
 * Renders a recorded session to an MP4. One scan of the recording decides the layout; then each
 * track is read from the stream store on its own and framed as Matroska (one frame per cluster,
 * with its time) into its own pipe to ffmpeg (fd 3, 4, …), so ffmpeg pulls every input at its
 * own pace and nothing is buffered beyond the pipes and one page of the store per track.
 * The timeline's paused spans are read first, once: the scan and every feed put each frame on the
 * same clock, with them cut out unless `keepGaps`.
 */
export async function render(store: StreamStore, req: RenderRequest): Promise<RenderResult> {
  const cuts = cutsOf(await readPausedSpans(store, req.sessionId), req.keepGaps ?? false);
  const scan = await scanRecording(store, req.sessionId, await store.stats(req.sessionId), cuts);
  const fps = outputFps(scan);
  // Frames from 0 to the output frame nearest the last media frame: the MP4 lasts the media span
  // (last frame included) to within one frame interval.
  const frames = Math.round((scan.spanUs * fps) / 1e6) + 1;
  const durationUs = (frames * 1e6) / fps;
  const comp =
    req.layout === 'grid'
      ? gridComposition(scan, req.orientation)
      : presenterComposition(scan, req.orientation, scan.spanUs, req.focus ?? undefined);

  rmSync(req.workDir, { recursive: true, force: true });
  mkdirSync(req.workDir, { recursive: true });
  try {
    // The graph names files relative to ffmpeg's working directory: no path needs escaping.
    const fonts = new Map<string, string>();
    const fontOf = (text: string) => {
      if (!req.font) return { font: 'font=Sans', measure: estimate };
      const file = fontFor(text, req.font);
      let name = fonts.get(file);
      if (name === undefined) {
        name = `font-${fonts.size}${extname(file)}`;
        symlinkSync(file, join(req.workDir, name));
        fonts.set(file, name);
      }
      return { font: `fontfile=${name}`, measure: measureWith(file) };
    };
    const graph = buildGraph(comp, scan, { fps, frames, durationUs, fontOf, names: req.names ?? true });
    writeFileSync(join(req.workDir, 'graph.txt'), graph.script);
    for (const [name, text] of graph.files) writeFileSync(join(req.workDir, name), text);
    const args = ffmpegArgs(graph, { frames, output: `file:${req.output}`, preset: req.preset });
    await run(store, req, scan, cuts, graph.inputs, args, durationUs);
    const bytes = statSync(req.output).size;
    return { bytes, frames, fps, durationUs, scan };
  } finally {
    rmSync(req.workDir, { recursive: true, force: true });
  }
}

async function run(
  store: StreamStore,
  req: RenderRequest,
  scan: Scan,
  cuts: Cuts,
  inputs: number[],
  args: string[],
  durationUs: number,
): Promise<void> {
  if (req.signal.aborted) throw req.signal.reason;
  const child = spawn(req.ffmpeg, args, {
    cwd: req.workDir,
    stdio: ['ignore', 'pipe', 'pipe', ...inputs.map(() => 'pipe' as const)],
  });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString('utf8')).slice(-LOG_TAIL)));
  let progressText = '';
  child.stdout!.on('data', (d: Buffer) => {
    progressText = (progressText + d.toString('utf8')).slice(-512);
    const m = /out_time=(\d+):(\d+):(\d+(?:\.\d+)?)\s*\n[\s\S]*$/.exec(progressText);
    if (m && req.onProgress) {
      const s = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
      req.onProgress(Math.max(0, Math.min(1, (s * 1e6) / durationUs)));
    }
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  const kill = () => child.kill('SIGKILL');
  req.signal.addEventListener('abort', kill, { once: true });
  const spanS = scan.spanUs / 1e6;
  const limitS = req.deadline ? req.deadline.baseS + req.deadline.factor * spanS : null;
  let overtime = false;
  const timer =
    limitS === null
      ? null
      : setTimeout(() => {
          overtime = true;
          kill();
        }, limitS * 1000);

  let feedError: Error | undefined;
  const feeds = inputs.map(async (trackIndex, k) => {
    const pipe = child.stdio[3 + k] as Writable;
    pipe.on('error', () => {}); // EPIPE once ffmpeg has what it needs or has stopped: not ours to report
    const track = scan.tracks[trackIndex]!;
    const framer = new TrackFramer(track.format, scan.epochMs, cuts);
    try {
      let batch: Uint8Array[] = [mkvHeader(track.format.mkv)];
      let bytes = 0;
      let open = true;
      for await (const e of store.read(req.sessionId, { streamId: track.streamId })) {
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
    } catch (err) {
      feedError ??= err as Error;
      kill();
    } finally {
      pipe.end();
    }
  });

  const [{ code, error }] = await Promise.all([exited, Promise.all(feeds)]);
  if (timer) clearTimeout(timer);
  req.signal.removeEventListener('abort', kill);
  if (req.signal.aborted) throw req.signal.reason;
  if (overtime)
    throw new RenderError(
      `the render took longer than its deadline (${Math.round(limitS!)} s for ${spanS.toFixed(1)} s of recording) and was stopped`,
      log.trim(),
    );
  if (error) throw new RenderError(`ffmpeg could not be started (${req.ffmpeg}): ${error.message}`, '');
  if (feedError) throw new RenderError(`reading the recording failed: ${feedError.message}`, log.trim());
  if (code !== 0) {
    const last = log.trim().split('\n').pop() ?? '';
    throw new RenderError(`ffmpeg failed (exit code ${code})${last ? `: ${last}` : ''}`, log.trim());
  }
}
