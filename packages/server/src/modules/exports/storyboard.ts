import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { parseMediaStream } from '@vss/protocol';
import type { StreamStore } from '../../streams/store.js';
import { cutsOf, readPausedSpans, type Cuts } from './cuts.js';
import { runFfmpeg, write } from './feed.js';
import { buildGraph, pipeInputs } from './graph.js';
import { graphFonts } from './fonts.js';
import { gridRects, subjectsOf, type Composition } from './layout.js';
import { mkvFrameHeader, mkvHeader } from './matroska.js';
import { scanRecording, type Scan, type ScannedTrack } from './scan.js';
import { TrackFramer, type Frame } from './track-framer.js';

/** One thumbnail of a storyboard, in pixels: a 16:9 picture of the grid of everyone with video. */
export const TILE = { w: 160, h: 90 } as const;
/** Pixels between the videos within a thumbnail. */
const TILE_GAP = 2;
/** Thumbnails per row of the sprite. */
export const COLUMNS = 10;
/** A storyboard holds at most this many thumbnails: a sprite of at most 1600x1800 pixels. */
export const MAX_TILES = 200;
/** The shortest time between thumbnails. */
export const MIN_INTERVAL_MS = 2000;

/** Where a storyboard's thumbnails are in its sprite, and the time each stands for. */
export interface StoryboardGrid {
  /** thumbnail k stands for [k·interval, (k+1)·interval) from the recording's start */
  intervalMs: number;
  count: number;
  columns: number;
  tileW: number;
  tileH: number;
}

/**
 * The grid of a recording that lasts `durationMs`: a thumbnail every 2 s, or every whole number of
 * seconds that keeps them to MAX_TILES, COLUMNS to a row.
 */
export function storyboardGrid(durationMs: number): StoryboardGrid {
  const intervalMs = Math.max(MIN_INTERVAL_MS, Math.ceil(durationMs / MAX_TILES / 1000) * 1000);
  const count = Math.max(1, Math.ceil(durationMs / intervalMs));
  return { intervalMs, count, columns: Math.min(COLUMNS, count), tileW: TILE.w, tileH: TILE.h };
}

export interface StoryboardRequest {
  sessionId: string;
  /**
   * The recording's start and end (ms since 1970), as its manifest gives them: the player's time
   * bar runs from the one to the other, and the thumbnails follow it.
   */
  startMs: number;
  endMs: number;
  ffmpeg: string;
  /** the font name tiles are drawn in, or null for fontconfig's Sans */
  font: string | null;
  /** where the JPEG is written */
  output: string;
  /** a scratch directory (created and removed here) */
  workDir: string;
  signal: AbortSignal;
  /** stops ffmpeg after `baseS` plus `factor` times the recording's length (RenderError) */
  deadline?: { baseS: number; factor: number };
}

/** Whether a session recorded any camera or screen. */
export function hasVideo(streamIds: string[]): boolean {
  return streamIds.some((id) => {
    const m = parseMediaStream(id);
    return m !== null && m.kind !== 'mic';
  });
}

/**
 * Renders a storyboard: one JPEG sprite of thumbnails, `columns` to a row, thumbnail k showing the
 * picture at the middle of its span, (k + ½)·interval after the recording's start, on the
 * session's own clock (paused spans kept, shown as in the export: every video off), which is the
 * clock of the player's time bar. A thumbnail is the export's grid of everyone with video, small,
 * without name bars. Only the key frames a thumbnail shows are read into ffmpeg: the last before
 * each thumbnail's moment (and a track's first, which starts its decoder), so the cost is one
 * decoded picture per thumbnail and track, whatever the length of the recording. Null when the
 * recording has no video.
 */
export async function renderStoryboard(
  store: StreamStore,
  req: StoryboardRequest,
): Promise<StoryboardGrid | null> {
  const stats = await store.stats(req.sessionId);
  if (!hasVideo(stats.map((s) => s.streamId))) return null;
  const cuts = cutsOf(await readPausedSpans(store, req.sessionId), true);
  // Pictures only: no microphone's packets are read.
  const full = await scanRecording(store, req.sessionId, stats, cuts, { fromSeq: 0 }, ['cam', 'screen']);
  const grid = storyboardGrid(req.endMs - req.startMs);
  // Time 0 of ffmpeg's clock: the middle of the first thumbnail's span.
  const epochMs = req.startMs + grid.intervalMs / 2;
  const scan = shifted(full, epochMs);
  const subjects = subjectsOf(scan);
  const rects = gridRects({ x: 0, y: 0, w: TILE.w, h: TILE.h }, subjects.length, TILE_GAP);
  const comp: Composition = {
    width: TILE.w,
    height: TILE.h,
    subjects,
    groups: rects.map((r, i) => ({ subject: i, w: r.w, h: r.h, spans: null, at: { x: r.x, y: r.y } })),
  };
  const fps = 1000 / grid.intervalMs;
  // Every cell of the sprite is drawn (those after the last thumbnail show the recording's end).
  const rows = Math.ceil(grid.count / grid.columns);
  const cells = rows * grid.columns;
  rmSync(req.workDir, { recursive: true, force: true });
  mkdirSync(req.workDir, { recursive: true });
  try {
    const graph = buildGraph(comp, scan, {
      fps,
      frames: cells,
      durationUs: cells * grid.intervalMs * 1000,
      fontOf: graphFonts(req.font, req.workDir),
      names: false,
      audio: false,
    });
    const tile = `[vout]tile=${grid.columns}x${rows}:padding=0:margin=0,format=yuvj420p[sprite]`;
    writeFileSync(join(req.workDir, 'graph.txt'), `${graph.script.trimEnd()};\n${tile}\n`);
    for (const [name, text] of graph.files) writeFileSync(join(req.workDir, name), text);
    const args = [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-copyts',
      ...pipeInputs(graph.inputs.length),
    ];
    args.push('-filter_complex_script', 'graph.txt', '-map', '[sprite]', '-frames:v', '1');
    args.push('-c:v', 'mjpeg', '-q:v', '4', '-f', 'mjpeg', '-y', `file:${req.output}`);
    const tracks = graph.inputs.map((i) => scan.tracks[i]!);
    await run(store, req, args, tracks, { epochMs, cuts, intervalUs: grid.intervalMs * 1000 });
    return grid;
  } finally {
    rmSync(req.workDir, { recursive: true, force: true });
  }
}

/** The scan on a clock whose time 0 is `epochMs` (session clock), without the microphones. */
function shifted(scan: Scan, epochMs: number): Scan {
  const by = (scan.epochMs - epochMs) * 1000;
  const move = (us: number) => Math.max(0, us + by);
  return {
    ...scan,
    epochMs,
    spanUs: move(scan.spanUs),
    focus: [],
    tracks: scan.tracks
      .filter((t) => t.kind !== 'mic')
      .map((t) => ({
        ...t,
        firstUs: move(t.firstUs),
        lastUs: move(t.lastUs),
        on: t.on.map(([a, b]): [number, number] => [move(a), move(b)]).filter(([a, b]) => b > a),
      })),
  };
}

async function run(
  store: StreamStore,
  req: StoryboardRequest,
  args: string[],
  tracks: ScannedTrack[],
  clock: { epochMs: number; cuts: Cuts; intervalUs: number },
): Promise<void> {
  const limitS = req.deadline
    ? req.deadline.baseS + (req.deadline.factor * (req.endMs - req.startMs)) / 1000
    : null;
  await runFfmpeg({
    ffmpeg: req.ffmpeg,
    args,
    cwd: req.workDir,
    signal: req.signal,
    feeds: tracks.map((track) => (pipe) => feedKeyFrames(store, pipe, req, track, clock)),
    deadline:
      limitS === null
        ? undefined
        : {
            ms: limitS * 1000,
            message: `the storyboard took longer than its deadline (${Math.round(limitS)} s)`,
          },
  });
}

/**
 * Feeds a video track's key frames into ffmpeg, as Matroska, only those a thumbnail shows: a key
 * frame is sent when the next one comes after a thumbnail's moment (k·interval on this clock), so
 * that the overlay, which repeats the last frame it has, shows at that moment the last key frame
 * before it. The track's first key frame is always sent: it may carry the parameter sets the
 * others leave out.
 */
async function feedKeyFrames(
  store: StreamStore,
  pipe: Writable,
  req: StoryboardRequest,
  track: ScannedTrack,
  clock: { epochMs: number; cuts: Cuts; intervalUs: number },
): Promise<void> {
  pipe.on('error', () => {}); // EPIPE once ffmpeg has what it needs or has stopped: its exit says why
  const framer = new TrackFramer(track.format, clock.epochMs, clock.cuts);
  let lastUs = -Infinity;
  const send = (f: Frame) => {
    // Strictly later than the frame before (by 1 ms at least): a decoder given two frames at one
    // time stops trusting the container's times and makes up its own.
    lastUs = Math.max(0, f.atUs, lastUs + 1000);
    return write(pipe, [mkvFrameHeader(lastUs, true, f.data.length), f.data]);
  };
  try {
    if (!(await write(pipe, [mkvHeader(track.format.mkv)]))) return;
    let first = true;
    let held: Frame | null = null;
    for await (const e of store.read(req.sessionId, { streamId: track.streamId })) {
      if (req.signal.aborted) return;
      const f = framer.frame(e.ts, e.body);
      if (!f || !f.key) continue;
      if (first) {
        first = false;
        if (!(await send(f))) return;
        continue;
      }
      // The first thumbnail moment at or after the held frame: shown by it unless f comes first.
      const moment = held && Math.ceil(Math.max(0, held.atUs) / clock.intervalUs) * clock.intervalUs;
      if (held && moment !== null && moment < f.atUs && !(await send(held))) return;
      held = f;
    }
    if (held) await send(held);
  } finally {
    pipe.end();
  }
}
