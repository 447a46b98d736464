/**
 * api: the two hottest session routes of the real server against a bare Fastify 5 baseline.
 *
 *   npm run bench -- api [--quick] [--connections=N] [--rounds=N] [--seconds=N]
 *
 * Starts the compiled server (SQLite in a fresh DATA_DIR, LOG_LEVEL=warn, rate limits out of the
 * way) and bench/bare-server.ts, each as one process; bootstraps an account, an API key and a
 * session through the real API; then, in rounds that interleave bare and real so that the noise
 * of the shared machine hits both, saturates
 *   GET  /v1/projects/{projectId}/sessions/{sessionId}   (API key)
 *   POST /v1/sessions {"name":"bench"}                    (API key)
 * and finally offers the GET route a fixed rate (autocannon overallRate) of 50% of the bare
 * route's saturation req/s — bare, then real — and, for scale, the real route 50% of its own.
 * Targets: real GET ≥ 50% of bare GET req/s; its p99 under 10 ms at that rate.
 *
 * The load generator (autocannon, in this process) shares the 2-core machine with the server:
 * one core each, roughly. Prints a table, then one JSON line of the figures (last line).
 */
import { loadavg } from 'node:os';
import type { BenchOptions } from './run.ts';
import { expectCall } from './lib/http.ts';
import { benchTenant } from './lib/tenant.ts';
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

const FULL: Plan = { rounds: 5, roundS: 7, warmupS: 3, fixedS: 12, connections: 16 };
const QUICK: Plan = { rounds: 2, roundS: 3, warmupS: 1, fixedS: 3, connections: 16 };
const HIGH = '100000000';

type Route = 'get' | 'post';
type Side = 'bare' | 'real';

interface Window {
  load: LoadResult;
  /** server CPU seconds during the window */
  cpuS: number;
  /** load generator (this process) CPU seconds during the window */
  genCpuS: number;
}

function flag(args: string[], name: string): number | undefined {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  if (!a) return undefined;
  const n = Number(a.slice(name.length + 3));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
  return n;
}

/** A tenant and its session through the real API, and the GET the benchmark repeats. */
async function bootstrap(base: string) {
  const { projectId, sessionId, auth } = await benchTenant(base, 'api');
  const getPath = `/v1/projects/${projectId}/sessions/${sessionId}`;
  const got = await expectCall(200, base + getPath, { headers: auth });
  return { projectId, sessionId, auth, getPath, getBody: got.text };
}

export default async function api({ quick, args }: BenchOptions): Promise<void> {
  const plan: Plan = { ...(quick ? QUICK : FULL) };
  plan.connections = flag(args, 'connections') ?? plan.connections;
  plan.rounds = flag(args, 'rounds') ?? plan.rounds;
  plan.roundS = flag(args, 'seconds') ?? plan.roundS;
  const started = Date.now();

  try {
    const real = await startVss(
      { LOG_LEVEL: 'warn', RATE_LIMIT_PER_KEY: HIGH, RATE_LIMIT_PER_IP: HIGH },
      'vss',
    );
    const boot = await bootstrap(real.url);
    const bare = await startTsServer('bench/bare-server.ts', { BARE_GET_BODY: boot.getBody }, 'bare');

    // The baseline must answer the very same bytes.
    const bareGet = await expectCall(200, bare.url + boot.getPath);
    if (bareGet.text !== boot.getBody)
      throw new Error(`bare GET body differs:\n${bareGet.text}\n${boot.getBody}`);

    const servers: Record<Side, ServerProcess> = { bare, real };
    const target = (side: Side, route: Route): LoadOptions => {
      const url = servers[side].url;
      return route === 'get'
        ? {
            url: url + boot.getPath,
            headers: boot.auth,
            connections: plan.connections,
            durationS: plan.roundS,
            expectStatus: 200,
          }
        : {
            url: `${url}/v1/sessions`,
            method: 'POST',
            headers: { ...boot.auth, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'bench' }),
            connections: plan.connections,
            durationS: plan.roundS,
            expectStatus: 201,
          };
    };

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
        `real pid ${real.pid}, bare pid ${bare.pid}; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    for (const route of ['get', 'post'] as Route[])
      for (const side of ['bare', 'real'] as Side[])
        await runLoad({ ...target(side, route), durationS: plan.warmupS });

    const windows: Record<Route, Record<Side, Window[]>> = {
      get: { bare: [], real: [] },
      post: { bare: [], real: [] },
    };
    for (let r = 1; r <= plan.rounds; r++) {
      for (const route of ['get', 'post'] as Route[]) {
        for (const side of ['bare', 'real'] as Side[]) {
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
      get: { bare: summary('get', 'bare'), real: summary('get', 'real') },
      post: { bare: summary('post', 'bare'), real: summary('post', 'real') },
    };

    // Fixed rate: half of what the bare GET route sustains, offered to both (bare first, as a reference).
    // autocannon's overallRate is a per-second quota per connection: each connection sends its share
    // back to back at the start of every second, then waits. A server that cannot reach the rate is
    // simply saturated there, so the rate counts as sustained only when ≥ 95% of it was achieved.
    // For scale, the real route is also offered half of its own saturation rate.
    const rate = Math.round(s.get.bare.rps * 0.5);
    const ownRate = Math.round(s.get.real.rps * 0.5);
    console.log(
      `  fixed rate: ${rate} req/s, then ${ownRate} req/s (autocannon overallRate), ${plan.fixedS} s each`,
    );
    const fixedOpts = (side: Side, r: number): LoadOptions => ({
      ...target(side, 'get'),
      durationS: plan.fixedS,
      overallRate: r,
    });
    const fixed = {
      bare: await measure('bare', fixedOpts('bare', rate)),
      real: await measure('real', fixedOpts('real', rate)),
      realOwn: await measure('real', fixedOpts('real', ownRate)),
    };
    const sustained = fixed.real.load.rps >= 0.95 * rate;

    real.sampler.sample();
    bare.sampler.sample();
    const realCpuS = real.sampler.last?.cpuS ?? NaN;
    const realPeakRss = real.sampler.peakRssBytes;
    const bareCpuS = bare.sampler.last?.cpuS ?? NaN;
    const barePeakRss = bare.sampler.peakRssBytes;

    const label = { get: 'GET /v1/projects/{p}/sessions/{s}', post: 'POST /v1/sessions' };
    const rows: Array<Array<string | number>> = [];
    for (const route of ['get', 'post'] as Route[]) {
      for (const side of ['bare', 'real'] as Side[]) {
        const x = s[route][side];
        rows.push([
          `${label[route]} ${side}`,
          Math.round(x.rps),
          `${fmt(x.minRps)}–${fmt(x.maxRps)}`,
          fmt(x.p50, 2),
          fmt(x.p99, 2),
          fmt(x.serverCores, 2),
          Math.round(x.cpuUsPerReq),
          side === 'real' ? fmt(x.rps / s[route].bare.rps, 3) : '',
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
        'real ÷ bare',
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
      [
        fixedRow('bare @ 50% bare', rate, fixed.bare),
        fixedRow('real @ 50% bare', rate, fixed.real),
        fixedRow('real @ 50% own', ownRate, fixed.realOwn),
      ],
      `Fixed rate, ${plan.connections} connections, ${plan.fixedS} s (autocannon overallRate: each connection sends its share of every second in a burst)`,
    );
    printTable(
      ['process', 'CPU s (whole run)', 'peak RSS MiB'],
      [
        ['real server', fmt(realCpuS, 1), fmt(mib(realPeakRss), 1)],
        ['bare server', fmt(bareCpuS, 1), fmt(mib(barePeakRss), 1)],
      ],
      'Processes',
    );
    console.log(
      `\nload generator (autocannon, in this process) used ${fmt(s.get.bare.genCores, 2)} cores during bare GET windows, ` +
        `${fmt(s.get.real.genCores, 2)} during real GET; it shares the 2 cores with the server under test.`,
    );

    const ratio = s.get.real.rps / s.get.bare.rps;
    const p99AtRate = fixed.real.load.p99;
    const met = ratio >= 0.5 && sustained && p99AtRate < 10;
    console.log(
      `targets (real GET ≥ 0.5 × bare req/s; p99 < 10 ms at ${rate} req/s): ${met ? 'MET' : 'NOT MET'} ` +
        `(ratio ${fmt(ratio, 3)}; ${sustained ? `p99 ${fmt(p99AtRate, 2)} ms` : `rate not sustained: ${Math.round(fixed.real.load.rps)} req/s achieved`})`,
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
      ratio: round(ratio, 3),
      ratios: { get: round(ratio, 3), post: round(s.post.real.rps / s.post.bare.rps, 3) },
      get: { bare: fig(s.get.bare), real: fig(s.get.real) },
      post: { bare: fig(s.post.bare), real: fig(s.post.real) },
      fixed_rate: {
        rate,
        duration_s: plan.fixedS,
        sustained,
        real: {
          rps: Math.round(fixed.real.load.rps),
          p50_ms: round(fixed.real.load.p50),
          p99_ms: round(p99AtRate),
        },
        bare: {
          rps: Math.round(fixed.bare.load.rps),
          p50_ms: round(fixed.bare.load.p50),
          p99_ms: round(fixed.bare.load.p99),
        },
        real_at_half_own: {
          rate: ownRate,
          rps: Math.round(fixed.realOwn.load.rps),
          p50_ms: round(fixed.realOwn.load.p50),
          p99_ms: round(fixed.realOwn.load.p99),
        },
      },
      real_server: { cpu_s: round(realCpuS, 1), peak_rss_mib: round(mib(realPeakRss), 1) },
      bare_server: { cpu_s: round(bareCpuS, 1), peak_rss_mib: round(mib(barePeakRss), 1) },
      targets_met: met,
      duration_s: Math.round((Date.now() - started) / 1000),
    };
    await stopAll();
    console.log(JSON.stringify(figures));
  } finally {
    await stopAll();
  }
}
