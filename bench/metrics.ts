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
import { loadavg } from 'node:os';
import type { BenchOptions } from './run.ts';
import type { Route } from './lib/api-load.ts';
import { intFlag } from './lib/args.ts';
import { setTransport } from './lib/fanout-phase.ts';
import { median } from './lib/load.ts';
import {
  apiPart,
  fanoutPart,
  ROUTES,
  type ApiSummary,
  type FanoutSummary,
  type MetricsPlan,
  type Side,
} from './lib/metrics-parts.ts';
import { setMode, type ScrapeCost } from './lib/metrics-scrape.ts';
import { stopAll } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';

const FULL: MetricsPlan = {
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
const QUICK: MetricsPlan = {
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

/** on ÷ off bounds of the target: throughput at least this, CPU per unit at most 2 − this */
const WITHIN = 0.97;

export default async function metrics({ quick, args }: BenchOptions): Promise<void> {
  const plan: MetricsPlan = { ...(quick ? QUICK : FULL) };
  plan.rounds = intFlag(args, 'rounds') ?? plan.rounds;
  plan.fanoutRounds = intFlag(args, 'fanout-rounds') ?? intFlag(args, 'rounds') ?? plan.fanoutRounds;
  plan.roundS = intFlag(args, 'seconds') ?? plan.roundS;
  plan.connections = intFlag(args, 'connections') ?? plan.connections;
  plan.published = intFlag(args, 'published') ?? plan.published;
  setTransport(args.includes('--ws-clients') ? 'ws' : 'raw');
  const control = args.includes('--control');
  const pin = args.includes('--pin');
  setMode({ control, pin });
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
