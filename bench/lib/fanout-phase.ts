/**
 * The phases of the fan-out benchmark (bench/fanout.ts, and bench/metrics.ts's fan-out part): a
 * scenario's rooms on the real gateway or the bare relay, its WebSocket clients connected
 * (bench/lib/live-load.ts), one measured window after the warm-up, and what it cost the server,
 * the load generator and the rest of the machine.
 */
import { LIVE_MESSAGES_PER_S } from '@vss/server/tools';
import { expectCall } from './http.ts';
import { FanoutLoad, type LoadPlan, type RoomPlan, type WindowResult } from './live-load.ts';
import { median, quantile } from './load.ts';
import { readMachineCpu, readSchedstat, waitForQuiet } from './machine.ts';
import type { ServerProcess } from './server.ts';
import { fmt } from './table.ts';
import { benchTenant } from './tenant.ts';
import type { Transport } from './ws-link.ts';

export interface Timing {
  warmupS: number;
  windowS: number;
  graceS: number;
  /** wait up to this long before a phase for the shared machine to be quiet (other work < QUIET_CORES) */
  quietS: number;
}

/** Seconds left to wait for a quiet machine in this run, so that a machine that stays busy does not stretch it. */
let quietBudgetS = 0;

/** Sets the seconds this run may spend in all waiting for a quiet machine before its phases. */
export function setQuietBudget(seconds: number): void {
  quietBudgetS = seconds;
}

const HIGH = '100000000';
/**
 * What this benchmark changes from the defaults for the real server: warn-level logs, and the rate
 * limits, the free tier's limits (the saturation search records several GB) and the per-address
 * connection cap (every client connects from this machine) out of the way.
 */
export const FANOUT_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_KEY: HIGH,
  RATE_LIMIT_PER_IP: HIGH,
  MAX_CONNECTIONS_PER_ADDRESS: '0',
  FREE_TIER_STREAMING_MINUTES: HIGH,
  FREE_TIER_STORAGE_GB: HIGH,
};
export const FRAME_BYTES = 30 * 1024;
export const BASE_FPS = 15;
/**
 * The gateway allows LIVE_MESSAGES_PER_S messages/s per connection (200); the search adds
 * publishers above 90% of it, so that no publisher is throttled.
 */
const MAX_FPS_PER_PUBLISHER = Math.floor(LIVE_MESSAGES_PER_S * 0.9);
/** A load passes while delivered ÷ expected stays at least this and p99 under EXPLODED_P99_MS. */
export const PASS_RATIO = 0.95;
export const EXPLODED_P99_MS = 250;
/** Busy cores of the whole machine, between phases, below which it counts as quiet. */
const QUIET_CORES = 0.35;

export type Kind = 'relay' | 'vss' | 'vss-json';

export interface Scenario {
  name: string;
  rooms: number;
  publishers: number;
  receivers: number;
  fps: number;
}

export const SCENARIO_A: Scenario = { name: 'A', rooms: 1, publishers: 4, receivers: 40, fps: BASE_FPS };
export const SCENARIO_B: Scenario = { name: 'B', rooms: 20, publishers: 3, receivers: 0, fps: BASE_FPS };

/** Scenario A at a total published rate: 4 publishers, more when the rate per publisher would exceed the cap. */
export function scenarioAAt(publishedPerS: number): Scenario {
  const publishers = Math.max(4, Math.ceil(publishedPerS / MAX_FPS_PER_PUBLISHER));
  return { name: 'A', rooms: 1, publishers, receivers: 40, fps: publishedPerS / publishers };
}

export interface Phase {
  kind: Kind;
  scenario: Scenario;
  connections: number;
  window: WindowResult;
  sentPerS: number;
  expectedPerS: number;
  deliveredPerS: number;
  /** delivered ÷ expected */
  ratio: number;
  p50: number;
  p99: number;
  max: number;
  /** server CPU during the window, in cores */
  serverCores: number;
  /** server CPU µs per delivered frame */
  cpuUsPerDelivery: number;
  /** CPU µs of the server's main thread per delivered frame */
  mainUsPerDelivery: number;
  /** load generator (this process) CPU during the window, in cores */
  genCores: number;
  /** generator CPU in the kernel (system time), in cores */
  genSysCores: number;
  /** interrupt + softirq time of the machine during the window (loopback TCP, disk), in cores */
  irqCores: number;
  /** CPU used by other processes during the window, in cores */
  otherCores: number;
  /** CPU of the server's main thread (the event loop) during the window, in cores */
  serverMainCores: number;
  /** fraction of the window the server's main thread was runnable but waited for a CPU */
  serverRunqueueWait: number;
  rssBeforeBytes: number;
  rssBytes: number;
}

/** Runs `fn` over `items`, `concurrency` at a time, keeping the order of the results. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An API key's authorization header, through the real API. */
export async function bootstrap(base: string): Promise<Record<string, string>> {
  return (await benchTenant(base, 'fanout')).auth;
}

/** The rooms of a scenario: relay rooms, or real sessions with a connection token per participant. */
export async function roomsFor(
  kind: Kind,
  server: ServerProcess,
  auth: Record<string, string>,
  s: Scenario,
  tag: string,
): Promise<RoomPlan[]> {
  const wsBase = server.url.replace(/^http/, 'ws');
  const users = (room: number) => [
    ...Array.from({ length: s.publishers }, (_, i) => ({ userId: `pub-${room}-${i}`, publishes: true })),
    ...Array.from({ length: s.receivers }, (_, i) => ({ userId: `rx-${room}-${i}`, publishes: false })),
  ];
  const indexes = Array.from({ length: s.rooms }, (_, i) => i);
  if (kind === 'relay')
    return indexes.map((r) => {
      const name = `${tag}-${r}`;
      return {
        name,
        participants: users(r).map((u) => ({
          ...u,
          url: `${wsBase}/?room=${encodeURIComponent(name)}&user_id=${u.userId}`,
        })),
      };
    });
  const format = kind === 'vss' ? '&format=binary' : '';
  return pool(indexes, 4, async (r) => {
    const session = await expectCall<{ data: { id: string } }>(201, `${server.url}/v1/sessions`, {
      method: 'POST',
      headers: auth,
      json: { name: `${tag}-${r}` },
    });
    const sessionId = session.json.data.id;
    const participants = await pool(users(r), 8, async (u) => {
      const t = await expectCall<{ data: { access_token: string } }>(
        200,
        `${server.url}/v1/sessions/${sessionId}/connection`,
        { method: 'POST', headers: auth, json: { user_id: u.userId } },
      );
      return {
        ...u,
        url: `${wsBase}/ws?session=${sessionId}&access_token=${t.json.data.access_token}&user_id=${u.userId}${format}`,
      };
    });
    return { name: sessionId, participants };
  });
}

/** The client implementation of the load generator: `--ws-clients` uses the `ws` package's. */
let transport: Transport = 'raw';

/** Chooses the load generator's client implementation for the phases that follow. */
export function setTransport(t: Transport): void {
  transport = t;
}

export function loadPlan(kind: Kind, rooms: RoomPlan[], fps: number): LoadPlan {
  return {
    rooms,
    fps,
    frameBytes: FRAME_BYTES,
    json: kind === 'vss-json',
    waitWelcome: kind !== 'relay',
    transport,
  };
}

/** RSS after `settleMs`: the median of five readings 200 ms apart. */
export async function steadyRss(server: ServerProcess, settleMs: number): Promise<number> {
  await sleep(settleMs);
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push(server.sampler.sample()?.rssBytes ?? NaN);
    if (i < 4) await sleep(200);
  }
  return median(readings);
}

let phaseCounter = 0;

/** A number for the next phase's rooms, unique in this run. */
export const nextPhase = (): number => ++phaseCounter;

/** Connects a scenario, publishes, measures one window after the warm-up, disconnects. */
export async function runPhase(
  kind: Kind,
  server: ServerProcess,
  auth: Record<string, string>,
  s: Scenario,
  t: Timing,
): Promise<Phase> {
  server.assertAlive();
  const tag = `fanout-${nextPhase()}-${s.name}`;
  const rooms = await roomsFor(kind, server, auth, s, tag);
  if (t.quietS > 0 && quietBudgetS > 0) {
    const waitStart = Date.now();
    await waitForQuiet(QUIET_CORES, Math.min(t.quietS, quietBudgetS) * 1000);
    quietBudgetS -= (Date.now() - waitStart) / 1000;
  }
  const rssBeforeBytes = server.sampler.sample()?.rssBytes ?? NaN;
  const load = new FanoutLoad(loadPlan(kind, rooms, s.fps));
  try {
    await load.connect();
    load.start();
    await sleep(t.warmupS * 1000);
    const mark = server.sampler.mark();
    const gen = process.cpuUsage();
    const machine0 = readMachineCpu();
    const sched0 = readSchedstat(server.pid);
    load.openWindow();
    await sleep(t.windowS * 1000);
    load.closeWindow();
    const cpuS = server.sampler.cpuSince(mark);
    const genUsage = process.cpuUsage(gen);
    const machine1 = readMachineCpu();
    const sched1 = readSchedstat(server.pid);
    const genS = (genUsage.user + genUsage.system) / 1e6;
    const rssBytes = server.sampler.last?.rssBytes ?? NaN;
    const w = await load.settle(t.graceS * 1000);
    load.stop();
    server.assertAlive();
    const d = w.durationS;
    return {
      kind,
      scenario: s,
      connections: load.size,
      window: w,
      sentPerS: w.sent / d,
      expectedPerS: w.expected / d,
      deliveredPerS: w.delivered / d,
      ratio: w.expected ? w.delivered / w.expected : NaN,
      p50: quantile(w.latencies, 0.5),
      p99: quantile(w.latencies, 0.99),
      max: w.latencies[w.latencies.length - 1] ?? NaN,
      serverCores: cpuS / d,
      cpuUsPerDelivery: w.delivered ? (cpuS / w.delivered) * 1e6 : NaN,
      genCores: genS / d,
      genSysCores: genUsage.system / 1e6 / d,
      irqCores: machine0 && machine1 ? (machine1.irqS - machine0.irqS) / d : NaN,
      otherCores:
        machine0 && machine1
          ? (machine1.busyS - machine0.busyS - (machine1.irqS - machine0.irqS) - cpuS - genS) / d
          : NaN,
      serverMainCores: sched0 && sched1 ? (sched1.runS - sched0.runS) / d : NaN,
      mainUsPerDelivery:
        sched0 && sched1 && w.delivered ? ((sched1.runS - sched0.runS) / w.delivered) * 1e6 : NaN,
      serverRunqueueWait: sched0 && sched1 ? (sched1.waitS - sched0.waitS) / d : NaN,
      rssBeforeBytes,
      rssBytes,
    };
  } finally {
    await load.close();
  }
}

export function describe(p: Phase): string {
  return (
    `${p.kind.padEnd(8)} ${p.scenario.name} ${p.scenario.rooms}×(${p.scenario.publishers}+${p.scenario.receivers}) @ ${fmt(p.scenario.fps)} fps: ` +
    `delivered ${fmt(p.deliveredPerS)}/s of ${fmt(p.expectedPerS)} (${fmt(p.ratio, 3)})  p50 ${fmt(p.p50)} ms  p99 ${fmt(p.p99)} ms  ` +
    `server ${fmt(p.serverCores, 2)} cores (main thread ${fmt(p.serverMainCores, 2)}, waited ${fmt(p.serverRunqueueWait * 100, 0)}% for CPU)  ` +
    `generator ${fmt(p.genCores, 2)} (sys ${fmt(p.genSysCores, 2)}, loop p99 ${fmt(p.window.loopDelayP99)} ms)  ` +
    `irq ${fmt(p.irqCores, 2)}  others ${fmt(p.otherCores, 2)} cores` +
    (p.window.errors ? `  errors ${p.window.errors}: ${p.window.firstError}` : '') +
    (p.window.skipped ? `  skipped ${p.window.skipped}` : '')
  );
}
