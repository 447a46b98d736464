/**
 * export: rendering a recorded session to MP4 through the service (enqueue → job → file) against
 * one hand-written ffmpeg command making the same composition from the same frames on disk.
 *
 *   npm run bench -- export [--quick] [--minutes=N] [--rounds=N] [--presets] [--keep]
 *
 * Fixture (bench/lib/export-fixture.ts): 4 participants, each a 640x480 MJPEG camera at 15 fps
 * (about 22 kB a frame) and an Opus microphone, 10 minutes (--quick: 1). A first run of the compiled
 * server creates an account, a key and a session through the API and stops; the frames are written
 * into its stream store (SQLite, the default) with the store's own appendBatch; the server starts
 * again on the same DATA_DIR.
 *
 * Measured, in rounds that alternate which side goes first:
 *   vss   GET /v1/sessions/{id}/export (grid, landscape) with the API key, then GET /v1/exports/{id}
 *         every 500 ms until `completed`: seconds from the enqueue (just before its request) to the
 *         job's `completed_at` (the server's clock, this machine's: the polling interval is not
 *         counted), when the server started ffmpeg (from its start time in /proc, to 10 ms), the
 *         server's and its ffmpeg child's CPU and peak RSS (VmHWM; the server's is reset before each
 *         render)
 *   bare  the server's ffmpeg (PATH's, else the bundled one: its version is printed, and builds
 *         differ widely in speed and memory) with the 4 MJPEG files and 4 Ogg files as inputs and
 *         one filter graph: a 1280x720 canvas, each camera scaled to fit 636x356, the service's
 *         name bar (the user id) overlaid onto it, padded, overlaid in a 2x2 grid 8 px apart; the
 *         4 (mono) microphones mixed at unity gain. Same
 *         encoder settings as the service (libx264 at the product's preset and CRF, yuv420p, AAC
 *         128k, +faststart), same frame count; seconds from its start to its exit.
 * `ratio` = bare seconds ÷ vss seconds (medians over the rounds): the share of the bare command's
 * speed that the service achieves from enqueue to `completed`; `ratio_cpu` = the bare command's CPU
 * seconds ÷ the service's (its ffmpeg and the server process), steadier on a shared machine.
 * Targets (issue 18): ratio ≥ 0.95; peak memory (server + its ffmpeg) < 300 MB.
 *
 * --presets: before the rounds, the bare command once per libx264 preset on the first minute, with
 * its speed, bitrate and SSIM against a lossless encode of the same composition (why the product
 * uses the preset it does). --keep leaves the DATA_DIR.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { measureWith } from '../packages/server/src/modules/exports/font-metrics.ts';
import { nameFont } from '../packages/server/src/modules/exports/fonts.ts';
import { encoderArgs, X264 } from '../packages/server/src/modules/exports/graph.ts';
import { barPicture, nameBar } from '../packages/server/src/modules/exports/name-bar.ts';
import type { sqliteStreamStore as SqliteStreamStore } from '../packages/server/src/streams/sqlite.js';
import type { BenchOptions } from './run.ts';
import { intFlag } from './lib/args.ts';
import { expectCall } from './lib/http.ts';
import { benchTenant } from './lib/tenant.ts';
import {
  CAM_FPS,
  FFMPEG,
  FFMPEG_FOUND,
  mediaFiles,
  PARTICIPANTS,
  writeRecording,
  type MediaFiles,
} from './lib/export-fixture.ts';
import { waitForQuiet } from './lib/machine.ts';
import { median } from './lib/load.ts';
import { ProcSampler, readProc, resetPeak } from './lib/proc.ts';
import { ROOT, startProcess, stopAll, vssArgs, type ServerProcess } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';

const EPOCH_MS = Date.UTC(2026, 10, 21, 10, 0, 0);
const TARGET_RATIO = 0.95;
const TARGET_PEAK_BYTES = 300e6;
/**
 * How often the job is asked whether it has completed. Its time is read from its own `completed_at`,
 * so this only decides how soon the end is seen; the `vss` command line asks once a second.
 */
const POLL_MS = 500;
const PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium'];

/** One render: how long it took and what it cost. */
interface Run {
  side: 'vss' | 'bare';
  wallS: number;
  /** ffmpeg's CPU seconds and peak RSS */
  ffmpegCpuS: number;
  ffmpegPeak: number;
  /** vss only: the server process during the render */
  serverCpuS: number;
  serverPeak: number;
  bytes: number;
  load: number;
  /** vss only: seconds from the enqueue to the start of the server's ffmpeg */
  startS: number;
}

/**
 * The service's name bars on the bare command's tiles: the same pictures (each participant's user
 * id, as the service shows a participant without a display name, in the same font) at the same
 * places, drawn once and overlaid onto each scaled camera picture. Their files go into `dir`,
 * ffmpeg's working directory.
 */
function nameBars(dir: string): Array<{ picture: string; x: number; bottom: number }> {
  const font = nameFont();
  let fontArg = 'font=Sans';
  if (font) {
    const name = `font${extname(font)}`;
    rmSync(join(dir, name), { force: true });
    symlinkSync(font, join(dir, name));
    fontArg = `fontfile=${name}`;
  }
  const measure = measureWith(font);
  return Array.from({ length: PARTICIPANTS }, (_, p) => {
    const bar = nameBar(636, 356, `participant-${p}`, measure)!;
    writeFileSync(join(dir, `bar-${p}.txt`), bar.text);
    return { picture: barPicture(bar, CAM_FPS, fontArg, `bar-${p}.txt`), x: bar.x, bottom: bar.bottom };
  });
}

/**
 * The hand-written command: the same grid, name bars and mix as the service's, straight from the
 * files. Run in the output's directory (the bars' files are there).
 */
function bareArgs(
  media: MediaFiles,
  frames: number,
  output: string,
  x264: { preset: string; crf: number } = X264,
  format: 'mp4' | 'matroska' = 'mp4',
): string[] {
  const seconds = frames / CAM_FPS;
  const fit =
    "scale=w='if(gt(a,1.786517),636,trunc(356*a/2)*2)':h='if(gt(a,1.786517),trunc(636/a/2)*2,356)',setsar=1";
  const pad = 'pad=636:356:(ow-iw)/2:(oh-ih)/2:black';
  const at = ['0:0', '644:0', '0:364', '644:364'];
  const bars = nameBars(dirname(output));
  const graph = [
    `color=c=0x111318:s=1280x720:r=${CAM_FPS}:d=${seconds}[c0]`,
    ...bars.map((b, p) => `${b.picture}[b${p}]`),
    ...media.cams.map(
      (_, p) =>
        `[${p}:v]${fit}[p${p}];[p${p}][b${p}]overlay=x=${bars[p]!.x}:y=main_h-overlay_h-${bars[p]!.bottom},${pad}[v${p}]`,
    ),
    ...media.cams.map((_, p) => `[c${p}][v${p}]overlay=${at[p]}[c${p + 1}]`),
    `[c${media.cams.length}]format=yuv420p[vout]`,
    `${media.mics.map((_, p) => `[${media.cams.length + p}:a]`).join('')}amix=inputs=${media.mics.length}:` +
      `duration=first:dropout_transition=0,volume=${media.mics.length},atrim=end=${seconds}[aout]`,
  ].join(';');
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
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
    ...encoderArgs(x264),
    ...(format === 'mp4' ? ['-movflags', '+faststart'] : []),
    '-f',
    format,
    output,
  ];
}

/** Runs ffmpeg to completion, sampling its CPU and memory. */
async function runFfmpeg(
  args: string[],
  cwd?: string,
): Promise<{ wallS: number; cpuS: number; peak: number; stderr: string }> {
  const t0 = performance.now();
  const child = spawn(FFMPEG, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const sampler = new ProcSampler(child.pid!, 100);
  const code = await new Promise<number | null>((ok) => child.once('close', ok));
  sampler.stop();
  if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${stderr}`);
  return {
    wallS: (performance.now() - t0) / 1000,
    cpuS: sampler.last?.cpuS ?? NaN,
    peak: sampler.peakRssBytes,
    stderr,
  };
}

/** Clock ticks per second of /proc/<pid>/stat's times. */
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** Seconds since boot, to 10 ms: the clock of a process's start time in /proc. */
function uptimeS(): number {
  return Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
}

/** The ffmpeg process the server started, once there is one, and when it started (seconds since boot). */
function ffmpegChildOf(pid: number): { pid: number; startedS: number } | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is field 3 (state): the parent is field 4, the start time field 22.
      if (Number(fields[1]) === pid && stat.includes('(ffmpeg)'))
        return { pid: Number(name), startedS: Number(fields[19]) / CLK_TCK };
    } catch {
      // gone
    }
  }
  return null;
}

async function renderVss(server: ServerProcess, sessionId: string, key: string): Promise<Run> {
  const auth = { authorization: `Bearer ${key}` };
  const load = loadavg()[0]!;
  resetPeak(server.pid);
  const mark = server.sampler.mark();
  const enqueuedAt = Date.now();
  const up0 = uptimeS();
  const queued = await expectCall<{ data: { job_id: string } }>(
    202,
    `${server.url}/v1/sessions/${sessionId}/export`,
    { headers: auth },
  );
  const id = queued.json.data.job_id;
  const child: { sampler: ProcSampler | null; startS: number } = { sampler: null, startS: NaN };
  // The server's ffmpeg is looked for in /proc, outside the server, until it is found: its start
  // time there is exact to 10 ms however late it is seen.
  const watch = setInterval(() => {
    const found = child.sampler ? null : ffmpegChildOf(server.pid);
    if (!found) return;
    child.sampler = new ProcSampler(found.pid, 100);
    child.startS = found.startedS - up0;
  }, 50);
  let job: { status: string; size_bytes: number | null; error: string | null; completed_at: string | null };
  try {
    for (;;) {
      const res = await expectCall<{ data: typeof job }>(200, `${server.url}/v1/exports/${id}`, {
        headers: auth,
      });
      job = res.json.data;
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    clearInterval(watch);
  }
  child.sampler?.stop();
  if (job.status !== 'completed') throw new Error(`the export failed: ${job.error}`);
  // To the moment the job became `completed` on the server (same machine, same clock), not to the
  // poll that saw it.
  const wallS = (Date.parse(job.completed_at!) - enqueuedAt) / 1000;
  const serverCpuS = server.sampler.cpuSince(mark);
  return {
    side: 'vss',
    wallS,
    ffmpegCpuS: child.sampler?.last?.cpuS ?? NaN,
    ffmpegPeak: child.sampler?.peakRssBytes ?? NaN,
    serverCpuS,
    serverPeak: readProc(server.pid)?.peakRssBytes ?? NaN,
    bytes: job.size_bytes ?? 0,
    load,
    startS: child.startS,
  };
}

async function renderBare(media: MediaFiles, frames: number, dir: string): Promise<Run> {
  const load = loadavg()[0]!;
  const out = join(dir, 'bare.mp4');
  const r = await runFfmpeg(bareArgs(media, frames, out), dir);
  return {
    side: 'bare',
    wallS: r.wallS,
    ffmpegCpuS: r.cpuS,
    ffmpegPeak: r.peak,
    serverCpuS: 0,
    serverPeak: 0,
    bytes: statSync(out).size,
    load,
    startS: 0,
  };
}

/** libx264 presets on the bare command: speed, bitrate, SSIM against a lossless encode. */
async function comparePresets(
  media: MediaFiles,
  dir: string,
): Promise<Array<Record<string, number | string>>> {
  const frames = 60 * CAM_FPS;
  const lossless = join(dir, 'lossless.mkv');
  await runFfmpeg(bareArgs(media, frames, lossless, { preset: 'ultrafast', crf: 0 }, 'matroska'), dir);
  const rows: Array<Record<string, number | string>> = [];
  for (const preset of PRESETS) {
    const out = join(dir, `preset-${preset}.mp4`);
    const r = await runFfmpeg(bareArgs(media, frames, out, { preset, crf: X264.crf }), dir);
    // Frames are paired by index: the two files' time bases differ, and pairing by time would compare neighbours.
    const ssim = await runFfmpeg([
      '-hide_banner',
      '-nostdin',
      '-i',
      out,
      '-i',
      lossless,
      '-lavfi',
      `[0:v]settb=1/${CAM_FPS},setpts=N[a];[1:v]settb=1/${CAM_FPS},setpts=N[b];[a][b]ssim`,
      '-f',
      'null',
      '-',
    ]);
    const all = /SSIM .*All:([\d.]+)/.exec(ssim.stderr)?.[1];
    const row = {
      preset,
      x_real_time: round(60 / r.wallS, 2),
      kbit_s: Math.round((statSync(out).size * 8) / 60 / 1000),
      ssim: all ? Number(all) : NaN,
      peak_mib: round(mib(r.peak), 1),
    };
    rows.push(row);
    console.log(
      `  preset ${preset.padEnd(9)} ${fmt(row.x_real_time, 2)}× real time, ${row.kbit_s} kbit/s, SSIM ${row.ssim}`,
    );
  }
  return rows;
}

export default async function exportBench({ quick, args }: BenchOptions): Promise<void> {
  const minutes = intFlag(args, 'minutes') ?? (quick ? 1 : 10);
  const rounds = intFlag(args, 'rounds') ?? (quick ? 1 : 2);
  const keep = args.includes('--keep');
  const started = Date.now();
  const media = mediaFiles(minutes, console.log);
  const dataDir = mkdtempSync(join(tmpdir(), 'vss-bench-export-'));
  const env = {
    DATABASE_URL: '',
    REDIS_URL: '',
    PUBLIC_BASE_URL: '',
    SECRET_KEY: '',
    FFMPEG_PATH: '',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
  };
  const start = (name: string) =>
    startProcess({
      name,
      command: process.execPath,
      args: vssArgs(),
      env,
      timeoutMs: 60_000,
    });
  try {
    // ------------------------------------------------------------ the recording
    const first = await start('vss (bootstrap)');
    const { sessionId, secret: key } = await benchTenant(first.url, 'export');
    await first.stop();
    const g0 = performance.now();
    const mod = (await import(join(ROOT, 'packages/server/dist/streams/sqlite.js'))) as {
      sqliteStreamStore: typeof SqliteStreamStore;
    };
    const store = mod.sqliteStreamStore(dataDir);
    const written = await writeRecording(store, sessionId, media, EPOCH_MS);
    await store.close();
    const genS = (performance.now() - g0) / 1000;
    const frames = Math.round((written.spanMs * CAM_FPS) / 1000) + 1;
    const mediaS = frames / CAM_FPS;
    console.log(
      `export: ${minutes}-minute recording of 4 participants: ${written.camFrames.toLocaleString('en-US')} camera frames, ` +
        `${written.micPackets.toLocaleString('en-US')} opus packets, ${fmt(written.payloadBytes / 1e6)} MB, ` +
        `written in ${fmt(genS, 1)} s; ${frames} output frames (${fmt(mediaS, 2)} s) at preset ${X264.preset}, CRF ${X264.crf}; ` +
        `${FFMPEG_FOUND.source} ${FFMPEG_FOUND.version ?? FFMPEG}`,
    );

    const server = await start('vss');
    const restRss = readProc(server.pid)?.rssBytes ?? NaN;

    let presets: Array<Record<string, number | string>> = [];
    if (args.includes('--presets')) {
      console.log('export: libx264 presets on the bare command, first minute');
      presets = await comparePresets(mediaFiles(1, console.log), dataDir);
    }

    // ------------------------------------------------------------ interleaved rounds
    const runs: Run[] = [];
    for (let r = 1; r <= rounds; r++) {
      const quiet = await waitForQuiet(0.5, quick ? 2000 : 20_000);
      const order = r % 2 === 1 ? (['vss', 'bare'] as const) : (['bare', 'vss'] as const);
      for (const side of order) {
        const run =
          side === 'vss' ? await renderVss(server, sessionId, key) : await renderBare(media, frames, dataDir);
        runs.push(run);
        console.log(
          `  round ${r}/${rounds} ${side.padEnd(4)}: ${fmt(run.wallS, 1).padStart(6)} s  ` +
            `${fmt(mediaS / run.wallS, 2)}× real time  ffmpeg ${fmt(run.ffmpegCpuS, 1)} CPU s, peak ${fmt(mib(run.ffmpegPeak), 1)} MiB` +
            (side === 'vss'
              ? `  server ${fmt(run.serverCpuS, 1)} CPU s, peak ${fmt(mib(run.serverPeak), 1)} MiB, ffmpeg started after ${fmt(run.startS, 2)} s`
              : '') +
            `  (load ${run.load.toFixed(2)}, other work before the round ${fmt(quiet, 2)} cores)`,
        );
      }
    }
    await server.stop();

    // ------------------------------------------------------------ summary
    const of = (side: Run['side']) => runs.filter((x) => x.side === side);
    const sum = (xs: Run[]) => ({
      wallS: median(xs.map((x) => x.wallS)),
      min: Math.min(...xs.map((x) => x.wallS)),
      max: Math.max(...xs.map((x) => x.wallS)),
      ffmpegCpuS: median(xs.map((x) => x.ffmpegCpuS)),
      serverCpuS: median(xs.map((x) => x.serverCpuS)),
      ffmpegPeak: Math.max(...xs.map((x) => x.ffmpegPeak)),
      serverPeak: Math.max(...xs.map((x) => x.serverPeak)),
      bytes: median(xs.map((x) => x.bytes)),
      startS: median(xs.map((x) => x.startS)),
    });
    const vss = sum(of('vss'));
    const bare = sum(of('bare'));
    const ratio = bare.wallS / vss.wallS;
    // CPU seconds are much less disturbed by other work on the machine than wall time.
    const ratioCpu = bare.ffmpegCpuS / (vss.ffmpegCpuS + vss.serverCpuS);
    const peak = vss.ffmpegPeak + vss.serverPeak;
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
        'MP4 MB',
      ],
      [vss, bare].map((x, i) => [
        i === 0 ? 'vss (enqueue → completed)' : 'bare ffmpeg command',
        fmt(x.wallS, 1),
        `${fmt(x.min, 1)}–${fmt(x.max, 1)}`,
        fmt(mediaS / x.wallS, 2),
        fmt(x.ffmpegCpuS, 1),
        i === 0 ? fmt(x.serverCpuS, 1) : '',
        fmt(mib(x.ffmpegPeak), 1),
        i === 0 ? fmt(mib(x.serverPeak), 1) : '',
        fmt(x.bytes / 1e6, 1),
      ]),
      `${minutes}-minute 4-participant grid, 1280x720 at ${CAM_FPS} fps, libx264 ${X264.preset} CRF ${X264.crf}; ` +
        `median of ${rounds} round(s); server RSS at rest ${fmt(mib(restRss), 1)} MiB`,
    );
    const met = { ratio: ratio >= TARGET_RATIO, peak: peak < TARGET_PEAK_BYTES };
    const yn = (b: boolean) => (b ? 'met' : 'NOT MET');
    console.log(
      `\ntargets: vss ≥ ${TARGET_RATIO} × the bare command's speed: ${yn(met.ratio)} (${fmt(ratio, 3)}; ` +
        `by CPU seconds, ffmpeg + server: ${fmt(ratioCpu, 3)})\n` +
        `         peak memory (server + its ffmpeg) < ${TARGET_PEAK_BYTES / 1e6} MB: ${yn(met.peak)} (${fmt(peak / 1e6, 1)} MB: ` +
        `server ${fmt(vss.serverPeak / 1e6, 1)} + ffmpeg ${fmt(vss.ffmpegPeak / 1e6, 1)}; the bare command ${fmt(bare.ffmpegPeak / 1e6, 1)})`,
    );
    console.log(
      JSON.stringify({
        bench: 'export',
        quick,
        minutes,
        rounds,
        participants: 4,
        preset: X264.preset,
        crf: X264.crf,
        ffmpeg: FFMPEG_FOUND.version,
        media_s: round(mediaS, 2),
        frames,
        fixture: {
          events: written.events,
          payload_bytes: written.payloadBytes,
          generation_s: round(genS, 1),
        },
        ratio: round(ratio, 3),
        ratio_cpu: round(ratioCpu, 3),
        vss: {
          seconds: round(vss.wallS, 1),
          x_real_time: round(mediaS / vss.wallS, 2),
          ffmpeg_cpu_s: round(vss.ffmpegCpuS, 1),
          server_cpu_s: round(vss.serverCpuS, 1),
          ffmpeg_peak_mib: round(mib(vss.ffmpegPeak), 1),
          server_peak_mib: round(mib(vss.serverPeak), 1),
          ffmpeg_start_s: round(vss.startS, 2),
          mp4_bytes: vss.bytes,
        },
        bare: {
          seconds: round(bare.wallS, 1),
          x_real_time: round(mediaS / bare.wallS, 2),
          ffmpeg_cpu_s: round(bare.ffmpegCpuS, 1),
          ffmpeg_peak_mib: round(mib(bare.ffmpegPeak), 1),
          mp4_bytes: bare.bytes,
        },
        peak_mb: round(peak / 1e6, 1),
        presets,
        targets: { ratio_ge_0_95: met.ratio, peak_lt_300_mb: met.peak },
        targets_met: met.ratio && met.peak,
        load_average_end: loadavg().map((l) => round(l)),
        duration_s: Math.round((Date.now() - started) / 1000),
      }),
    );
  } finally {
    await stopAll();
    if (keep) console.error(`export: DATA_DIR kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}
