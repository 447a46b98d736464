/**
 * The fan-out benchmark's longer measurements (bench/fanout.ts): server memory per idle joined
 * connection, the search for the load at which scenario A saturates, the medians of a list of
 * rounds, and the figures of each in the JSON line the benchmark prints last.
 */
import { FanoutLoad } from './live-load.ts';
import { median } from './load.ts';
import {
  BASE_FPS,
  describe,
  EXPLODED_P99_MS,
  loadPlan,
  nextPhase,
  PASS_RATIO,
  roomsFor,
  runPhase,
  scenarioAAt,
  steadyRss,
  type Phase,
  type Scenario,
  type Timing,
} from './fanout-phase.ts';
import type { ServerProcess } from './server.ts';
import { fmt, mib, round } from './table.ts';

export interface FanoutPlan {
  rounds: number;
  scenario: Timing;
  search: Timing;
  /** the load grows by this factor per search step */
  searchFactor: number;
  /** bisection steps between the last passing and the first failing load */
  bisect: number;
  /** a search step that fails is run again this many times (the machine is shared and noisy) */
  retries: number;
  /** the first load tried, in published frames/s */
  searchStart: number;
  /** search the relay's saturating load too (for the capacity ratio) */
  searchRelay: boolean;
  idleConnections: number;
  /** total seconds the run may spend waiting for a quiet machine */
  quietBudgetS: number;
  /** further idle connections added after the first measurement, as a cross-check of the slope */
  idleExtra: number;
  idleRoomSize: number;
  idleSettleMs: number;
}

/** The highest published frames/s the search tries. */
const MAX_SEARCH_RATE = 3000;

export interface Idle {
  connections: number;
  rss0: number;
  rssN: number;
  perConnBytes: number;
  /** `idleExtra` more connections on top: RSS before and after them, per connection (null: not measured) */
  extra: { connections: number; rssBefore: number; rssAfter: number; perConnBytes: number } | null;
}

/**
 * Server RSS with `idleConnections` idle joined connections minus RSS with none (tokens already
 * issued), per connection; then, as a cross-check of the slope, the same for `idleExtra` more.
 */
export async function idleMemory(
  kind: 'relay' | 'vss',
  server: ServerProcess,
  auth: Record<string, string>,
  plan: FanoutPlan,
): Promise<Idle> {
  const shape = (n: number): Scenario => ({
    name: 'idle',
    rooms: Math.ceil(n / plan.idleRoomSize),
    publishers: 0,
    receivers: plan.idleRoomSize,
    fps: BASE_FPS,
  });
  const loads: FanoutLoad[] = [];
  try {
    const rooms = await roomsFor(kind, server, auth, shape(plan.idleConnections), `idle-${nextPhase()}`);
    const rss0 = await steadyRss(server, plan.idleSettleMs);
    const load = new FanoutLoad(loadPlan(kind, rooms, BASE_FPS));
    loads.push(load);
    await load.connect();
    const rssN = await steadyRss(server, plan.idleSettleMs);
    let extra: Idle['extra'] = null;
    if (plan.idleExtra > 0) {
      const more = await roomsFor(kind, server, auth, shape(plan.idleExtra), `idle-${nextPhase()}`);
      const rssBefore = await steadyRss(server, plan.idleSettleMs);
      const moreLoad = new FanoutLoad(loadPlan(kind, more, BASE_FPS));
      loads.push(moreLoad);
      await moreLoad.connect();
      const rssAfter = await steadyRss(server, plan.idleSettleMs);
      extra = {
        connections: moreLoad.size,
        rssBefore,
        rssAfter,
        perConnBytes: (rssAfter - rssBefore) / moreLoad.size,
      };
    }
    server.assertAlive();
    return { connections: load.size, rss0, rssN, perConnBytes: (rssN - rss0) / load.size, extra };
  } finally {
    for (const l of loads) await l.close();
  }
}

export interface Search {
  kind: 'relay' | 'vss';
  steps: Array<{ rate: number; phase: Phase; pass: boolean }>;
  /** a failing load was found (otherwise `rate` is only a lower bound) */
  saturated: boolean;
  /** the highest published frames/s that passed (0: none did) */
  rate: number;
  firstFailing: number | null;
  /** the passing step at `rate` */
  phase: Phase | undefined;
}

/**
 * Raises the published frame rate of scenario A (40 receivers) by `searchFactor` per step until
 * delivered ÷ expected < PASS_RATIO or p99 ≥ EXPLODED_P99_MS, then bisects. A failing step is
 * run again `retries` times before it counts, since other work on the shared machine can fail it.
 */
export async function searchSaturation(
  kind: 'relay' | 'vss',
  server: ServerProcess,
  auth: Record<string, string>,
  plan: FanoutPlan,
): Promise<Search> {
  const steps: Search['steps'] = [];
  const tryRate = async (rate: number) => {
    for (let attempt = 0; ; attempt++) {
      const phase = await runPhase(kind, server, auth, scenarioAAt(rate), plan.search);
      const pass = phase.ratio >= PASS_RATIO && phase.p99 < EXPLODED_P99_MS;
      const again = !pass && attempt < plan.retries;
      console.log(
        `  search ${kind} ${fmt(rate)} published/s: ${pass ? 'ok' : again ? 'failed, once more' : 'SATURATED'}  ${describe(phase)}`,
      );
      if (again) continue;
      steps.push({ rate, phase, pass });
      return pass;
    }
  };
  let lo = 0;
  let hi = Infinity;
  let rate = plan.searchStart;
  if (await tryRate(rate)) {
    lo = rate;
    while (hi === Infinity && rate < MAX_SEARCH_RATE) {
      rate = Math.min(MAX_SEARCH_RATE, Math.round(rate * plan.searchFactor));
      if (await tryRate(rate)) lo = rate;
      else hi = rate;
    }
  } else {
    hi = rate;
    while (lo === 0 && rate > 4) {
      rate = Math.round(rate / plan.searchFactor);
      if (await tryRate(rate)) lo = rate;
      else hi = rate;
    }
  }
  for (let i = 0; i < plan.bisect && lo > 0 && hi !== Infinity; i++) {
    const mid = Math.round((lo + hi) / 2);
    if (mid === lo || mid === hi) break;
    if (await tryRate(mid)) lo = mid;
    else hi = mid;
  }
  steps.sort((a, b) => a.rate - b.rate);
  return {
    kind,
    steps,
    saturated: hi !== Infinity,
    rate: lo,
    firstFailing: hi === Infinity ? null : hi,
    phase: steps.find((x) => x.rate === lo && x.pass)?.phase,
  };
}

/** What a list of rounds measured: medians of the per-round figures. */
export function summarise(ps: Phase[]) {
  const m = (f: (p: Phase) => number) => median(ps.map(f));
  return {
    rounds: ps.length,
    connections: ps[0]!.connections,
    sentPerS: m((p) => p.sentPerS),
    expectedPerS: m((p) => p.expectedPerS),
    deliveredPerS: m((p) => p.deliveredPerS),
    ratio: m((p) => p.ratio),
    p50: m((p) => p.p50),
    p99: m((p) => p.p99),
    max: Math.max(...ps.map((p) => p.max)),
    serverCores: m((p) => p.serverCores),
    cpuUsPerDelivery: m((p) => p.cpuUsPerDelivery),
    mainUsPerDelivery: m((p) => p.mainUsPerDelivery),
    genCores: m((p) => p.genCores),
    otherCores: m((p) => p.otherCores),
    serverMainCores: m((p) => p.serverMainCores),
    serverRunqueueWait: m((p) => p.serverRunqueueWait),
    rssBytes: Math.max(...ps.map((p) => p.rssBytes)),
    perConnBytes: m((p) => (p.rssBytes - p.rssBeforeBytes) / p.connections),
    errors: ps.reduce((a, p) => a + p.window.errors, 0),
  };
}
export type Summary = ReturnType<typeof summarise>;

/** The figures of a summary of rounds, as the JSON line has them. */
export const summaryFigures = (x: Summary) => ({
  connections: x.connections,
  expected_fps: Math.round(x.expectedPerS),
  delivered_fps: Math.round(x.deliveredPerS),
  delivered_ratio: round(x.ratio, 4),
  p50_ms: round(x.p50),
  p99_ms: round(x.p99),
  server_cores: round(x.serverCores),
  cpu_us_per_frame: round(x.cpuUsPerDelivery, 1),
  main_thread_us_per_frame: round(x.mainUsPerDelivery, 1),
  server_runqueue_wait: round(x.serverRunqueueWait, 3),
  generator_cores: round(x.genCores),
  other_cores: round(x.otherCores),
  rss_mib: round(mib(x.rssBytes), 1),
  rss_kib_per_conn: Math.round(x.perConnBytes / 1024),
});
/** The figures of one phase, as the JSON line has them. */
export const phaseFigures = (p: Phase) => ({
  publishers: p.scenario.publishers,
  fps: round(p.scenario.fps, 1),
  expected_fps: Math.round(p.expectedPerS),
  delivered_fps: Math.round(p.deliveredPerS),
  delivered_ratio: round(p.ratio, 4),
  p50_ms: round(p.p50),
  p99_ms: round(p.p99),
  server_cores: round(p.serverCores),
  cpu_us_per_frame: round(p.cpuUsPerDelivery, 1),
  generator_cores: round(p.genCores),
  other_cores: round(p.otherCores),
});
/** The figures of a saturation search, as the JSON line has them. */
export const searchFigures = (x: Search) => ({
  saturated: x.saturated,
  published_fps: x.rate,
  delivered_fps: x.phase ? Math.round(x.phase.deliveredPerS) : null,
  first_failing_published_fps: x.firstFailing,
  steps: x.steps.map((st) => ({ rate: st.rate, pass: st.pass, ...phaseFigures(st.phase) })),
});
