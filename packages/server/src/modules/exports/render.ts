import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StreamStore } from '../../streams/store.js';
import { graphFonts } from './fonts.js';
import { ffmpegArgs, buildGraph } from './graph.js';
import {
  gridComposition,
  presenterComposition,
  type Composition,
  type Format,
  type Layout,
  type Orientation,
  type Resolution,
} from './layout.js';
import { feedTrack, RenderError, runFfmpeg } from './feed.js';
import { micLevels, speakerChanges } from './speaker.js';
import { cutsOf, readPausedSpans, type Cuts } from './cuts.js';
import { scanRecording, type Extent, type FocusChange, type Scan } from './scan.js';
import type { Span } from '../../lib/recording.js';

export { RenderError };

export interface RenderRequest {
  sessionId: string;
  layout: Layout;
  orientation: Orientation;
  /** 720p (default) or 1080p */
  resolution?: Resolution;
  /** `mp4` (default) or `m4a`: the sound alone, with no video read into ffmpeg at all */
  format?: Format;
  /** a clip: the span of the session's clock (ms since 1970, `toMs` exclusive) the file covers */
  clip?: { fromMs: number; toMs: number };
  /**
   * LIVE_CLOCK_SKEW_S, in ms: how far a recorded time may be from when it was stored, which bounds
   * where in the store a clip's frames can be (default 120 s). It must be at least what it was
   * when the session was recorded: lowered since, a clip's end may miss frames of a publisher
   * whose clock was further behind than the new value.
   */
  clockSkewMs?: number;
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

/** Before a clip's start, recorded media is read for this long, so that each video starts from a key frame. */
export const CLIP_PREROLL_MS = 3000;
/**
 * After a clip's end, recorded media is read for this long: a video whose input ended at its last
 * frame before the end would give way to its name tile for the clip's last frames.
 */
const CLIP_POSTROLL_MS = 1000;

export interface RenderResult {
  bytes: number;
  frames: number;
  fps: number;
  durationUs: number;
  scan: Scan;
}

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
 * Renders a recorded session to an MP4. One scan of the recording decides the layout; then each
 * track is read from the stream store on its own and framed as Matroska (one frame per cluster,
 * with its time) into its own pipe to ffmpeg (fd 3, 4, …), so ffmpeg pulls every input at its
 * own pace and nothing is buffered beyond the pipes and one page of the store per track.
 * The timeline's paused spans are read first, once: the scan and every feed put each frame on the
 * same clock, with them cut out unless `keepGaps`.
 */
export async function render(store: StreamStore, req: RenderRequest): Promise<RenderResult> {
  const stats = await store.stats(req.sessionId);
  const paused = await readPausedSpans(store, req.sessionId);
  const { cuts, extent } = await clipReading(store, req, paused);
  const audioOnly = req.format === 'm4a';
  const scan = await scanRecording(
    store,
    req.sessionId,
    stats,
    cuts,
    extent,
    audioOnly ? ['mic'] : undefined,
  );
  const fps = outputFps(scan);
  // A whole export: frames from 0 to the output frame nearest the last media frame, so that the
  // MP4 lasts the media span (last frame included) to within one frame interval. A clip: from its
  // start (after the preroll) for its length on the export's clock, paused spans cut out unless kept.
  const startUs = req.clip ? Math.max(0, (cuts.clock(req.clip.fromMs) - scan.epochMs) * 1000) : 0;
  const endUs = req.clip ? (cuts.clock(req.clip.toMs) - scan.epochMs) * 1000 : scan.spanUs;
  const frames = Math.max(1, Math.round(((endUs - startUs) * fps) / 1e6) + (req.clip ? 0 : 1));
  const durationUs = (frames * 1e6) / fps;
  const comp = audioOnly ? null : composition(scan, req, await speakerFocus(store, req, scan, cuts, extent));

  rmSync(req.workDir, { recursive: true, force: true });
  mkdirSync(req.workDir, { recursive: true });
  try {
    const graph = buildGraph(comp, scan, {
      fps,
      frames,
      durationUs,
      startUs,
      fontOf: graphFonts(req.font, req.workDir),
      names: req.names ?? true,
    });
    writeFileSync(join(req.workDir, 'graph.txt'), graph.script);
    for (const [name, text] of graph.files) writeFileSync(join(req.workDir, name), text);
    const args = ffmpegArgs(graph, {
      frames,
      output: `file:${req.output}`,
      preset: req.preset,
      format: req.format ?? 'mp4',
    });
    await run(store, req, scan, cuts, extent, graph.inputs, args, durationUs);
    const bytes = statSync(req.output).size;
    return { bytes, frames, fps, durationUs, scan };
  } finally {
    rmSync(req.workDir, { recursive: true, force: true });
  }
}

/**
 * The layout over time: the grid; the presenter layout, following `focus` or the director; or the
 * speaker layout, the presenter layout following who spoke (`speakers`).
 */
function composition(scan: Scan, req: RenderRequest, speakers: FocusChange[] | undefined): Composition {
  if (req.layout === 'grid') return gridComposition(scan, req.orientation, req.resolution);
  return presenterComposition(scan, req.orientation, scan.spanUs, req.focus ?? undefined, {
    resolution: req.resolution,
    changes: speakers,
  });
}

/** Who spoke when, for the speaker layout (undefined for the others). */
async function speakerFocus(
  store: StreamStore,
  req: RenderRequest,
  scan: Scan,
  cuts: Cuts,
  extent: Extent,
): Promise<FocusChange[] | undefined> {
  if (req.layout !== 'speaker' || req.format === 'm4a') return undefined;
  // Only someone with a picture can hold the large tile: a voice without one must not take a
  // turn (nor start the wait before the next) from someone who has.
  const withVideo = new Set(scan.tracks.filter((t) => t.kind !== 'mic').map((t) => t.userId));
  const levels = await micLevels(store, { ...req, scan, cuts, extent });
  return speakerChanges(levels.filter((l) => withVideo.has(l.userId)));
}

/**
 * What a render reads: every recorded frame, or for a clip the window from CLIP_PREROLL_MS before
 * its start to CLIP_POSTROLL_MS after its end (what the clip does not show is trimmed off before
 * encoding), and where that window is in the store. A
 * frame is stored when it arrives and stamped with its publisher's clock, which LIVE_CLOCK_SKEW_S
 * keeps within the skew of the arrival: so nothing stamped in the window can have been stored
 * after the first event stamped two skews past its end.
 */
async function clipReading(
  store: StreamStore,
  req: RenderRequest,
  paused: Span[],
): Promise<{ cuts: Cuts; extent: Extent }> {
  const keepGaps = req.keepGaps ?? false;
  if (!req.clip) return { cuts: cutsOf(paused, keepGaps), extent: { fromSeq: 0 } };
  const window = { fromMs: req.clip.fromMs - CLIP_PREROLL_MS, toMs: req.clip.toMs + CLIP_POSTROLL_MS };
  const skewMs = req.clockSkewMs ?? 120_000;
  const first = await store.firstFrom(req.sessionId, 0, window.fromMs);
  const fromSeq = first?.seq ?? 0;
  const after = await store.firstFrom(req.sessionId, fromSeq, window.toMs + 2 * skewMs);
  return { cuts: cutsOf(paused, keepGaps, window), extent: { fromSeq, toSeq: after?.seq } };
}

async function run(
  store: StreamStore,
  req: RenderRequest,
  scan: Scan,
  cuts: Cuts,
  extent: Extent,
  inputs: number[],
  args: string[],
  durationUs: number,
): Promise<void> {
  let progressText = '';
  const spanS = scan.spanUs / 1e6;
  const limitS = req.deadline ? req.deadline.baseS + req.deadline.factor * spanS : null;
  await runFfmpeg({
    ffmpeg: req.ffmpeg,
    args,
    cwd: req.workDir,
    signal: req.signal,
    feeds: inputs.map(
      (trackIndex) => (pipe) =>
        feedTrack(store, pipe, {
          sessionId: req.sessionId,
          track: scan.tracks[trackIndex]!,
          epochMs: scan.epochMs,
          cuts,
          extent,
          signal: req.signal,
        }),
    ),
    onStdout: (d) => {
      progressText = (progressText + d.toString('utf8')).slice(-512);
      const m = /out_time=(\d+):(\d+):(\d+(?:\.\d+)?)\s*\n[\s\S]*$/.exec(progressText);
      if (m && req.onProgress) {
        const s = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
        req.onProgress(Math.max(0, Math.min(1, (s * 1e6) / durationUs)));
      }
    },
    deadline:
      limitS === null
        ? undefined
        : {
            ms: limitS * 1000,
            message: `the render took longer than its deadline (${Math.round(limitS)} s for ${spanS.toFixed(1)} s of recording) and was stopped`,
          },
  });
}
