/**
 * api: the two hottest session routes of the real server, as shipped, against a bare Fastify 5 baseline.
 *
 *   npm run bench -- api [--quick] [--connections=N] [--rounds=N] [--seconds=N]
 *   npm run bench -- api --sustained [--rounds=N] [--seconds=N]   (rounds of 60 s: bench/lib/api-sustained.ts)
 *
 * Starts the compiled server as `npm start` starts it (SQLite in a fresh DATA_DIR, LOG_LEVEL=info
 * with its access log, every other default) with one change: the rate limits raised out of the
 * way of the load. Its log goes to a file, as with `npm start > vss.log`. Beside it, labelled
 * `warn`, the same server with LOG_LEVEL=warn (no access log), so the log's cost is visible; and
 * bench/bare-server.ts. Each is one process. Bootstraps an account, an API key and a session
 * through the real API; then, in rounds that interleave bare, real and warn so that the noise of the
 * shared machine hits all three, saturates
 *   GET  /v1/projects/{projectId}/sessions/{sessionId}   (API key)
 *   POST /v1/sessions {"name":"bench"}                    (API key)
 * and finally offers the GET route a fixed rate (autocannon overallRate) of 50% of the bare
 * route's saturation req/s, bare then real.
 * Targets, as shipped (real): GET ≥ 0.6 × bare GET req/s with p99 under 5 ms; POST ≥ 0.4 × bare POST.
 * At the end it counts the access-log lines the real server wrote: one per request.
 *
 * The load generator (autocannon, in this process) shares the 2-core machine with the server:
 * one core each, roughly. Prints a table, then one JSON line of the figures (last line).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { BenchOptions } from './run.ts';
import { API_ENV, bootstrap, routeLoad, type Route } from './lib/api-load.ts';
import { profile } from './lib/api-profile.ts';
import { sustained } from './lib/api-sustained.ts';
import { intFlag } from './lib/args.ts';
import { expectCall } from './lib/http.ts';
import { median, runLoad, type LoadOptions, type LoadResult } from './lib/load.ts';
import { startTsServer, startVss, stopAll, type ServerProcess } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';

interface Plan {
  rounds: number;
  roundS: number;
  warmupS: number;
  fixedS: number;
  connections: number;
}

const FULL: Plan = { rounds: 5, roundS: 6, warmupS: 3, fixedS: 10, connections: 10 };
const QUICK: Plan = { rounds: 2, roundS: 3, warmupS: 1, fixedS: 3, connections: 10 };
/** bare: the baseline; real: vss as shipped; warn: vss with LOG_LEVEL=warn (no access log) */
type Side = 'bare' | 'real' | 'warn';
const SIDES: Side[] = ['bare', 'real', 'warn'];

interface Window {
  load: LoadResult;
  /** server CPU seconds during the window */
  cpuS: number;
  /** load generator (this process) CPU seconds during the window */
  genCpuS: number;
}

/** The access-log lines (`"msg":"request"`) in a server's log file. */
function countAccessLines(file: string): number {
  const text = readFileSync(file, 'utf8');
  let n = 0;
  for (let i = text.indexOf('"msg":"request"'); i !== -1; i = text.indexOf('"msg":"request"', i + 1)) n++;
  return n;
}

export default async function api({ quick, args }: BenchOptions): Promise<void> {
  const profiled = args.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);
  if (profiled !== undefined) {
    if (profiled !== 'get' && profiled !== 'post') throw new Error('--profile must be get or post');
    try {
      return await profile(profiled, args);
    } finally {
      await stopAll();
    }
  }
  if (args.includes('--sustained')) {
    try {
      return await sustained(args);
    } finally {
      await stopAll();
    }
  }
  const plan: Plan = { ...(quick ? QUICK : FULL) };
  plan.connections = intFlag(args, 'connections') ?? plan.connections;
  plan.rounds = intFlag(args, 'rounds') ?? plan.rounds;
  plan.roundS = intFlag(args, 'seconds') ?? plan.roundS;
  const started = Date.now();

  try {
    const real = await startVss(API_ENV, 'vss');
    const boot = await bootstrap(real.url);
    const warn = await startVss({ ...API_ENV, LOG_LEVEL: 'warn' }, 'vss-warn');
    const bootWarn = await bootstrap(warn.url);
    const bare = await startTsServer('bench/bare-server.ts', { BARE_GET_BODY: boot.getBody }, 'bare');

    // The baseline must answer the very same bytes.
    const bareGet = await expectCall(200, bare.url + boot.getPath);
    if (bareGet.text !== boot.getBody)
      throw new Error(`bare GET body differs:\n${bareGet.text}\n${boot.getBody}`);

    const servers: Record<Side, ServerProcess> = { bare, real, warn };
    const target = (side: Side, route: Route): LoadOptions =>
      routeLoad(servers[side].url, side === 'warn' ? bootWarn : boot, route, plan.connections, plan.roundS);

    const measure = async (side: Side, opts: LoadOptions): Promise<Window> => {
      const server = servers[side];
      server.assertAlive();
      const mark = server.sampler.mark();
      const gen = process.cpuUsage();
      const load = await runLoad(opts);
      const genUsage = process.cpuUsage(gen);
      const cpuS = server.sampler.cpuSince(mark);
      server.assertAlive();
      if (load.failures > 0.01 * (load.requests + load.failures))
        throw new Error(
          `${side} ${opts.method ?? 'GET'} ${opts.url}: ${load.failures} failures: ${JSON.stringify(load.statusCounts)}`,
        );
      return { load, cpuS, genCpuS: (genUsage.user + genUsage.system) / 1e6 };
    };

    console.log(
      `api: ${plan.rounds} rounds × ${plan.roundS} s per server and route, ${plan.connections} connections; ` +
        `real pid ${real.pid}, warn pid ${warn.pid}, bare pid ${bare.pid}; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    for (const route of ['get', 'post'] as Route[])
      for (const side of SIDES) await runLoad({ ...target(side, route), durationS: plan.warmupS });

    const windows: Record<Route, Record<Side, Window[]>> = {
      get: { bare: [], real: [], warn: [] },
      post: { bare: [], real: [], warn: [] },
    };
    for (let r = 1; r <= plan.rounds; r++) {
      for (const route of ['get', 'post'] as Route[]) {
        for (const side of SIDES) {
          const w = await measure(side, target(side, route));
          windows[route][side].push(w);
          console.log(
            `  round ${r}/${plan.rounds} ${route.toUpperCase().padEnd(4)} ${side}: ${fmt(w.load.rps).padStart(7)} req/s  ` +
              `p50 ${fmt(w.load.p50)} ms  p99 ${fmt(w.load.p99)} ms  server CPU ${fmt(w.cpuS / w.load.durationS)} cores`,
          );
        }
      }
    }

    const summary = (route: Route, side: Side) => {
      const ws = windows[route][side];
      const total = ws.reduce((a, w) => a + w.load.requests, 0);
      return {
        rps: median(ws.map((w) => w.load.rps)),
        p50: median(ws.map((w) => w.load.p50)),
        p99: median(ws.map((w) => w.load.p99)),
        minRps: Math.min(...ws.map((w) => w.load.rps)),
        maxRps: Math.max(...ws.map((w) => w.load.rps)),
        serverCores: ws.reduce((a, w) => a + w.cpuS, 0) / ws.reduce((a, w) => a + w.load.durationS, 0),
        cpuUsPerReq: (ws.reduce((a, w) => a + w.cpuS, 0) / total) * 1e6,
        genCores: ws.reduce((a, w) => a + w.genCpuS, 0) / ws.reduce((a, w) => a + w.load.durationS, 0),
      };
    };
    const s = {
      get: { bare: summary('get', 'bare'), real: summary('get', 'real'), warn: summary('get', 'warn') },
      post: { bare: summary('post', 'bare'), real: summary('post', 'real'), warn: summary('post', 'warn') },
    };

    // Fixed rate: half of what the bare GET route sustains, offered to bare (as a reference) and real.
    // autocannon's overallRate is a per-second quota per connection: each connection sends its share
    // back to back at the start of every second, then waits. A server that cannot reach the rate is
    // simply saturated there, so the rate counts as sustained only when ≥ 95% of it was achieved.
    const rate = Math.round(s.get.bare.rps * 0.5);
    console.log(`  fixed rate: ${rate} req/s (autocannon overallRate), ${plan.fixedS} s each`);
    const fixedOpts = (side: Side, r: number): LoadOptions => ({
      ...target(side, 'get'),
      durationS: plan.fixedS,
      overallRate: r,
    });
    const fixed = {
      bare: await measure('bare', fixedOpts('bare', rate)),
      real: await measure('real', fixedOpts('real', rate)),
    };
    const sustained = fixed.real.load.rps >= 0.95 * rate;

    const proc = (p: ServerProcess) => {
      p.sampler.sample();
      return { cpuS: p.sampler.last?.cpuS ?? NaN, peakRss: p.sampler.peakRssBytes };
    };
    const procs = { real: proc(real), warn: proc(warn), bare: proc(bare) };

    // The access log: one line per answered request (the real server's log file, read at the end).
    const totalRequests = (side: Side) =>
      (['get', 'post'] as Route[]).reduce(
        (a, route) => a + windows[route][side].reduce((b, w) => b + w.load.requests, 0),
        0,
      );
    const accessLines = countAccessLines(real.logFile);

    const label = { get: 'GET /v1/projects/{p}/sessions/{s}', post: 'POST /v1/sessions' };
    const sideLabel = { bare: 'bare', real: 'vss as shipped (info)', warn: 'vss, LOG_LEVEL=warn' };
    const rows: Array<Array<string | number>> = [];
    for (const route of ['get', 'post'] as Route[]) {
      for (const side of SIDES) {
        const x = s[route][side];
        rows.push([
          `${label[route]} ${sideLabel[side]}`,
          Math.round(x.rps),
          `${fmt(x.minRps)}–${fmt(x.maxRps)}`,
          fmt(x.p50, 2),
          fmt(x.p99, 2),
          fmt(x.serverCores, 2),
          Math.round(x.cpuUsPerReq),
          side === 'bare' ? '' : fmt(x.rps / s[route].bare.rps, 3),
        ]);
      }
    }
    printTable(
      [
        'route / server',
        'req/s (median)',
        'range',
        'p50 ms',
        'p99 ms',
        'server cores',
        'CPU µs/req',
        '÷ bare',
      ],
      rows,
      `Saturation: ${plan.connections} connections, median of ${plan.rounds} interleaved rounds of ${plan.roundS} s`,
    );
    const fixedRow = (name: string, offered: number, w: Window) => [
      name,
      offered,
      Math.round(w.load.rps),
      w.load.rps >= 0.95 * offered ? 'yes' : 'NO',
      fmt(w.load.p50, 2),
      fmt(w.load.p90, 2),
      fmt(w.load.p99, 2),
      fmt(w.load.max, 2),
      fmt(w.cpuS / w.load.durationS, 2),
    ];
    printTable(
      [
        'GET server',
        'offered req/s',
        'achieved',
        'sustained',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
        'server cores',
      ],
      [fixedRow('bare @ 50% bare', rate, fixed.bare), fixedRow('real @ 50% bare', rate, fixed.real)],
      `Fixed rate, ${plan.connections} connections, ${plan.fixedS} s (autocannon overallRate: each connection sends its share of every second in a burst)`,
    );
    printTable(
      ['process', 'CPU s (whole run)', 'peak RSS MiB'],
      [
        ['vss as shipped', fmt(procs.real.cpuS, 1), fmt(mib(procs.real.peakRss), 1)],
        ['vss, LOG_LEVEL=warn', fmt(procs.warn.cpuS, 1), fmt(mib(procs.warn.peakRss), 1)],
        ['bare server', fmt(procs.bare.cpuS, 1), fmt(mib(procs.bare.peakRss), 1)],
      ],
      'Processes',
    );
    const measured = totalRequests('real');
    console.log(
      `\naccess log of vss as shipped: ${accessLines} request lines for at least ${measured} measured requests ` +
        `(plus warm-up, bootstrap and fixed-rate ones)`,
    );
    console.log(
      `load generator (autocannon, in this process) used ${fmt(s.get.bare.genCores, 2)} cores during bare GET windows, ` +
        `${fmt(s.get.real.genCores, 2)} during real GET; it shares the 2 cores with the server under test.`,
    );

    const ratio = s.get.real.rps / s.get.bare.rps;
    const postRatio = s.post.real.rps / s.post.bare.rps;
    const met = ratio >= 0.6 && s.get.real.p99 < 5 && postRatio >= 0.4 && accessLines >= measured;
    console.log(
      `targets, as shipped (GET ≥ 0.6 × bare req/s with p99 < 5 ms; POST ≥ 0.4 × bare; an access-log line per request): ` +
        `${met ? 'MET' : 'NOT MET'} (GET ${fmt(ratio, 3)}, p99 ${fmt(s.get.real.p99, 2)} ms; POST ${fmt(postRatio, 3)}; ` +
        `${accessLines} lines)`,
    );

    const fig = (x: (typeof s)['get']['bare']) => ({
      rps: Math.round(x.rps),
      p50_ms: round(x.p50),
      p99_ms: round(x.p99),
      server_cores: round(x.serverCores),
      cpu_us_per_req: Math.round(x.cpuUsPerReq),
    });
    const figures = {
      bench: 'api',
      quick,
      connections: plan.connections,
      rounds: plan.rounds,
      round_s: plan.roundS,
      changed_from_defaults: 'RATE_LIMIT_PER_KEY and RATE_LIMIT_PER_IP raised; stdout to a file',
      ratios: {
        get: round(ratio, 3),
        post: round(postRatio, 3),
        get_warn: round(s.get.warn.rps / s.get.bare.rps, 3),
        post_warn: round(s.post.warn.rps / s.post.bare.rps, 3),
      },
      get: { bare: fig(s.get.bare), real: fig(s.get.real), warn: fig(s.get.warn) },
      post: { bare: fig(s.post.bare), real: fig(s.post.real), warn: fig(s.post.warn) },
      fixed_rate: {
        rate,
        duration_s: plan.fixedS,
        sustained,
        real: {
          rps: Math.round(fixed.real.load.rps),
          p50_ms: round(fixed.real.load.p50),
          p99_ms: round(fixed.real.load.p99),
        },
        bare: {
          rps: Math.round(fixed.bare.load.rps),
          p50_ms: round(fixed.bare.load.p50),
          p99_ms: round(fixed.bare.load.p99),
        },
      },
      access_log_lines: accessLines,
      processes: {
        real: { cpu_s: round(procs.real.cpuS, 1), peak_rss_mib: round(mib(procs.real.peakRss), 1) },
        warn: { cpu_s: round(procs.warn.cpuS, 1), peak_rss_mib: round(mib(procs.warn.peakRss), 1) },
        bare: { cpu_s: round(procs.bare.cpuS, 1), peak_rss_mib: round(mib(procs.bare.peakRss), 1) },
      },
      targets_met: met,
      duration_s: Math.round((Date.now() - started) / 1000),
    };
    await stopAll();
    console.log(JSON.stringify(figures));
  } finally {
    await stopAll();
  }
}
