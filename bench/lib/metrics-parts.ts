/**
 * The two parts of the metrics benchmark (bench/metrics.ts), each on a pair of servers, `off` and
 * `on`, in rounds that interleave the two: bench/api.ts's loads, and bench/fanout.ts's scenario A.
 */
import { API_ENV, bootstrap as apiBootstrap, routeLoad, type ApiBoot, type Route } from './api-load.ts';
import {
  bootstrap as fanoutBootstrap,
  describe,
  FANOUT_ENV,
  runPhase,
  scenarioAAt,
  type Phase,
  type Timing,
} from './fanout-phase.ts';
import { median, runLoad, type LoadOptions, type LoadResult } from './load.ts';
import { summarise } from './fanout-search.ts';
import { processFigures, scrapeCost, Scraper, startPair, warmScrapes } from './metrics-scrape.ts';
import type { ServerProcess } from './server.ts';
import { fmt } from './table.ts';

export interface MetricsPlan {
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

export type Side = 'off' | 'on';
export const ROUTES: Route[] = ['get', 'post'];

/** Alternates which side goes first, round by round. */
const orderOf = (r: number): Side[] => (r % 2 ? ['off', 'on'] : ['on', 'off']);

interface ApiWindow {
  load: LoadResult;
  /** server CPU seconds during the window */
  cpuS: number;
  /** scrapes of /metrics during the window (on only) */
  scrapes: number;
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
export type ApiSummary = ReturnType<typeof summariseApi>;

export async function apiPart(plan: MetricsPlan) {
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
      `${plan.connections} connections; off pid ${pair.off.pid}, on pid ${pair.on.pid} (${pair.control ? 'no METRICS_PORT: --control' : `METRICS_PORT=${pair.metricsPort}`}); ` +
      `both: RATE_LIMIT_PER_KEY=RATE_LIMIT_PER_IP=${API_ENV.RATE_LIMIT_PER_KEY} (as bench/api.ts), LOG_LEVEL info (the default, its access log to a file)`,
  );
  const target = (side: Side, route: Route, durationS: number) =>
    routeLoad(servers[side].url, boot[side], route, plan.connections, durationS);
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

interface FanoutRound {
  phase: Phase;
  scrapes: number;
}

/** bench/fanout.ts's medians of the rounds, and the scrapes of `on` during them. */
function summariseFanout(rs: FanoutRound[]) {
  return { ...summarise(rs.map((r) => r.phase)), scrapes: rs.reduce((a, r) => a + r.scrapes, 0) };
}
export type FanoutSummary = ReturnType<typeof summariseFanout>;

export async function fanoutPart(plan: MetricsPlan) {
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
      `${t.warmupS} s warm-up; off pid ${pair.off.pid}, on pid ${pair.on.pid} (${pair.control ? 'no METRICS_PORT: --control' : `METRICS_PORT=${pair.metricsPort}`}); ` +
      `both: LOG_LEVEL=warn, RATE_LIMIT_PER_KEY=RATE_LIMIT_PER_IP=FREE_TIER_STREAMING_MINUTES=FREE_TIER_STORAGE_GB=${FANOUT_ENV.RATE_LIMIT_PER_KEY} (as bench/fanout.ts). ` +
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
