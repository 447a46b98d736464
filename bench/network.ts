/**
 * network: live media over slow links (packages/server/test/support/netlab: network namespaces,
 * veth pairs and `tc tbf`; needs root).
 *
 *   npm run bench -- network [--quick] [--logs=DIR]
 *
 * Starts the compiled server as `npm start` does, with its defaults, except HOST=0.0.0.0 (the
 * namespaces reach it through their veth's host-side address, not 127.0.0.1), then runs `vss bot`
 * with its defaults (VP8 camera in three layers, 640x360 at 15 fps and below, Opus tone, chat) in two sessions:
 *   downlink  a receiver behind 250 kbit/s for 25 s (judged over 5–25 s), then 5 Mbit/s for 15 s
 *             (recovery), beside an unconstrained receiver of the same session (the baseline);
 *   uplink    the bot inside a namespace, unshaped for 5 s (the baseline), then behind a 300 kbit/s
 *             uplink for 20 s (judged over the last 15 s), one unconstrained receiver;
 *   join      the bot joins behind the 300 kbit/s uplink, judged from its join (second 0) to 25 s:
 *             delay = arrival less the bot's own timestamp (one clock); run `--join-runs=N` times
 *             (default 5), each judged on its own.
 *   page-join the same with the dashboard's live page in Chromium (fake camera and microphone) as
 *             the publisher, a member joining from a browser started inside the namespace; the
 *             delay is the arrival less the page's capture timestamp of each picture and sound.
 *   firefox-join  the same with a guest in Firefox ESR (join link, PulseAudio null sink as its
 *             speakers), started inside the namespace: the engine without MediaStreamTrackProcessor.
 * --quick: 12 s slow (judged 4–12 s), 10 s recovery; uplink 4 s lead, 12 s shaped; joins 12 s, twice.
 * --only=downlink,uplink,join,page-join,firefox-join: the scenarios to run (default all).
 * Prints, per second of each run: delay p50/p95 per track (ms, beyond the unconstrained median),
 * video frames, the audio's longest gap, layer events; then the targets with pass/fail, the slow
 * receiver beside the unconstrained one. "added": per frame, the slow receiver's arrival minus the
 * unconstrained receiver's arrival of the same frame (free of the publisher's own jitter, which a
 * busy machine gives the bot's encoder). --logs=DIR keeps the logs as JSON lines. Last line: the
 * figures as JSON.
 * The targets (delay p95, audio gaps, frames per second, recovery time) are timings, judged here
 * alone, on a quiet machine; the network tests (packages/cli/test/network) assert only the wide
 * bounds beyond which a person notices something broken.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from './run.ts';
import { intFlag, strFlag } from './lib/args.ts';
import { freePort, ROOT, vssArgs } from './lib/server.ts';
import { fmt, printTable } from './lib/table.ts';
import { benchTenant } from './lib/tenant.ts';
import { netlabUnavailable } from '../packages/server/test/support/netlab/links.ts';
import {
  FULL_TIMINGS,
  QUICK_TIMINGS,
  RATES,
  runDownlink,
  runJoinBehind,
  runUplink,
  type JoinRun,
  type Target,
} from '../packages/server/test/support/netlab/scenario.ts';
import {
  downlinkFigures,
  joinFigures,
  uplinkFigures,
  type Check,
  type JoinFigures,
} from '../packages/server/test/support/netlab/figures.ts';
import { runPageJoin } from './lib/page-join.ts';
import { addedDelay, type WindowStats } from '../packages/server/test/support/netlab/stats.ts';

/** What this benchmark changes from `npm start`'s defaults. */
const ENV = { HOST: '0.0.0.0' };

const ms = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : '-');

/**
 * The compiled server with a fresh DATA_DIR, listening on 0.0.0.0; stopped on exit. `publicHost`:
 * the address its pages are opened at (PUBLIC_BASE_URL, which a browser's cookie-authenticated
 * calls must come from).
 */
export async function startServer(publicHost?: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vss-bench-network-'));
  const child = spawn(process.execPath, vssArgs(), {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      PUBLIC_BASE_URL: publicHost ? `http://${publicHost}:${port}` : '',
      SECRET_KEY: '',
      LOG_LEVEL: '',
      ...ENV,
      PORT: String(port),
      DATA_DIR: dataDir,
    },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  process.once('exit', () => child.kill('SIGKILL'));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return { port, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error('the server did not answer /health within 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const cells = (w: WindowStats) => [
  ms(w.delay.video.p50),
  ms(w.delay.video.p95),
  ms(w.delay.audio.p50),
  ms(w.delay.audio.p95),
  String(w.fpsPerSecond[0]!),
  ms(w.audioMaxGapMs),
];

function printChecks(title: string, checks: Check[]): void {
  printTable(
    ['figure', 'target', 'measured', 'unconstrained', 'pass'],
    checks.map((c) => [
      c.name,
      c.target,
      fmt(c.value),
      c.baseline === undefined ? '' : fmt(c.baseline),
      c.pass ? 'pass' : 'FAIL',
    ]),
    title,
  );
}

export default async function network(options: BenchOptions): Promise<void> {
  const reason = netlabUnavailable();
  if (reason) throw new Error(`network: ${reason}`);
  const tm = options.quick ? QUICK_TIMINGS : FULL_TIMINGS;
  const logs = strFlag(options.args, 'logs');
  /** --logs=DIR: the receivers' and the bot's logs as JSON lines, to look into a figure */
  const keep = (name: string, files: Record<string, unknown[]>) => {
    if (!logs) return;
    mkdirSync(logs, { recursive: true });
    for (const [file, lines] of Object.entries(files))
      writeFileSync(
        join(logs, `${name}-${file}.jsonl`),
        lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
      );
  };
  const server = await startServer();
  try {
    const { secret } = await benchTenant(`http://127.0.0.1:${server.port}`, 'network');
    const t: Target = { port: server.port, key: secret };
    console.log(
      `network: server with its defaults except ${Object.entries(ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}; tbf burst 6 KB, latency 80 ms`,
    );

    // The figures are timings on a shared machine: say how busy it was.
    console.log(
      `load average before the runs: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (${cpus().length} cores)`,
    );
    const only = new Set(
      (strFlag(options.args, 'only') ?? 'downlink,uplink,join,page-join,firefox-join').split(','),
    );
    const joinRuns = intFlag(options.args, 'join-runs') ?? (options.quick ? 2 : 5);
    const json = (checks: Check[]) =>
      Object.fromEntries(checks.map((c) => [c.name, { value: c.value, baseline: c.baseline, pass: c.pass }]));
    const out: Record<string, unknown> = { quick: options.quick, env: ENV };
    if (only.has('downlink')) {
      console.log(
        `\ndownlink: ${RATES.slowDownKbit} kbit/s for ${tm.slowS} s (judged from ${tm.settleS} s), then ${RATES.fastDownKbit} kbit/s for ${tm.recoverS} s`,
      );
      const downRun = await runDownlink(t, tm);
      keep('downlink', { slow: downRun.slow, fast: downRun.fast, bot: downRun.bot, record: downRun.record });
      const down = downlinkFigures(downRun, tm);
      printTable(
        [
          's',
          'link',
          'v p50',
          'v p95',
          'a p50',
          'a p95',
          'fps',
          'a gap',
          'layers',
          'added v p95',
          'added a p95',
          '|',
          'base v p95',
          'base a p95',
          'base fps',
        ],
        down.seconds.map(({ at, slow, fast }) => [
          String(at),
          at < tm.slowS ? `${RATES.slowDownKbit}k` : `${RATES.fastDownKbit}k`,
          ...cells(slow),
          String(slow.layerSwitches),
          ...((a) => [ms(a.video.p95), ms(a.audio.p95)])(
            addedDelay(downRun.slow, downRun.fast, slow.from, slow.to),
          ),
          '|',
          ms(fast.delay.video.p95),
          ms(fast.delay.audio.p95),
          String(fast.fpsPerSecond[0]!),
        ]),
        'per second (slow receiver | unconstrained receiver); delay in ms beyond the unconstrained median',
      );
      const slowClose = down.checks.find((c) => c.name.startsWith('connection'))!;
      if (!slowClose.pass) console.log(`slow receiver closed with ${slowClose.value}`);
      printChecks('downlink: targets (slow receiver beside the unconstrained one)', down.checks);
      console.log(
        `bot: ${JSON.stringify(down.bot)} recorded cam ${down.recorded.cam} mic ${down.recorded.mic}`,
      );
      out.downlink = json(down.checks);
    }
    if (only.has('uplink')) {
      console.log(
        `\nuplink: the bot behind ${RATES.slowUpKbit} kbit/s after ${tm.leadS} s unshaped, for ${tm.uplinkS} s (judged from ${tm.settleS} s)`,
      );
      const upRun = await runUplink(t, tm);
      keep('uplink', { receiver: upRun.receiver, bot: upRun.bot, record: upRun.record });
      const up = uplinkFigures(upRun, tm);
      printTable(
        ['s', 'uplink', 'v p50', 'v p95', 'a p50', 'a p95', 'fps', 'a gap', 'layers'],
        up.seconds.map(({ at, receiver }) => [
          String(at),
          at < tm.leadS ? 'open' : `${RATES.slowUpKbit}k`,
          ...cells(receiver),
          String(receiver.layerSwitches),
        ]),
        'per second (receiver); delay in ms beyond its median while the uplink was open',
      );
      printChecks('uplink: targets', up.checks);
      console.log(`bot: ${JSON.stringify(up.bot)} recorded cam ${up.recorded.cam} mic ${up.recorded.mic}`);
      out.uplink = json(up.checks);
    }
    /** Runs a join scenario `joinRuns` times, printing each run's seconds and checks. */
    const joins = async (name: string, who: string, run: (i: number) => Promise<JoinRun>) => {
      const runs: JoinFigures[] = [];
      for (let i = 1; i <= joinRuns; i++) {
        console.log(
          `\n${name} ${i}/${joinRuns}: ${who} joins behind ${RATES.slowUpKbit} kbit/s, judged from its join for ${tm.joinS} s`,
        );
        const r = await run(i);
        keep(`${name}-${i}`, { receiver: r.receiver, bot: r.bot, record: r.record });
        const f = joinFigures(r);
        runs.push(f);
        printTable(
          ['s', 'v p50', 'v p95', 'a p50', 'a p95', 'fps', 'a gap', 'layers'],
          f.seconds.map(({ at, receiver }) => [
            String(at),
            ...cells(receiver),
            String(receiver.layerSwitches),
          ]),
          `per second (receiver); delay in ms: arrival less the publisher's own timestamp`,
        );
        printChecks(`${name} ${i}/${joinRuns}: targets`, f.checks);
        console.log(
          `${f.bot ? `bot: ${JSON.stringify(f.bot)} ` : ''}recorded cam ${f.recorded.cam} mic ${f.recorded.mic}`,
        );
      }
      const passed = runs.filter((f) => f.checks.every((c) => c.pass)).length;
      console.log(`\n${name}: ${passed} of ${runs.length} runs met every target`);
      out[name] = { runs: runs.map((f) => json(f.checks)), passed, of: runs.length };
    };
    if (only.has('join')) await joins('join', 'the bot', () => runJoinBehind(t, tm));
    if (only.has('page-join'))
      await joins('page-join', "the dashboard's page (Chromium)", (i) => runPageJoin(startServer, tm, i));
    if (only.has('firefox-join'))
      await joins('firefox-join', 'a guest in Firefox', (i) => runPageJoin(startServer, tm, i, 'firefox'));
    console.log(
      `load average after the runs: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(JSON.stringify(out));
  } finally {
    await server.stop();
  }
}
