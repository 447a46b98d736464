/**
 * The export benchmark's scenarios (bench/export.ts): each one export the service makes through
 * POST /v1/sessions/{id}/exports, beside the hand-written ffmpeg command doing the same work from
 * the media files, and what each scenario reports (its table, its figures, its target).
 */
import { join } from 'node:path';
import { X264 } from '@vss/server/tools';
import { bareArgs, bareM4aArgs } from './export-bare.ts';
import { CAM_FPS, type MediaFiles, type Written } from './export-fixture.ts';
import { renderBare, renderVss, summarize, type Run, type Summary } from './export-run.ts';
import type { ServerProcess } from './server.ts';
import { fmt, mib, printTable, round } from './table.ts';

/** Full export: bare seconds ÷ vss seconds (issue 32: the service at least as fast as the bare command). */
export const TARGET_RATIO = 1.0;
/** Server + its ffmpeg during the full export (issue 18). */
export const TARGET_PEAK_BYTES = 300e6;
/** A 10 s clip of a 10-minute recording takes at most this many times a 10 s recording's export. */
export const TARGET_CLIP = 1.5;
/** `m4a` of the 10-minute recording: at least this many times real time. */
export const TARGET_M4A_X = 20;
/** The clip's length. */
export const CLIP_MS = 10_000;

/** A recording written into the server's store, and the media files it was written from. */
export interface Recording {
  sessionId: string;
  media: MediaFiles;
  written: Written;
  /** output frames of its full export: the service's count, from the first media frame to the last */
  frames: number;
  epochMs: number;
}

/** The output frames of a full export of `written`, as the service counts them. */
export const framesOf = (written: Written) => Math.round((written.spanMs * CAM_FPS) / 1000) + 1;

export interface Side {
  label: string;
  /** seconds of media it makes, for × real time */
  mediaS: number;
  run: () => Promise<Run>;
  runs: Run[];
}

export interface Scenario {
  key: 'full' | 'full_1080p' | 'clip' | 'm4a';
  title: string;
  sides: Side[];
}

export interface ScenarioContext {
  server: ServerProcess;
  key: string;
  /** where the bare commands write (and their name bars' files go) */
  dir: string;
  minutes: number;
  /** the full export's recording (`minutes` long) */
  main: Recording;
  /** the long recording (10 minutes; --quick: 1) the clip and the `m4a` are made from */
  long: Recording;
  /** the first CLIP_MS of the same media, a recording of its own */
  short: Recording;
}

/** The clip: CLIP_MS from the middle of the long recording, on the session's clock. */
export function clipOf(long: Recording): { from_ts: number; to_ts: number } {
  const from = long.epochMs + Math.floor((long.written.spanMs - CLIP_MS) / 2000) * 1000;
  return { from_ts: from, to_ts: from + CLIP_MS };
}

export function scenarios(ctx: ScenarioContext): Scenario[] {
  const { server, key, dir, main, long, short } = ctx;
  const vss = (label: string, rec: Recording, mediaS: number, options: Record<string, unknown>): Side => ({
    label,
    mediaS,
    run: () => renderVss(server, rec.sessionId, key, options),
    runs: [],
  });
  const bare = (label: string, mediaS: number, args: (out: string) => string[], name: string): Side => {
    const out = join(dir, name);
    return { label, mediaS, run: () => renderBare(args(out), out, dir), runs: [] };
  };
  const mainS = main.frames / CAM_FPS;
  const longS = long.frames / CAM_FPS;
  const shortS = short.frames / CAM_FPS;
  const clip = clipOf(long);
  const at = (ts: number) => fmt((ts - long.epochMs) / 1000, 0);
  const encoder = `libx264 ${X264.preset} CRF ${X264.crf}`;
  return [
    {
      key: 'full',
      title: `1. full export: ${ctx.minutes}-minute 4-participant grid, 1280x720 at ${CAM_FPS} fps, ${encoder}`,
      sides: [
        vss('vss (enqueue → completed)', main, mainS, {}),
        bare('bare ffmpeg command', mainS, (out) => bareArgs(main.media, main.frames, out), 'bare.mp4'),
      ],
    },
    {
      key: 'full_1080p',
      title: `2. the same at resolution 1080p: 1920x1080, tiles 954x534 12 px apart, ${encoder}`,
      sides: [
        vss('vss 1080p (enqueue → completed)', main, mainS, { resolution: '1080p' }),
        bare(
          'bare ffmpeg command, 1920x1080',
          mainS,
          (out) => bareArgs(main.media, main.frames, out, { resolution: '1080p' }),
          'bare-1080p.mp4',
        ),
      ],
    },
    {
      key: 'clip',
      title:
        `3. a ${CLIP_MS / 1000} s clip (from_ts/to_ts, ${at(clip.from_ts)}–${at(clip.to_ts)} s) of the ` +
        `${fmt(longS / 60, 0)}-minute recording, against the full export of a ${CLIP_MS / 1000} s recording ` +
        `(the same media), 1280x720`,
      sides: [
        vss(`vss clip of the ${fmt(longS / 60, 0)}-minute recording`, long, CLIP_MS / 1000, clip),
        vss(`vss full export of the ${CLIP_MS / 1000} s recording`, short, shortS, {}),
        bare(
          `bare ffmpeg command, first ${CLIP_MS / 1000} s`,
          shortS,
          (out) => bareArgs(long.media, short.frames, out),
          'bare-10s.mp4',
        ),
      ],
    },
    {
      key: 'm4a',
      title: `4. format m4a of the ${fmt(longS / 60, 0)}-minute recording: 4 microphones mixed, mono AAC 128k`,
      sides: [
        vss('vss m4a (enqueue → completed)', long, longS, { format: 'm4a' }),
        bare(
          'bare ffmpeg command, 4 Ogg → m4a',
          longS,
          (out) => bareM4aArgs(long.media, longS, out),
          'bare.m4a',
        ),
      ],
    },
  ];
}

/** Each side's summary over the rounds. */
export function summaries(s: Scenario): Summary[] {
  return s.sides.map((side) => summarize(side.runs));
}

export function printScenario(s: Scenario, rounds: number): void {
  const sums = summaries(s);
  printTable(
    [
      'side',
      'seconds',
      'range',
      '× real time',
      'ffmpeg CPU s',
      'server CPU s',
      'ffmpeg peak MiB',
      'server peak MiB',
      'file MB',
    ],
    s.sides.map((side, i) => {
      const x = sums[i]!;
      const isVss = side.runs[0]?.side === 'vss';
      return [
        side.label,
        fmt(x.wallS, 2),
        `${fmt(x.min, 2)}–${fmt(x.max, 2)}`,
        fmt(side.mediaS / x.wallS, 2),
        fmt(x.ffmpegCpuS, 1),
        isVss ? fmt(x.serverCpuS, 1) : '',
        fmt(mib(x.ffmpegPeak), 1),
        isVss ? fmt(mib(x.serverPeak), 1) : '',
        fmt(x.bytes / 1e6, 2),
      ];
    }),
    `${s.title}; median of ${rounds} round(s)`,
  );
}

const yn = (b: boolean) => (b ? 'met' : 'NOT MET');

function sideJson(side: Side, x: Summary): Record<string, number | string> {
  const isVss = side.runs[0]?.side === 'vss';
  return {
    label: side.label,
    seconds: round(x.wallS, 2),
    min_s: round(x.min, 2),
    max_s: round(x.max, 2),
    x_real_time: round(side.mediaS / x.wallS, 2),
    ffmpeg_cpu_s: round(x.ffmpegCpuS, 1),
    ffmpeg_peak_mib: round(mib(x.ffmpegPeak), 1),
    ...(isVss
      ? {
          server_cpu_s: round(x.serverCpuS, 1),
          server_peak_mib: round(mib(x.serverPeak), 1),
          ffmpeg_start_s: round(x.startS, 2),
        }
      : {}),
    bytes: x.bytes,
  };
}

/**
 * The figures of every scenario and whether its target is met, printed as lines and returned for
 * the JSON line: ratio = bare seconds ÷ vss seconds, ratio_cpu = the bare command's CPU seconds ÷
 * the service's (its ffmpeg and the server process), steadier on a shared machine.
 */
export function figures(all: Scenario[]): {
  json: Record<string, unknown>;
  targets: Record<string, boolean>;
} {
  const json: Record<string, unknown> = {};
  const targets: Record<string, boolean> = {};
  const lines: string[] = [];
  for (const s of all) {
    const sums = summaries(s);
    const [v, b] = [sums[0]!, sums[sums.length - 1]!];
    const ratio = b.wallS / v.wallS;
    const ratioCpu = b.ffmpegCpuS / (v.ffmpegCpuS + v.serverCpuS);
    const out: Record<string, unknown> = {
      sides: s.sides.map((side, i) => sideJson(side, sums[i]!)),
      ratio: round(ratio, 3),
      ratio_cpu: round(ratioCpu, 3),
    };
    const by = `bare ÷ vss ${fmt(ratio, 3)}, by CPU seconds ${fmt(ratioCpu, 3)}`;
    if (s.key === 'full') {
      const peak = v.ffmpegPeak + v.serverPeak;
      targets.full_ratio_ge_1_0 = ratio >= TARGET_RATIO;
      targets.peak_lt_300_mb = peak < TARGET_PEAK_BYTES;
      out.peak_mb = round(peak / 1e6, 1);
      lines.push(
        `1. full export, vss ≥ ${TARGET_RATIO} × the bare command's speed: ${yn(targets.full_ratio_ge_1_0)} (${by})`,
        `   peak memory (server + its ffmpeg) < ${TARGET_PEAK_BYTES / 1e6} MB (issue 18): ${yn(targets.peak_lt_300_mb)} ` +
          `(${fmt(peak / 1e6, 1)} MB: server ${fmt(v.serverPeak / 1e6, 1)} + ffmpeg ${fmt(v.ffmpegPeak / 1e6, 1)}; ` +
          `the bare command ${fmt(b.ffmpegPeak / 1e6, 1)})`,
      );
    } else if (s.key === 'full_1080p') {
      lines.push(`2. 1080p: no target is set (${by})`);
    } else if (s.key === 'clip') {
      const tenS = sums[1]!;
      const clipX = v.wallS / tenS.wallS;
      targets.clip_le_1_5x_10s_export = clipX <= TARGET_CLIP;
      out.clip_over_10s_export = round(clipX, 3);
      out.ratio_10s_export = round(b.wallS / tenS.wallS, 3);
      lines.push(
        `3. clip ÷ the ${CLIP_MS / 1000} s recording's export ≤ ${TARGET_CLIP}: ${yn(targets.clip_le_1_5x_10s_export)} ` +
          `(${fmt(clipX, 3)}: ${fmt(v.wallS, 2)} s ÷ ${fmt(tenS.wallS, 2)} s; the bare command ${fmt(b.wallS, 2)} s: ` +
          `bare ÷ clip ${fmt(ratio, 3)}, bare ÷ ${CLIP_MS / 1000} s export ${fmt(b.wallS / tenS.wallS, 3)})`,
      );
    } else {
      const x = s.sides[0]!.mediaS / v.wallS;
      targets.m4a_ge_20x_real_time = x >= TARGET_M4A_X;
      lines.push(
        `4. m4a ≥ ${TARGET_M4A_X}× real time: ${yn(targets.m4a_ge_20x_real_time)} ` +
          `(${fmt(x, 1)}×; the bare command ${fmt(s.sides[1]!.mediaS / b.wallS, 1)}×; ${by})`,
      );
    }
    json[s.key] = out;
  }
  console.log(`\ntargets:\n${lines.map((l) => `  ${l}`).join('\n')}`);
  return { json, targets };
}
