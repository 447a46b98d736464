/**
 * The export benchmark's hand-written ffmpeg commands: what the service makes, written out by hand
 * from the media files on disk (bench/lib/export-fixture.ts), with the service's encoder settings.
 * Each runs in its output's directory (the name bars' files are put there).
 */
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import {
  AAC,
  BACKGROUND,
  barPicture,
  canvasOf,
  encoderArgs,
  gridRects,
  measureWith,
  nameBar,
  nameFont,
  X264,
  type Rect,
} from '@vss/server/tools';
import { CAM_FPS, PARTICIPANTS, type MediaFiles } from './export-fixture.ts';

export type Resolution = '720p' | '1080p';

/**
 * The grid's canvas and tiles at a resolution, from the service's own layout functions: 1280x720
 * with 636x356 tiles 8 px apart, or 1920x1080 with 954x534 tiles 12 px apart.
 */
export function gridOf(resolution: Resolution): { width: number; height: number; rects: Rect[] } {
  const { width, height, gap } = canvasOf('landscape', resolution);
  return { width, height, rects: gridRects({ x: 0, y: 0, w: width, h: height }, PARTICIPANTS, gap) };
}

/**
 * The service's name bars on the bare command's tiles: the same pictures (each participant's user
 * id, as the service shows a participant without a display name, in the same font) at the same
 * places, sized for each tile as the service sizes them, drawn once and overlaid onto each scaled
 * camera picture. Their files go into `dir`, ffmpeg's working directory.
 */
function nameBars(dir: string, rects: Rect[]): Array<{ picture: string; x: number; bottom: number }> {
  const font = nameFont();
  let fontArg = 'font=Sans';
  if (font) {
    const name = `font${extname(font)}`;
    rmSync(join(dir, name), { force: true });
    symlinkSync(font, join(dir, name));
    fontArg = `fontfile=${name}`;
  }
  const measure = measureWith(font);
  return rects.map((r, p) => {
    const bar = nameBar(r.w, r.h, `participant-${p}`, measure)!;
    writeFileSync(join(dir, `bar-${p}.txt`), bar.text);
    return { picture: barPicture(bar, CAM_FPS, fontArg, `bar-${p}.txt`), x: bar.x, bottom: bar.bottom };
  });
}

const QUIET = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'];

/**
 * The grid export by hand: a canvas of the service's background colour, each camera scaled to fit
 * its tile, the name bar overlaid onto it, padded to the tile and overlaid in the grid; the 4
 * (mono) microphones mixed at unity gain. `frames` output frames from the start of the files
 * (a 10 s export reads only their first 10 s).
 */
export function bareArgs(
  media: MediaFiles,
  frames: number,
  output: string,
  opts: {
    resolution?: Resolution;
    x264?: { preset: string; crf: number };
    format?: 'mp4' | 'matroska';
  } = {},
): string[] {
  const seconds = frames / CAM_FPS;
  const { width, height, rects } = gridOf(opts.resolution ?? '720p');
  const bars = nameBars(dirname(output), rects);
  const fit = (r: Rect) => {
    const a = (r.w / r.h).toFixed(6);
    return `scale=w='if(gt(a,${a}),${r.w},trunc(${r.h}*a/2)*2)':h='if(gt(a,${a}),trunc(${r.w}/a/2)*2,${r.h})',setsar=1`;
  };
  const pad = (r: Rect) => `pad=${r.w}:${r.h}:(ow-iw)/2:(oh-ih)/2:black`;
  const graph = [
    `color=c=${BACKGROUND}:s=${width}x${height}:r=${CAM_FPS}:d=${seconds}[c0]`,
    ...bars.map((b, p) => `${b.picture}[b${p}]`),
    ...media.cams.map(
      (_, p) =>
        `[${p}:v]${fit(rects[p]!)}[p${p}];` +
        `[p${p}][b${p}]overlay=x=${bars[p]!.x}:y=main_h-overlay_h-${bars[p]!.bottom},${pad(rects[p]!)}[v${p}]`,
    ),
    ...media.cams.map((_, p) => `[c${p}][v${p}]overlay=${rects[p]!.x}:${rects[p]!.y}[c${p + 1}]`),
    `[c${media.cams.length}]format=yuv420p[vout]`,
    `${mix(media, media.cams.length)}atrim=end=${seconds}[aout]`,
  ].join(';');
  const format = opts.format ?? 'mp4';
  return [
    ...QUIET,
    ...media.cams.flatMap((f) => ['-f', 'mjpeg', '-framerate', String(CAM_FPS), '-i', f]),
    ...media.mics.flatMap((f) => ['-i', f]),
    '-filter_complex',
    graph,
    '-map',
    '[vout]',
    '-map',
    '[aout]',
    '-frames:v',
    String(frames),
    ...encoderArgs(opts.x264 ?? X264),
    ...(format === 'mp4' ? ['-movflags', '+faststart'] : []),
    '-f',
    format,
    output,
  ];
}

/** The microphones (inputs `first`, `first + 1`, …) mixed at unity gain, then a comma. */
function mix(media: MediaFiles, first: number): string {
  const n = media.mics.length;
  return (
    `${media.mics.map((_, p) => `[${first + p}:a]`).join('')}amix=inputs=${n}:` +
    `duration=first:dropout_transition=0,volume=${n},`
  );
}

/**
 * The `m4a` export by hand: the 4 Ogg Opus files mixed at unity gain, cut to `seconds`, in mono (the
 * fixture's microphones are mono, and the service mixes mono microphones in mono: audioLayout in
 * graph.ts), AAC at the service's 128 kb/s in an MPEG-4 audio file (`ipod`, +faststart).
 */
export function bareM4aArgs(media: MediaFiles, seconds: number, output: string): string[] {
  return [
    ...QUIET,
    ...media.mics.flatMap((f) => ['-i', f]),
    '-filter_complex',
    `${mix(media, 0)}aformat=channel_layouts=mono,atrim=end=${seconds}[aout]`,
    '-map',
    '[aout]',
    '-vn',
    ...AAC,
    '-movflags',
    '+faststart',
    '-f',
    'ipod',
    output,
  ];
}
