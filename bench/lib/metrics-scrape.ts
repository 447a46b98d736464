/**
 * The two servers of the metrics benchmark (bench/metrics.ts), `off` and `on` (METRICS_PORT set),
 * and the scrapes of `on`'s /metrics as Prometheus makes them: during its loads, before them (to
 * warm it), and back to back on the idle server for the cost of a scrape alone.
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { median } from './load.ts';
import { freePort, startVss, type ServerProcess } from './server.ts';

const METRIC = 'vss_http_request_duration_seconds';

/** A pair of servers, `on` with its /metrics address. */
export interface Pair {
  off: ServerProcess;
  on: ServerProcess;
  metricsUrl: string;
  metricsPort: number;
  /** --control: `on` started exactly as `off`, and not scraped */
  control: boolean;
}

/** --control: `on` is started exactly as `off` (no METRICS_PORT) and nothing is scraped. */
let control = false;
/**
 * --pin: both servers on CPU 1 and the load generator (this process) on CPU 0 (`taskset`, every
 * thread), so that the scheduler's placement of the three processes on the two cores, which
 * changes from round to round, stops moving the figures.
 */
let pin = false;

/** --control and --pin, for the pairs started from now on. */
export function setMode(mode: { control: boolean; pin: boolean }): void {
  control = mode.control;
  pin = mode.pin;
}

/** Sets the CPU of every thread of a process (threads it starts later inherit it). */
function pinTo(pid: number, cpu: number): void {
  execFileSync('taskset', ['-apc', String(cpu), String(pid)], { stdio: 'ignore' });
}

export async function startPair(env: Record<string, string>, part: string): Promise<Pair> {
  const off = await startVss(env, `vss-${part}-off`);
  const metricsPort = await freePort();
  const on = await startVss(control ? env : { ...env, METRICS_PORT: String(metricsPort) }, `vss-${part}-on`);
  if (pin) {
    pinTo(off.pid, 1);
    pinTo(on.pid, 1);
    pinTo(process.pid, 0);
  }
  return { off, on, metricsPort, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, control };
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
export async function warmScrapes(url: string): Promise<void> {
  for (let i = 0; i < WARM_SCRAPES; i++) await scrape(url);
}

/** Scrapes /metrics at once and then every `intervalMs`, from start() to stop(). */
export class Scraper {
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
export async function scrapeCost(server: ServerProcess, url: string, n: number) {
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
export type ScrapeCost = Awaited<ReturnType<typeof scrapeCost>>;

export function processFigures(pair: Pair) {
  const one = (p: ServerProcess) => {
    p.sampler.sample();
    return { cpuS: p.sampler.last?.cpuS ?? NaN, peakRss: p.sampler.peakRssBytes };
  };
  return { off: one(pair.off), on: one(pair.on) };
}
