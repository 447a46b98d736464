/**
 * One render of the export benchmark, timed and costed: through the service (`renderVss`) or as a
 * bare ffmpeg command (`renderBare`), and the summary of a side's renders over the rounds.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { expectCall } from './http.ts';
import { FFMPEG } from './export-fixture.ts';
import { median } from './load.ts';
import { ProcSampler, readProc, resetPeak } from './proc.ts';
import type { ServerProcess } from './server.ts';

/**
 * How often the job is asked whether it has completed. Its time is read from its own `completed_at`,
 * so this only decides how soon the end is seen; the `vss` command line asks once a second.
 */
const POLL_MS = 500;

/** One render: how long it took and what it cost. */
export interface Run {
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

/** Runs ffmpeg to completion, sampling its CPU and memory. */
export async function runFfmpeg(
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
export function ffmpegChildOf(pid: number): { pid: number; startedS: number } | null {
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

/**
 * One export through the service: POST /v1/sessions/{id}/exports with `options` as the JSON body
 * and the API key, then GET /v1/exports/{id} every POLL_MS until it is `completed`. Timed from
 * just before the enqueue to the job's `completed_at` (the server's clock, this machine's).
 */
export async function renderVss(
  server: ServerProcess,
  sessionId: string,
  key: string,
  options: Record<string, unknown> = {},
): Promise<Run> {
  const auth = { authorization: `Bearer ${key}` };
  const load = loadavg()[0]!;
  resetPeak(server.pid);
  const mark = server.sampler.mark();
  const enqueuedAt = Date.now();
  const up0 = uptimeS();
  const queued = await expectCall<{ data: { job_id: string } }>(
    202,
    `${server.url}/v1/sessions/${sessionId}/exports`,
    { method: 'POST', headers: auth, json: options },
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

/** One bare command writing `output`, run in `cwd`: seconds from its start to its exit. */
export async function renderBare(args: string[], output: string, cwd: string): Promise<Run> {
  const load = loadavg()[0]!;
  const r = await runFfmpeg(args, cwd);
  return {
    side: 'bare',
    wallS: r.wallS,
    ffmpegCpuS: r.cpuS,
    ffmpegPeak: r.peak,
    serverCpuS: 0,
    serverPeak: 0,
    bytes: statSync(output).size,
    load,
    startS: 0,
  };
}

/** A side's renders over the rounds: medians, the range of wall times, the peaks. */
export interface Summary {
  wallS: number;
  min: number;
  max: number;
  ffmpegCpuS: number;
  serverCpuS: number;
  ffmpegPeak: number;
  serverPeak: number;
  bytes: number;
  startS: number;
}

export function summarize(xs: Run[]): Summary {
  return {
    wallS: median(xs.map((x) => x.wallS)),
    min: Math.min(...xs.map((x) => x.wallS)),
    max: Math.max(...xs.map((x) => x.wallS)),
    ffmpegCpuS: median(xs.map((x) => x.ffmpegCpuS)),
    serverCpuS: median(xs.map((x) => x.serverCpuS)),
    ffmpegPeak: Math.max(...xs.map((x) => x.ffmpegPeak)),
    serverPeak: Math.max(...xs.map((x) => x.serverPeak)),
    bytes: median(xs.map((x) => x.bytes)),
    startS: median(xs.map((x) => x.startS)),
  };
}
