/**
 * metrics: what keeping Prometheus metrics costs the real server: METRICS_PORT set (`on`) against
 * the same server without it (`off`, as shipped: no metrics are kept).
 *
 *   npm run bench -- metrics [--quick] [--rounds=N] [--fanout-rounds=N] [--seconds=N] [--connections=N]
 *                            [--published=N] [--ws-clients] [--control] [--pin]
 *
 * --rounds sets both parts' rounds, --fanout-rounds the fan-out part's alone; --seconds the API
 * part's windows.
 *
 * --control: the same run with METRICS_PORT unset on both sides (no scrapes): an A/A comparison,
 * whose ratios are this machine's noise floor for the figures below.
 * --pin: both servers on CPU 1 and this process on CPU 0 (`taskset`): steadier figures, since the
 * scheduler no longer moves the server and the load generator between the two cores.
 *
 * Starts two compiled servers side by side as `npm start` starts them (SQLite in a fresh DATA_DIR,
 * output to a file), `off` and `on`, the second with METRICS_PORT set to a free port. While `on` is
 * measured, a scraper in this process GETs its /metrics at once and then every 5 s (three times as
 * often as Prometheus's usual 15 s), so that the scrapes' cost is in its figures; every scrape must
 * answer 200 with request counts in vss_http_request_duration_seconds.
 *   1. API, on a pair with bench/api.ts's one change (the rate limits raised out of the way): its
 *      two loads, saturated with 10 connections,
 *        GET  /v1/projects/{projectId}/sessions/{sessionId}   (API key)
 *        POST /v1/sessions {"name":"bench"}                    (API key)
 *      per side: median req/s, p99, server CPU µs per request.
 *   2. Fan-out, on a fresh pair with bench/fanout.ts's changes (LOG_LEVEL=warn; the rate limits and
 *      the free tier's limits raised): its scenario A (one session, 4 publishers at
 *      15 fps, 40 receivers, 30 KiB binary frames; --published=N: scenario A's shape at N published
 *      frames/s), per side: delivered frames/s, p99 delivery latency, server CPU µs per delivered frame.
 *   3. After each part, the cost of a scrape alone: scrapes back to back on the idle `on` server,
 *      its CPU per scrape (what one scrape every 5 s adds, whatever the window's alignment).
 * Rounds interleave off and on, and alternate which goes first (off, on, then on, off), so that
 * the drift of the shared machine hits both sides alike.
 * Target (the issue): on within 3% of off: on ÷ off req/s and delivered frames/s ≥ 0.97, server
 * CPU per request and per delivered frame ≤ 1.03.
 *
 * No saturation figure for fan-out: bench/fanout.ts's search steps the load ×2 and then bisects
 * three times, so it brackets the saturating load to an eighth (12.5%) of the last step, far
 * coarser than 3%, and takes minutes per server. At a fixed load both servers deliver every frame;
 * CPU per delivered frame is the measure that sees the per-frame cost.
 *
 * The load generator (this process) shares the 2-core machine with the servers. Prints tables,
 * then one JSON line of the figures (last line).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { BenchOptions } from './run.ts';
import { API_ENV, bootstrap as apiBootstrap } from './api.ts';
import {
  bootstrap as fanoutBootstrap,
  FANOUT_ENV,
  describe,
  runPhase,
  scenarioAAt,
  setTransport,
  type Phase,
  type Timing,
} from './fanout.ts';
import { intFlag } from './lib/args.ts';
import { median, runLoad, type LoadOptions, type LoadResult } from './lib/load.ts';
import { freePort, startVss, stopAll, type ServerProcess } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';

interface Plan {
  rounds: number;
  roundS: number;
  warmupS: number;
  connections: number;
  fanoutRounds: number;
  fanout: Timing;
  /** scenario A's shape at this many published frames/s (60: 4 publishers × 15 fps, scenario A itself) */
  published: number;
  /** seconds between scrapes of `on` while it is measured */
  scrapeS: number;
  /** scrapes back to back for the cost of one alone */
  scrapeSamples: number;
}

const FULL: Plan = {
  rounds: 5,
  roundS: 10,
  warmupS: 3,
  connections: 10,
  fanoutRounds: 5,
  fanout: { warmupS: 3, windowS: 8, graceS: 3, quietS: 0 },
  published: 60,
  scrapeS: 5,
  scrapeSamples: 50,
};
const QUICK: Plan = {
  rounds: 2,
  roundS: 3,
  warmupS: 1,
  connections: 10,
  fanoutRounds: 2,
  fanout: { warmupS: 1, windowS: 2, graceS: 1, quietS: 0 },
  published: 60,
  scrapeS: 5,
  scrapeSamples: 20,
};

const HIGH = '100000000';
const METRIC = 'vss_http_request_duration_seconds';
/** on ÷ off bounds of the target: throughput at least this, CPU per unit at most 2 − this */
const WITHIN = 0.97;

type Side = 'off' | 'on';
type Route = 'get' | 'post';
const ROUTES: Route[] = ['get', 'post'];

/** Alternates which side goes first, round by round. */
const orderOf = (r: number): Side[] => (r % 2 ? ['off', 'on'] : ['on', 'off']);

/** A pair of servers, `on` with its /metrics address. */
interface Pair {
  off: ServerProcess;
  on: ServerProcess;
  metricsUrl: string;
  metricsPort: number;
}

/** --control: `on` is started exactly as `off` (no METRICS_PORT) and nothing is scraped. */
let control = false;
/**
 * --pin: both servers on CPU 1 and the load generator (this process) on CPU 0 (`taskset`, every
 * thread), so that the scheduler's placement of the three processes on the two cores, which
 * changes from round to round, stops moving the figures.
 */
let pin = false;

/** Sets the CPU of every thread of a process (threads it starts later inherit it). */
function pinTo(pid: number, cpu: number): void {
  execFileSync('taskset', ['-apc', String(cpu), String(pid)], { stdio: 'ignore' });
}

async function startPair(env: Record<string, string>, part: string): Promise<Pair> {
  const off = await startVss(env, `vss-${part}-off`);
  const metricsPort = await freePort();
  const on = await startVss(control ? env : { ...env, METRICS_PORT: String(metricsPort) }, `vss-${part}-on`);
  if (pin) {
    pinTo(off.pid, 1);
    pinTo(on.pid, 1);
    pinTo(process.pid, 0);
  }
  return { off, on, metricsPort, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** One GET of /metrics, as Prometheus makes it; throws unless it is a 200 that counts requests. */
async function scrape(url: string): Promise<{ ms: number; bytes: number }> {
  if (control) return { ms: 0, bytes: 0 };
  const t0 = performance.now();
  const res = await fetch(url, {
    headers: { accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' },
    // Prometheus's default scrape timeout.
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`answered ${res.status}: ${text.slice(0, 300)}`);
  // The histogram's HELP line is there from the start; a `_count` sample only once requests were counted.
  if (!text.includes(`${METRIC}_count{`))
    throw new Error(`no ${METRIC}_count sample in:\n${text.slice(0, 300)}`);
  return { ms, bytes: Buffer.byteLength(text) };
}

/** Scrapes before anything is measured: a server in production has been scraped for a while. */
const WARM_SCRAPES = 20;

/**
 * Scrapes `on` WARM_SCRAPES times back to back before it is measured. The first scrapes of a
 * process compile the whole path that prints the registry (V8 optimises it after a few calls, in
 * threads whose CPU counts as the server's): measured without this, `on` used up to 0.04 cores
 * more than `off` in the first fan-out rounds and the same in the last. Prometheus scrapes a
 * server every 15 s for as long as it runs; that cost is paid once, not per scrape.
 */
async function warmScrapes(url: string): Promise<void> {
  for (let i = 0; i < WARM_SCRAPES; i++) await scrape(url);
}

/** Scrapes /metrics at once and then every `intervalMs`, from start() to stop(). */
class Scraper {
  readonly ms: number[] = [];
  readonly bytes: number[] = [];
  private readonly failures: string[] = [];
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private count = 0;

  constructor(
    readonly url: string,
    readonly intervalMs: number,
  ) {}

  start(): void {
    this.count = 0;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
  }

  private tick(): void {
    const p: Promise<void> = scrape(this.url)
      .then(
        (s) => {
          this.ms.push(s.ms);
          this.bytes.push(s.bytes);
          this.count++;
        },
        (err: Error) => {
          this.failures.push(err.message);
        },
      )
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Stops, waits for a scrape under way, and returns the scrapes since start(); throws if one failed. */
  async stop(): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.pending]);
    if (this.failures.length)
      throw new Error(
        `${this.failures.length} scrape(s) of ${this.url} failed; the first: ${this.failures[0]}`,
      );
    return this.count;
  }
}

/** The cost of a scrape alone: `n` scrapes one after another on an idle server, its CPU per scrape. */
async function scrapeCost(server: ServerProcess, url: string, n: number) {
  await scrape(url);
  const ms: number[] = [];
  let bytes = 0;
  const mark = server.sampler.mark();
  for (let i = 0; i < n; i++) {
    const s = await scrape(url);
    ms.push(s.ms);
    bytes = s.bytes;
  }
  const cpuS = server.sampler.cpuSince(mark);
  return { scrapes: n, cpuMsPerScrape: (cpuS / n) * 1e3, p50Ms: median(ms), bytes };
}
type ScrapeCost = Awaited<ReturnType<typeof scrapeCost>>;

// ---------------------------------------------------------------------------------------------
// API

type ApiBoot = Awaited<ReturnType<typeof apiBootstrap>>;

interface ApiWindow {
  load: LoadResult;
  /** server CPU seconds during the window */
  cpuS: number;
  /** scrapes of /metrics during the window (on only) */
  scrapes: number;
}

/** bench/api.ts's two loads against one server. */
function apiTarget(
  url: string,
  boot: ApiBoot,
  route: Route,
  connections: number,
  durationS: number,
): LoadOptions {
  return route === 'get'
    ? { url: url + boot.getPath, headers: boot.auth, connections, durationS, expectStatus: 200 }
    : {
        url: `${url}/v1/sessions`,
        method: 'POST',
        headers: { ...boot.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench' }),
        connections,
        durationS,
        expectStatus: 201,
      };
}

async function measureApi(
  server: ServerProcess,
  opts: LoadOptions,
  scraper: Scraper | null,
): Promise<ApiWindow> {
  server.assertAlive();
  const mark = server.sampler.mark();
  scraper?.start();
  const load = await runLoad(opts);
  const cpuS = server.sampler.cpuSince(mark);
  const scrapes = scraper ? await scraper.stop() : 0;
  server.assertAlive();
  if (load.failures > 0.01 * (load.requests + load.failures))
    throw new Error(
      `${server.name} ${opts.method ?? 'GET'} ${opts.url}: ${load.failures} failures: ${JSON.stringify(load.statusCounts)}`,
    );
  return { load, cpuS, scrapes };
}

function summariseApi(ws: ApiWindow[]) {
  const requests = ws.reduce((a, w) => a + w.load.requests, 0);
  const cpuS = ws.reduce((a, w) => a + w.cpuS, 0);
  const durationS = ws.reduce((a, w) => a + w.load.durationS, 0);
  return {
    rps: median(ws.map((w) => w.load.rps)),
    minRps: Math.min(...ws.map((w) => w.load.rps)),
    maxRps: Math.max(...ws.map((w) => w.load.rps)),
    p50: median(ws.map((w) => w.load.p50)),
    p99: median(ws.map((w) => w.load.p99)),
    serverCores: cpuS / durationS,
    cpuUsPerReq: (cpuS / requests) * 1e6,
    scrapes: ws.reduce((a, w) => a + w.scrapes, 0),
  };
}
type ApiSummary = ReturnType<typeof summariseApi>;

async function apiPart(plan: Plan) {
  const pair = await startPair(API_ENV, 'api');
  const boot: Record<Side, ApiBoot> = {
    off: await apiBootstrap(pair.off.url),
    on: await apiBootstrap(pair.on.url),
  };
  const servers: Record<Side, ServerProcess> = { off: pair.off, on: pair.on };
  const scraper = new Scraper(pair.metricsUrl, plan.scrapeS * 1000);
  // Up before anything is measured (a METRICS_PORT that serves nothing fails here), and warm.
  await warmScrapes(pair.metricsUrl);
  console.log(
    `\n1. API: ${plan.rounds} rounds × ${plan.roundS} s per side and route after ${plan.warmupS} s warm-ups, ` +
      `${plan.connections} connections; off pid ${pair.off.pid}, on pid ${pair.on.pid} (${control ? 'no METRICS_PORT: --control' : `METRICS_PORT=${pair.metricsPort}`}); ` +
      `both: RATE_LIMIT_PER_KEY=RATE_LIMIT_PER_IP=${HIGH} (as bench/api.ts), LOG_LEVEL info (the default, its access log to a file)`,
  );
  const target = (side: Side, route: Route, durationS: number) =>
    apiTarget(servers[side].url, boot[side], route, plan.connections, durationS);
  for (const route of ROUTES)
    for (const side of ['off', 'on'] as Side[]) await runLoad(target(side, route, plan.warmupS));

  const windows: Record<Route, Record<Side, ApiWindow[]>> = {
    get: { off: [], on: [] },
    post: { off: [], on: [] },
  };
  for (let r = 1; r <= plan.rounds; r++) {
    for (const route of ROUTES) {
      for (const side of orderOf(r)) {
        const w = await measureApi(
          servers[side],
          target(side, route, plan.roundS),
          side === 'on' ? scraper : null,
        );
        windows[route][side].push(w);
        console.log(
          `  round ${r}/${plan.rounds} ${route.toUpperCase().padEnd(4)} ${side.padEnd(3)}: ${fmt(w.load.rps).padStart(7)} req/s  ` +
            `p50 ${fmt(w.load.p50)} ms  p99 ${fmt(w.load.p99)} ms  server ${fmt(w.cpuS / w.load.durationS, 2)} cores, ` +
            `${fmt((w.cpuS / w.load.requests) * 1e6)} µs/req` +
            (side === 'on' ? `  ${w.scrapes} scrape(s)` : ''),
        );
      }
    }
  }
  const cost = await scrapeCost(pair.on, pair.metricsUrl, plan.scrapeSamples);
  const s = {
    get: { off: summariseApi(windows.get.off), on: summariseApi(windows.get.on) },
    post: { off: summariseApi(windows.post.off), on: summariseApi(windows.post.on) },
  };
  // Each round's on ÷ off, its two windows measured one after the other: the median of these
  // follows the machine's drift less than the ratio of the two sides' medians does.
  const paired = (route: Route, of: (w: ApiWindow) => number) =>
    median(windows[route].on.map((w, i) => of(w) / of(windows[route].off[i]!)));
  const perReq = (w: ApiWindow) => w.cpuS / w.load.requests;
  const pairs = {
    get_rps: paired('get', (w) => w.load.rps),
    get_cpu_per_req: paired('get', perReq),
    post_rps: paired('post', (w) => w.load.rps),
    post_cpu_per_req: paired('post', perReq),
  };
  const procs = processFigures(pair);
  await Promise.all([pair.off.stop(15_000), pair.on.stop(15_000)]);
  return { s, pairs, cost, scraper, procs, metricsPort: pair.metricsPort };
}

// ---------------------------------------------------------------------------------------------
// Fan-out

interface FanoutRound {
  phase: Phase;
  scrapes: number;
}

function summariseFanout(rs: FanoutRound[]) {
  const m = (f: (p: Phase) => number) => median(rs.map((r) => f(r.phase)));
  return {
    connections: rs[0]!.phase.connections,
    expectedPerS: m((p) => p.expectedPerS),
    deliveredPerS: m((p) => p.deliveredPerS),
    ratio: m((p) => p.ratio),
    p50: m((p) => p.p50),
    p99: m((p) => p.p99),
    serverCores: m((p) => p.serverCores),
    cpuUsPerDelivery: m((p) => p.cpuUsPerDelivery),
    genCores: m((p) => p.genCores),
    otherCores: m((p) => p.otherCores),
    errors: rs.reduce((a, r) => a + r.phase.window.errors, 0),
    scrapes: rs.reduce((a, r) => a + r.scrapes, 0),
  };
}
type FanoutSummary = ReturnType<typeof summariseFanout>;

async function fanoutPart(plan: Plan) {
  const pair = await startPair(FANOUT_ENV, 'fanout');
  const auth: Record<Side, Record<string, string>> = {
    off: await fanoutBootstrap(pair.off.url),
    on: await fanoutBootstrap(pair.on.url),
  };
  const servers: Record<Side, ServerProcess> = { off: pair.off, on: pair.on };
  const scraper = new Scraper(pair.metricsUrl, plan.scrapeS * 1000);
  await warmScrapes(pair.metricsUrl);
  const scenario = scenarioAAt(plan.published);
  const t = plan.fanout;
  console.log(
    `\n2. Fan-out: scenario A's shape, 1 session × (${scenario.publishers} publishers at ${fmt(scenario.fps)} fps + ` +
      `${scenario.receivers} receivers), binary frames; ${plan.fanoutRounds} rounds × ${t.windowS} s windows after ` +
      `${t.warmupS} s warm-up; off pid ${pair.off.pid}, on pid ${pair.on.pid} (${control ? 'no METRICS_PORT: --control' : `METRICS_PORT=${pair.metricsPort}`}); ` +
      `both: LOG_LEVEL=warn, RATE_LIMIT_PER_KEY=RATE_LIMIT_PER_IP=FREE_TIER_STREAMING_MINUTES=FREE_TIER_STORAGE_GB=${HIGH} (as bench/fanout.ts). ` +
      `on is scraped from the start of each of its phases (connect, warm-up, window, grace)`,
  );
  const rounds: Record<Side, FanoutRound[]> = { off: [], on: [] };
  for (let r = 1; r <= plan.fanoutRounds; r++) {
    for (const side of orderOf(r)) {
      if (side === 'on') scraper.start();
      let phase: Phase;
      let scrapes = 0;
      try {
        phase = await runPhase('vss', servers[side], auth[side], scenario, t);
      } finally {
        if (side === 'on') scrapes = await scraper.stop();
      }
      rounds[side].push({ phase, scrapes });
      console.log(
        `  round ${r}/${plan.fanoutRounds} ${side.padEnd(3)} ${describe(phase)}` +
          (side === 'on' ? `  ${scrapes} scrape(s)` : ''),
      );
    }
  }
  const cost = await scrapeCost(pair.on, pair.metricsUrl, plan.scrapeSamples);
  const s = { off: summariseFanout(rounds.off), on: summariseFanout(rounds.on) };
  const procs = processFigures(pair);
  await Promise.all([pair.off.stop(15_000), pair.on.stop(15_000)]);
  return { s, cost, scraper, procs, scenario, metricsPort: pair.metricsPort };
}

function processFigures(pair: Pair) {
  const one = (p: ServerProcess) => {
    p.sampler.sample();
    return { cpuS: p.sampler.last?.cpuS ?? NaN, peakRss: p.sampler.peakRssBytes };
  };
  return { off: one(pair.off), on: one(pair.on) };
}

// ---------------------------------------------------------------------------------------------

export default async function metrics({ quick, args }: BenchOptions): Promise<void> {
  const plan: Plan = { ...(quick ? QUICK : FULL) };
  plan.rounds = intFlag(args, 'rounds') ?? plan.rounds;
  plan.fanoutRounds = intFlag(args, 'fanout-rounds') ?? intFlag(args, 'rounds') ?? plan.fanoutRounds;
  plan.roundS = intFlag(args, 'seconds') ?? plan.roundS;
  plan.connections = intFlag(args, 'connections') ?? plan.connections;
  plan.published = intFlag(args, 'published') ?? plan.published;
  setTransport(args.includes('--ws-clients') ? 'ws' : 'raw');
  control = args.includes('--control');
  pin = args.includes('--pin');
  const started = Date.now();
  if (control)
    console.log(
      'metrics --control: METRICS_PORT unset on both sides, no scrapes (an A/A run: the noise floor)',
    );
  if (pin) console.log('metrics --pin: both servers on CPU 1, the load generator on CPU 0 (taskset)');

  try {
    console.log(
      `metrics: two servers started as \`npm start\` starts them (SQLite, a fresh DATA_DIR each, output to a file): ` +
        `off (no METRICS_PORT: no metrics kept) and on (the same plus METRICS_PORT=<a free port>, ` +
        `its /metrics scraped at once and every ${plan.scrapeS} s while on is measured). ` +
        `Rounds interleave off and on, alternating which goes first. Load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    const api = await apiPart(plan);
    const fan = await fanoutPart(plan);

    // Tables.
    const label = { get: 'GET /v1/projects/{p}/sessions/{s}', post: 'POST /v1/sessions' };
    const apiRow = (route: Route, side: Side) => {
      const x = api.s[route][side];
      const off = api.s[route].off;
      return [
        `${label[route]} ${side}`,
        Math.round(x.rps),
        `${fmt(x.minRps)}–${fmt(x.maxRps)}`,
        fmt(x.p50, 2),
        fmt(x.p99, 2),
        fmt(x.serverCores, 2),
        fmt(x.cpuUsPerReq, 1),
        side === 'on' ? String(x.scrapes) : '',
        side === 'on' ? fmt(x.rps / off.rps, 3) : '',
        side === 'on' ? fmt(x.cpuUsPerReq / off.cpuUsPerReq, 3) : '',
      ];
    };
    printTable(
      [
        'route / server',
        'req/s (median)',
        'range',
        'p50 ms',
        'p99 ms',
        'server cores',
        'CPU µs/req',
        'scrapes',
        'on ÷ off req/s',
        'on ÷ off CPU/req',
      ],
      ROUTES.flatMap((route) => [apiRow(route, 'off'), apiRow(route, 'on')]),
      `API, saturated: ${plan.connections} connections, median of ${plan.rounds} interleaved rounds of ${plan.roundS} s ` +
        `(CPU µs/req: server CPU over all rounds ÷ requests)`,
    );
    const fanRow = (side: Side) => {
      const x = fan.s[side];
      const off = fan.s.off;
      return [
        side,
        String(x.connections),
        Math.round(x.expectedPerS),
        Math.round(x.deliveredPerS),
        fmt(x.ratio, 3),
        fmt(x.p50, 2),
        fmt(x.p99, 2),
        fmt(x.serverCores, 3),
        fmt(x.cpuUsPerDelivery, 1),
        fmt(x.genCores, 2),
        fmt(x.otherCores, 2),
        side === 'on' ? String(x.scrapes) : '',
        side === 'on' ? fmt(x.deliveredPerS / off.deliveredPerS, 3) : '',
        side === 'on' ? fmt(x.cpuUsPerDelivery / off.cpuUsPerDelivery, 3) : '',
      ];
    };
    printTable(
      [
        'server',
        'conns',
        'expected fr/s',
        'delivered fr/s',
        'deliv ÷ exp',
        'p50 ms',
        'p99 ms',
        'server cores',
        'CPU µs/frame',
        'gen cores',
        'other cores',
        'scrapes',
        'on ÷ off fr/s',
        'on ÷ off CPU/frame',
      ],
      [fanRow('off'), fanRow('on')],
      `Fan-out, scenario A's shape (${fan.scenario.publishers} × ${fmt(fan.scenario.fps)} fps, ${fan.scenario.receivers} receivers, ` +
        `binary): median of ${plan.fanoutRounds} interleaved rounds of ${plan.fanout.windowS} s ` +
        `(CPU µs/frame: server CPU ÷ frames delivered; scrapes: over the whole phases, windows and the rest)`,
    );
    // What one scrape every scrapeS seconds adds, from the cost of a scrape alone.
    const scrapeRow = (name: string, c: ScrapeCost, perUnitUs: number, unit: string, onCores: number) => [
      name,
      String(c.scrapes),
      fmt(c.cpuMsPerScrape, 2),
      fmt(c.p50Ms, 2),
      fmt(c.bytes / 1024, 1),
      `${fmt(perUnitUs, 3)} ${unit}`,
      fmt((c.cpuMsPerScrape / 1000 / plan.scrapeS / onCores) * 100, 2),
    ];
    const perScrapeS = (c: ScrapeCost) => c.cpuMsPerScrape / 1000 / plan.scrapeS;
    printTable(
      [
        'scraped server',
        'scrapes',
        'CPU ms each',
        'p50 ms',
        'KiB',
        `CPU added at 1 per ${plan.scrapeS} s`,
        "% of on's CPU",
      ],
      [
        scrapeRow(
          'API on (after its loads), at GET req/s',
          api.cost,
          (perScrapeS(api.cost) / api.s.get.on.rps) * 1e6,
          'µs/req',
          api.s.get.on.serverCores,
        ),
        scrapeRow(
          'fan-out on (after its phases)',
          fan.cost,
          (perScrapeS(fan.cost) / fan.s.on.deliveredPerS) * 1e6,
          'µs/frame',
          fan.s.on.serverCores,
        ),
      ],
      `A scrape alone: back to back on the idle on server (its CPU, ${quick ? 'coarse: ' : ''}10 ms ticks, ÷ scrapes); ` +
        `scrapes during the loads: API p50 ${fmt(median(api.scraper.ms), 2)} ms, fan-out p50 ${fmt(median(fan.scraper.ms), 2)} ms`,
    );
    printTable(
      ['process', 'CPU s (whole part)', 'peak RSS MiB'],
      [
        ['API off', fmt(api.procs.off.cpuS, 1), fmt(mib(api.procs.off.peakRss), 1)],
        ['API on', fmt(api.procs.on.cpuS, 1), fmt(mib(api.procs.on.peakRss), 1)],
        ['fan-out off', fmt(fan.procs.off.cpuS, 1), fmt(mib(fan.procs.off.peakRss), 1)],
        ['fan-out on', fmt(fan.procs.on.cpuS, 1), fmt(mib(fan.procs.on.peakRss), 1)],
      ],
      'Server processes',
    );

    const ratios = {
      get_rps: api.s.get.on.rps / api.s.get.off.rps,
      get_cpu_per_req: api.s.get.on.cpuUsPerReq / api.s.get.off.cpuUsPerReq,
      post_rps: api.s.post.on.rps / api.s.post.off.rps,
      post_cpu_per_req: api.s.post.on.cpuUsPerReq / api.s.post.off.cpuUsPerReq,
      fanout_delivered_fps: fan.s.on.deliveredPerS / fan.s.off.deliveredPerS,
      fanout_cpu_per_frame: fan.s.on.cpuUsPerDelivery / fan.s.off.cpuUsPerDelivery,
    };
    const throughput = (k: keyof typeof ratios) => !k.includes('cpu');
    const within = Object.fromEntries(
      (Object.keys(ratios) as Array<keyof typeof ratios>).map((k) => [
        k,
        throughput(k) ? ratios[k] >= WITHIN : ratios[k] <= 2 - WITHIN,
      ]),
    ) as Record<keyof typeof ratios, boolean>;
    const allWithin = Object.values(within).every(Boolean);
    printTable(
      ['on ÷ off', 'ratio', 'bound', 'within 3%'],
      (Object.keys(ratios) as Array<keyof typeof ratios>).map((k) => [
        k,
        fmt(ratios[k], 3),
        throughput(k) ? `≥ ${WITHIN}` : `≤ ${fmt(2 - WITHIN, 2)}`,
        within[k] ? 'yes' : 'NO',
      ]),
      `Metrics on ÷ off${quick ? ' (--quick: short windows on a shared machine, noise larger than 3%)' : ''}`,
    );
    printTable(
      ['on ÷ off', 'median of the rounds’ ratios'],
      (Object.keys(api.pairs) as Array<keyof typeof api.pairs>).map((k) => [k, fmt(api.pairs[k], 3)]),
      `API, each round's on ÷ off (its two windows back to back), median over the ${plan.rounds} rounds`,
    );
    console.log(
      `\ntarget: metrics on within 3% of off (throughput ≥ ${WITHIN}, CPU per unit ≤ ${fmt(2 - WITHIN, 2)}): ` +
        `${allWithin ? 'MET' : 'NOT MET'}${quick ? ' (a --quick run: not conclusive, run it in full)' : ''}`,
    );

    const apiFig = (x: ApiSummary) => ({
      rps: Math.round(x.rps),
      min_rps: Math.round(x.minRps),
      max_rps: Math.round(x.maxRps),
      p50_ms: round(x.p50),
      p99_ms: round(x.p99),
      server_cores: round(x.serverCores),
      cpu_us_per_req: round(x.cpuUsPerReq, 1),
      scrapes: x.scrapes,
    });
    const fanFig = (x: FanoutSummary) => ({
      connections: x.connections,
      expected_fps: Math.round(x.expectedPerS),
      delivered_fps: Math.round(x.deliveredPerS),
      delivered_ratio: round(x.ratio, 4),
      p50_ms: round(x.p50),
      p99_ms: round(x.p99),
      server_cores: round(x.serverCores, 3),
      cpu_us_per_frame: round(x.cpuUsPerDelivery, 1),
      generator_cores: round(x.genCores),
      other_cores: round(x.otherCores),
      errors: x.errors,
      scrapes: x.scrapes,
    });
    const costFig = (c: ScrapeCost) => ({
      scrapes: c.scrapes,
      cpu_ms_per_scrape: round(c.cpuMsPerScrape, 2),
      p50_ms: round(c.p50Ms),
      bytes: c.bytes,
    });
    const procFig = (p: { cpuS: number; peakRss: number }) => ({
      cpu_s: round(p.cpuS, 1),
      peak_rss_mib: round(mib(p.peakRss), 1),
    });
    const figures = {
      bench: 'metrics',
      quick,
      scrape_interval_s: plan.scrapeS,
      changed_from_defaults: {
        api: 'RATE_LIMIT_PER_KEY and RATE_LIMIT_PER_IP raised; stdout to a file',
        fanout:
          'LOG_LEVEL=warn; RATE_LIMIT_PER_KEY, RATE_LIMIT_PER_IP, FREE_TIER_STREAMING_MINUTES and FREE_TIER_STORAGE_GB raised; stdout to a file',
        on: control ? 'nothing (--control: an A/A run)' : 'METRICS_PORT set',
        cpus: pin ? 'servers on CPU 1, the load generator on CPU 0 (--pin)' : 'not pinned',
      },
      api: {
        connections: plan.connections,
        rounds: plan.rounds,
        round_s: plan.roundS,
        get: { off: apiFig(api.s.get.off), on: apiFig(api.s.get.on) },
        post: { off: apiFig(api.s.post.off), on: apiFig(api.s.post.on) },
        scrape: costFig(api.cost),
      },
      fanout: {
        publishers: fan.scenario.publishers,
        fps: round(fan.scenario.fps, 1),
        receivers: fan.scenario.receivers,
        rounds: plan.fanoutRounds,
        window_s: plan.fanout.windowS,
        off: fanFig(fan.s.off),
        on: fanFig(fan.s.on),
        scrape: costFig(fan.cost),
        saturation: null,
      },
      processes: {
        api: { off: procFig(api.procs.off), on: procFig(api.procs.on) },
        fanout: { off: procFig(fan.procs.off), on: procFig(fan.procs.on) },
      },
      ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, round(v, 3)])),
      api_round_ratios_median: Object.fromEntries(
        Object.entries(api.pairs).map(([k, v]) => [k, round(v, 3)]),
      ),
      within_3_percent: within,
      all_within_3_percent: allWithin,
      duration_s: Math.round((Date.now() - started) / 1000),
    };
    await stopAll();
    console.log(JSON.stringify(figures));
  } finally {
    await stopAll();
  }
}
