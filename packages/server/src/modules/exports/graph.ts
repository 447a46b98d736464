import { NAME_CARD_COLOURS } from '@vss/protocol';
import { estimate, type Measure } from './font-metrics.js';
import type { Composition, TileGroup } from './layout.js';
import { barPicture, cleanLabel, nameBar, truncateLabel } from './name-bar.js';
import type { Interval, Scan } from './scan.js';

/** Name tiles: the participants' name card colours, as ffmpeg writes them. */
export const TILE_COLOURS = NAME_CARD_COLOURS.map((c) => `0x${c.slice(1)}`);
export const BACKGROUND = '0x111318';

/** The x264 settings of every export (and of the benchmark's bare command). */
export const X264 = { preset: 'veryfast', crf: 23 } as const;

/** What the render needs besides the graph: the inputs in order, the files the graph reads. */
export interface Graph {
  /** the filter graph, for -filter_complex_script */
  script: string;
  /** scan.tracks indices, in ffmpeg input order (input k is read from fd 3 + k) */
  inputs: number[];
  /** files the graph reads, relative to ffmpeg's working directory: name → contents */
  files: Map<string, string>;
}

/**
 * The shortest gap between audio packets that silence fills (s). ffmpeg's default, 0.1 s, ignores
 * shorter ones, so that what follows plays early by them, and by their sum until it passes 0.1 s:
 * a cut leaves such a gap (from the last packet before the pause to it, and from the resume to the
 * first packet after), so the sound after each cut would lead the pictures. Audio packets carry
 * their encoder's timestamps, exact to the sample, so one packet (20 ms) is safe.
 */
export const AUDIO_GAP_S = 0.02;

/** Seconds with µs precision, as ffmpeg expressions take them. */
const sec = (us: number) => String(Math.round(us) / 1e6);

/** An expression true (1) inside any of the intervals and 0 elsewhere. */
function during(intervals: Array<{ fromUs: number; toUs: number }> | Interval[]): string {
  const terms = intervals.map((iv) => {
    const [a, b] = Array.isArray(iv) ? iv : [iv.fromUs, iv.toUs];
    return b === Infinity ? `gte(t,${sec(a)})` : `gte(t,${sec(a)})*lt(t,${sec(b)})`;
  });
  return terms.length ? terms.join('+') : '0';
}

/** Scales a picture to fit w×h keeping its aspect ratio (even sizes). */
function fit(w: number, h: number): string {
  const r = (w / h).toFixed(6);
  return `scale=w='if(gt(a,${r}),${w},trunc(${h}*a/2)*2)':h='if(gt(a,${r}),trunc(${w}/a/2)*2,${h})',setsar=1`;
}

/** Pads a picture fitted by `fit` to w×h, centred on black. */
const pad = (w: number, h: number) => `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:black`;

/**
 * The filter graph of one export. A tile shows a participant's name on their colour, with their
 * scaled video over it only while the track is on, so that a gap shows the name, never a frozen
 * frame. The video carries a name bar (name-bar.ts) on its bottom-left corner saying whose it is
 * (unless `names` is false): drawn once as a picture of its own and overlaid onto each scaled
 * frame, it shows exactly while the video does, and moves and changes hands with the tile. Name
 * tiles are drawn once and repeated (`loop`): per output frame only the video is scaled and overlaid, as a hand-written grid would. Tiles that stay in one place for the whole
 * export (the grid; a presenter layout that never changes) are drawn into the background; a tile
 * that moves (presenter) is a stream of its own, overlaid with time expressions for where and when.
 * Audio: every microphone is resampled with `async` (silence fills gaps and the time before the
 * first packet, so each sits at its recorded time: every gap longer than AUDIO_GAP_S, where a
 * paused span was cut out too), the tracks are mixed at unity gain (in mono
 * unless a microphone is stereo: see audioLayout) and cut to the export's length. Inputs keep
 * their recorded timestamps (`-copyts`): time 0 is the epoch.
 */
export function buildGraph(
  comp: Composition | null,
  scan: Scan,
  opts: {
    fps: number;
    /** frames of the output */
    frames: number;
    /** of the output */
    durationUs: number;
    /**
     * Where the output starts on the export's clock (a clip's start, after its preroll): what comes
     * before is composed, so that each video has decoded from its key frame, but trimmed off
     * before encoding. Default 0.
     */
    startUs?: number;
    /** the font a text is drawn in: drawtext's option naming it, and how wide it draws the text */
    fontOf?: (text: string) => { font: string; measure: Measure };
    /** name bars over the video (default true) */
    names?: boolean;
    /** the sound, [aout] (default true; a storyboard has none) */
    audio?: boolean;
  },
): Graph {
  const { fps } = opts;
  const startUs = opts.startUs ?? 0;
  const D = sec(opts.durationUs);
  const lines: string[] = [];
  const files = new Map<string, string>();
  const inputs: number[] = [];
  const inputOf = new Map<number, number>();
  const input = (track: number) => {
    if (!inputOf.has(track)) {
      inputOf.set(track, inputs.length);
      inputs.push(track);
    }
    return inputOf.get(track)!;
  };
  /** frames composed: the output's, and a clip's preroll */
  const composed = opts.frames + Math.ceil((startUs * fps) / 1e6);
  /** One frame drawn by `draw`, repeated for the whole export at the output rate. */
  const still = (draw: string) =>
    `${draw},trim=end_frame=1,loop=loop=${composed - 1}:size=1:start=0,setpts=N/${fps}/TB`;

  /** The picture: the tiles over time, into [vout]. */
  function composeVideo(comp: Composition) {
    // Decoded video, split when a track is drawn at two sizes.
    const uses = new Map<number, number>();
    for (const g of comp.groups) {
      const t = comp.subjects[g.subject]!.track;
      if (t !== null) uses.set(t, (uses.get(t) ?? 0) + 1);
    }
    const pads = new Map<number, string[]>();
    for (const [track, n] of uses) {
      const k = input(track);
      if (n === 1) pads.set(track, [`${k}:v`]);
      else {
        const names = Array.from({ length: n }, (_, j) => `s${k}_${j}`);
        lines.push(`[${k}:v]split=${n}${names.map((x) => `[${x}]`).join('')}`);
        pads.set(track, names);
      }
    }
    const fontOf = opts.fontOf ?? (() => ({ font: 'font=Sans', measure: estimate }));
    /**
     * A tile's video, scaled and padded to the tile. Its name bar goes onto the scaled picture,
     * before the padding: on the picture's bottom-left corner whatever its aspect ratio, and on
     * screen exactly while the picture is, wherever the tile is.
     */
    const video = (g: TileGroup, i: number) => {
      const s = comp.subjects[g.subject]!;
      if (s.track === null) return null;
      const src = pads.get(s.track)!.shift()!;
      const f = fontOf(cleanLabel(s.label));
      const b = opts.names === false ? null : nameBar(g.w, g.h, s.label, f.measure);
      if (!b) lines.push(`[${src}]${fit(g.w, g.h)},${pad(g.w, g.h)}[v${i}]`);
      else {
        files.set(`bar-${i}.txt`, b.text);
        lines.push(
          `${barPicture(b, fps, f.font, `bar-${i}.txt`)}[b${i}]`,
          `[${src}]${fit(g.w, g.h)}[p${i}]`,
          `[p${i}][b${i}]overlay=x=${b.x}:y=main_h-overlay_h-${b.bottom},${pad(g.w, g.h)}[v${i}]`,
        );
      }
      return { pad: `v${i}`, on: during(s.on) };
    };

    comp.subjects.forEach((s, i) => files.set(`label-${i}.txt`, truncateLabel(cleanLabel(s.label))));
    const name = (g: TileGroup, x: string, y: string) => {
      const s = comp.subjects[g.subject]!;
      const size = Math.round(
        Math.max(14, Math.min(g.h / 8, (g.w * 1.6) / Math.max(6, [...s.label].length))),
      );
      return (
        `drawtext=${fontOf(cleanLabel(s.label)).font}:textfile=label-${g.subject}.txt:expansion=none:fontcolor=white:fontsize=${size}:` +
        `x=${x}+(${g.w}-tw)/2:y=${y}+(${g.h}-th)/2`
      );
    };
    const colour = (g: TileGroup) => TILE_COLOURS[comp.subjects[g.subject]!.person % TILE_COLOURS.length];

    const fixed = comp.groups.filter((g) => g.spans === null);
    const background = [`color=c=${BACKGROUND}:s=${comp.width}x${comp.height}:r=${fps}:d=1`];
    for (const g of fixed)
      background.push(
        `drawbox=x=${g.at.x}:y=${g.at.y}:w=${g.w}:h=${g.h}:color=${colour(g)}:t=fill`,
        name(g, String(g.at.x), String(g.at.y)),
      );
    lines.push(`${still(background.join(','))}[c0]`);
    let canvas = 0;
    const overlay = (pad: string, place: string) => {
      lines.push(`[c${canvas}][${pad}]overlay=${place}:eof_action=pass[c${canvas + 1}]`);
      canvas += 1;
    };
    comp.groups.forEach((g, i) => {
      if (g.spans === null) {
        const v = video(g, i);
        if (v) overlay(v.pad, `x=${g.at.x}:y=${g.at.y}:enable='${v.on}'`);
        return;
      }
      lines.push(`${still(`color=c=${colour(g)}:s=${g.w}x${g.h}:r=${fps}:d=1,${name(g, '0', '0')}`)}[n${i}]`);
      let tile = `n${i}`;
      const v = video(g, i);
      if (v) {
        lines.push(`[n${i}][${v.pad}]overlay=eof_action=pass:enable='${v.on}'[t${i}]`);
        tile = `t${i}`;
      }
      const spans = g.spans;
      overlay(
        tile,
        `x='${spans.map((p) => `${p.x}*(${during([p])})`).join('+')}':` +
          `y='${spans.map((p) => `${p.y}*(${during([p])})`).join('+')}':enable='${during(spans)}'`,
      );
    });
    const trim = startUs > 0 ? `trim=start=${sec(startUs)},setpts=PTS-STARTPTS,` : '';
    lines.push(`[c${canvas}]${trim}format=yuv420p[vout]`);
  }
  if (comp) composeVideo(comp);

  /** The sound: every microphone mixed, into [aout]. */
  function composeAudio() {
    const mics = scan.tracks.map((t, i) => ({ t, i })).filter(({ t }) => t.kind === 'mic');
    const layout = audioLayout(scan);
    const cut =
      startUs > 0
        ? `atrim=start=${sec(startUs)}:end=${sec(startUs + opts.durationUs)},asetpts=PTS-STARTPTS`
        : `atrim=end=${D}`;
    if (mics.length === 0) lines.push(`anullsrc=r=48000:cl=${layout},${cut}[aout]`);
    else {
      mics.forEach(({ i }, j) =>
        lines.push(
          `[${input(i)}:a]aresample=async=1:min_hard_comp=${AUDIO_GAP_S}:first_pts=0,` +
            `aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=${layout},apad[a${j}]`,
        ),
      );
      const all = mics.map((_, j) => `[a${j}]`).join('');
      lines.push(
        mics.length === 1
          ? `[a0]${cut}[aout]`
          : `${all}amix=inputs=${mics.length}:duration=first:dropout_transition=0,volume=${mics.length},${cut}[aout]`,
      );
    }
  }
  if (opts.audio !== false) composeAudio();
  return { script: lines.join(';\n') + '\n', inputs, files };
}

/**
 * The export's audio channels: stereo when any microphone was recorded with more than one channel,
 * else mono. Browsers publish mono microphones; mixing them into two identical channels would only
 * double the work of the mix and of the AAC encoder (which runs on ffmpeg's main thread, beside the
 * decoding and compositing of the cameras) for the same sound.
 */
export function audioLayout(scan: Scan): 'mono' | 'stereo' {
  return scan.tracks.some((t) => t.kind === 'mic' && (t.format.mkv.channels ?? 1) > 1) ? 'stereo' : 'mono';
}

/**
 * The encoder settings of an export (the product's preset and CRF unless given): H.264 in yuv420p
 * and AAC at 128 kb/s. The export benchmark's bare command uses the same.
 */
export function encoderArgs(x264: { preset: string; crf: number } = X264): string[] {
  return ['-c:v', 'libx264', '-preset', x264.preset, '-crf', String(x264.crf), '-pix_fmt', 'yuv420p', ...AAC];
}

/** The sound of every export, and all of an `m4a` one: AAC at 128 kb/s. */
export const AAC = ['-c:a', 'aac', '-b:a', '128k'];

/**
 * Packets ffmpeg queues per input between its reading thread and its decoders. With the pipe's
 * 64 KiB, this is all ffmpeg has in hand while the server's event loop is held up (a garbage
 * collection, another request): 16 camera frames and the pipe's few last about 0.2 s at six times
 * real time, longer than such pauses; 64 cost ffmpeg about 5 MB more for four cameras.
 */
const INPUT_QUEUE_PACKETS = 16;

/** ffmpeg's inputs of a graph: Matroska on fds 3, 4, … (one per input, as the feeds write them). */
export function pipeInputs(count: number): string[] {
  return Array.from({ length: count }, (_, k) => [
    // ffmpeg probes its inputs one after the other before it decodes anything, each by default
    // until it has read 20 video frames to guess a frame rate: over pipes that the server fills
    // on its event loop, a few hundred milliseconds of ffmpeg waiting before the first frame.
    // The graph sets the output's rate itself and every frame carries its own time, so the
    // guess is not needed: ffmpeg reads only what it needs to know a stream's codec and size.
    '-fpsprobesize',
    '0',
    '-thread_queue_size',
    String(INPUT_QUEUE_PACKETS),
    '-f',
    'matroska',
    '-i',
    `pipe:${3 + k}`,
  ]).flat();
}

/**
 * The ffmpeg command line of an export: inputs on fds 3…, progress on stdout, the MP4 (or with
 * `format: 'm4a'` the AAC sound alone, in an MPEG-4 audio file) to `output`.
 */
export function ffmpegArgs(
  graph: Graph,
  opts: { frames: number; output: string; preset?: string; format?: 'mp4' | 'm4a' },
): string[] {
  const args = [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-nostats',
    '-progress',
    'pipe:1',
    '-copyts',
  ];
  args.push(...pipeInputs(graph.inputs.length), '-filter_complex_script', 'graph.txt');
  if (opts.format === 'm4a') args.push('-map', '[aout]', ...AAC, '-vn');
  else
    args.push(
      '-map',
      '[vout]',
      '-map',
      '[aout]',
      '-frames:v',
      String(opts.frames),
      ...encoderArgs({ preset: opts.preset ?? X264.preset, crf: X264.crf }),
    );
  args.push(
    '-max_muxing_queue_size',
    '4096',
    '-movflags',
    '+faststart',
    '-f',
    opts.format === 'm4a' ? 'ipod' : 'mp4',
    '-y',
    opts.output,
  );
  return args;
}
