/**
 * The playback benchmark's summary of what bench/playback.ts measured: medians over the rounds,
 * its tables, its targets, the server's CPU profile (--cpu-prof) and, last, the JSON line of its
 * figures.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { summarize, type FunctionCost } from './cpu-profile.ts';
import { median, quantile } from './load.ts';
import type { Fixture, FixtureSpec } from './playback-fixture.ts';
import {
  ANSWER_CAPS,
  eps,
  mbps,
  MODES,
  overHttp,
  sorted,
  WINDOW_MS,
  type Mode,
  type Pass,
} from './playback-run.ts';
import { fmt, mib, printTable, round } from './table.ts';

const TARGET_RATIO = 0.3;
const TARGET_P99_MS = 50;

/** What a run measured, and what it needs to say about it. */
export interface Measured {
  quick: boolean;
  /** Date.now() at the start of the run */
  started: number;
  rounds: number;
  /** the counts of concurrent HTTP readers, in the order of `concurrent` */
  readers: number[];
  spec: FixtureSpec;
  fixture: Fixture;
  /** seconds the fixture took to write */
  genS: number;
  segmentFiles: number;
  indexBytes: number;
  /** the server's RSS at rest, before reading */
  restRss: number;
  passes: Record<Mode, Pass[]>;
  concurrent: Pass[];
  peakResettable: boolean;
  loadStart: number[];
  loadEnd: number[];
  profDir: string | undefined;
}

/** Prints the tables, the targets and the figures; throws if a reader was incomplete. */
export function report(m: Measured): void {
  const { quick, started, rounds, readers, spec, fixture, genS, segmentFiles, indexBytes, restRss } = m;
  const { passes, concurrent, peakResettable, loadStart, loadEnd, profDir } = m;
  type Summary = ReturnType<typeof summary>;
  const summary = (ps: Pass[]) => {
    const lat = sorted(ps.flatMap((p) => p.result.latencyMs));
    const ttfb = sorted(ps.flatMap((p) => p.result.ttfbMs));
    const sizes = ps.flatMap((p) => p.result.answerBytes);
    const wall = ps.reduce((a, p) => a + p.result.wallS, 0);
    return {
      mbPerS: median(ps.map(mbps)),
      minMbps: Math.min(...ps.map(mbps)),
      maxMbps: Math.max(...ps.map(mbps)),
      eventsPerS: median(ps.map(eps)),
      wallS: median(ps.map((p) => p.result.wallS)),
      answers: ps[0]!.result.answers,
      p50: quantile(lat, 0.5),
      p99: quantile(lat, 0.99),
      max: lat[lat.length - 1] ?? NaN,
      ttfbP50: quantile(ttfb, 0.5),
      ttfbP99: quantile(ttfb, 0.99),
      answerMb: sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length / 1e6 : NaN,
      serverCores: ps.reduce((a, p) => a + p.serverCpuS, 0) / wall,
      readerCores: ps.reduce((a, p) => a + p.result.cpuS, 0) / wall,
      peakRss: Math.max(...ps.map((p) => p.serverPeakRss)),
      complete: ps.every((p) => p.result.complete),
    };
  };
  const http = summary(passes.http);
  const s: Record<Mode, Summary | null> = {
    http,
    baseline: passes.baseline.length ? summary(passes.baseline) : null,
    store: passes.store.length ? summary(passes.store) : null,
    floor: passes.floor.length ? summary(passes.floor) : null,
  };
  const conc = concurrent.map((p, i) => ({ readers: readers[i]!, ...summary([p]) }));
  const ratio = s.baseline ? http.mbPerS / s.baseline.mbPerS : NaN;
  const ratioStore = s.store ? http.mbPerS / s.store.mbPerS : NaN;
  // What a server with no work at all reaches, against the baseline: the ratio's ceiling here.
  const floorRatio = s.floor && s.baseline ? s.floor.mbPerS / s.baseline.mbPerS : NaN;

  printTable(
    [
      'fixture',
      'minutes',
      'events',
      'payload GB',
      'segments',
      'index MB',
      'generation s',
      'events/s',
      'MB/s',
    ],
    [
      [
        `${spec.participants} × (cam ${spec.camFps} fps × ${fmt(spec.camBytes / 1000)} kB + mic ${spec.micPerS}/s)`,
        String(spec.minutes),
        fixture.events,
        fmt(fixture.payloadBytes / 1e9, 2),
        String(segmentFiles),
        fmt(indexBytes / 1e6, 1),
        fmt(genS, 1),
        Math.round(fixture.events / genS),
        Math.round(fixture.payloadBytes / 1e6 / genS),
      ],
    ],
    'Fixture (written with the stream store’s appendBatch, 2,000 events a batch, server stopped; ' +
      'bodies in segment files, one index row per event in streams.sqlite)',
  );
  const label: Record<Mode, string> = {
    http: 'HTTP playback, 1 reader',
    baseline: 'baseline: pread ≤1 MiB + base64 per body',
    store: 'stream store in-process, same paging',
    floor: 'floor: the same answers from memory',
  };
  printTable(
    [
      'reader',
      'MB/s',
      'range',
      'events/s',
      'answers',
      'p50 ms',
      'p99 ms',
      'max ms',
      'server cores',
      'reader cores',
      'HTTP ÷ this',
    ],
    MODES.flatMap((m) => {
      const x = s[m];
      if (!x) return [];
      return [
        [
          label[m],
          fmt(x.mbPerS, 1),
          `${fmt(x.minMbps)}–${fmt(x.maxMbps)}`,
          Math.round(x.eventsPerS),
          String(x.answers),
          fmt(x.p50, 1),
          fmt(x.p99, 1),
          fmt(x.max, 1),
          overHttp(m) ? fmt(x.serverCores, 2) : '',
          fmt(x.readerCores, 2),
          m === 'http' ? '' : fmt(http.mbPerS / x.mbPerS, 3),
        ],
      ];
    }),
    `Whole recording, ${WINDOW_MS / 1000} s windows, median of ${rounds} interleaved rounds; MB/s of payload ` +
      `(decoded bodies); latency per answer (≤ ${ANSWER_CAPS.events} events or ${ANSWER_CAPS.bytes / 2 ** 20} MiB of one window), pooled over the rounds. ` +
      `Baseline: the session's segment files from the page cache in seq order, positional reads of adjacent ` +
      `bodies (≤ 1 MiB each) into one buffer, toString('base64') of each body; no checksum, SQL, JSON or HTTP`,
  );
  printTable(
    [
      'HTTP readers',
      'MB/s (all)',
      'events/s (all)',
      'p50 ms',
      'p99 ms',
      'max ms',
      'server cores',
      'server peak RSS MiB',
    ],
    [{ readers: 1, ...http }, ...conc].map((c) => [
      String(c.readers),
      fmt(c.mbPerS, 1),
      Math.round(c.eventsPerS),
      fmt(c.p50, 1),
      fmt(c.p99, 1),
      fmt(c.max, 1),
      fmt(c.serverCores, 2),
      fmt(mib(c.peakRss), 1),
    ]),
    `HTTP answers: ${fmt(http.answerMb, 1)} MB of JSON on average; time to first byte p50 ${fmt(http.ttfbP50, 1)} ms, ` +
      `p99 ${fmt(http.ttfbP99, 1)} ms (1 reader); server RSS at rest ${fmt(mib(restRss), 1)} MiB; ` +
      `peak RSS is VmHWM ${peakResettable ? 'reset before each phase' : 'over the whole run (reset refused)'}`,
  );

  const peakAll = Math.max(http.peakRss, ...conc.map((c) => c.peakRss));
  const met = { ratio: ratio >= TARGET_RATIO, p99: http.p99 < TARGET_P99_MS };
  const yn = (b: boolean) => (b ? 'met' : 'NOT MET');
  console.log(
    `\nload average (1, 5, 15 min): ${loadStart.map((l) => l.toFixed(2)).join(' ')} at the start of reading, ` +
      `${loadEnd.map((l) => l.toFixed(2)).join(' ')} at the end (2 cores: above ~2 means other work shared the machine)`,
  );
  const ratioLine = s.baseline
    ? `${yn(met.ratio)} (${fmt(ratio, 3)}: ${fmt(http.mbPerS, 1)} ÷ ${fmt(s.baseline.mbPerS, 1)} MB/s)`
    : 'not measured (--only left the baseline out)';
  const storeLine = s.store ? `; ${fmt(ratioStore, 3)} × the stream store read directly` : '';
  const floorLine = s.floor
    ? `\n                    the floor (the same answers from memory, no server work) reaches ${fmt(floorRatio, 3)} × the baseline: ` +
      `the most any playback server could here; HTTP is ${fmt(http.mbPerS / s.floor.mbPerS, 3)} × the floor`
    : '';
  console.log(
    `targets (issue 18): HTTP MB/s ≥ ${TARGET_RATIO} × the baseline's (page cache + base64): ${ratioLine}${storeLine}${floorLine}\n` +
      `                    answer of a 30 s window p99 < ${TARGET_P99_MS} ms: ${yn(met.p99)} (${fmt(http.p99, 1)} ms, 1 reader)\n` +
      `server peak RSS while reading (no target): ${fmt(peakAll / 1e6, 1)} MB = ${fmt(mib(peakAll), 1)} MiB ` +
      `${conc.length ? `with up to ${Math.max(...readers)} readers` : 'with 1 reader'}; ${fmt(http.peakRss / 1e6, 1)} MB with 1`,
  );

  if (profDir) {
    const dir = resolve(profDir);
    const newest = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
      .filter((x) => x.t >= started)
      .sort((a, b) => b.t - a.t)[0];
    if (!newest) console.log(`\n--cpu-prof: the server wrote no profile into ${dir}`);
    else {
      const { samples, functions } = summarize(join(dir, newest.f));
      const row = (f: FunctionCost) => [fmt(f.selfPct, 2), fmt(f.totalPct, 2), f.name];
      printTable(
        ['self %', 'total %', 'function'],
        functions.slice(0, 25).map(row),
        `Server CPU profile ${join(dir, newest.f)} (${samples} samples, the whole run from start to stop, ` +
          `node --cpu-prof slows it): heaviest self time`,
      );
      printTable(
        ['self %', 'total %', 'function'],
        [...functions]
          .filter((f) => f.name.includes('packages/server/'))
          .sort((a, b) => b.totalPct - a.totalPct)
          .slice(0, 20)
          .map(row),
        "Server's own functions by total time",
      );
    }
  }
  if (![http, s.baseline, s.store, s.floor, ...conc].every((x) => x === null || x.complete))
    throw new Error('a reader was incomplete');

  const fig = (x: Summary | null) =>
    x && {
      mb_per_s: round(x.mbPerS, 1),
      events_per_s: Math.round(x.eventsPerS),
      wall_s: round(x.wallS, 2),
      answers: x.answers,
      p50_ms: round(x.p50),
      p99_ms: round(x.p99),
      max_ms: round(x.max),
      reader_cores: round(x.readerCores),
    };
  const orNull = (n: number, digits: number) => (Number.isFinite(n) ? round(n, digits) : null);
  const figures = {
    bench: 'playback',
    quick,
    minutes: spec.minutes,
    participants: spec.participants,
    events: fixture.events,
    payload_bytes: fixture.payloadBytes,
    segment_files: segmentFiles,
    index_bytes: indexBytes,
    window_ms: WINDOW_MS,
    rounds: rounds,
    fixture: {
      generation_s: round(genS, 1),
      events_per_s: Math.round(fixture.events / genS),
      mb_per_s: round(fixture.payloadBytes / 1e6 / genS, 1),
    },
    ratio: orNull(ratio, 3),
    ratio_store: orNull(ratioStore, 3),
    ratio_floor: s.floor ? orNull(http.mbPerS / s.floor.mbPerS, 3) : null,
    floor_ratio_to_baseline: orNull(floorRatio, 3),
    http: {
      ...fig(http),
      ttfb_p50_ms: round(http.ttfbP50),
      ttfb_p99_ms: round(http.ttfbP99),
      answer_mb: round(http.answerMb, 2),
      server_cores: round(http.serverCores),
      server_peak_rss_mib: round(mib(http.peakRss), 1),
      server_rest_rss_mib: round(mib(restRss), 1),
    },
    baseline: fig(s.baseline),
    store: fig(s.store),
    floor: s.floor && {
      ...fig(s.floor),
      server_cores: round(s.floor.serverCores),
      server_peak_rss_mib: round(mib(s.floor.peakRss), 1),
    },
    concurrent: conc.map((c) => ({
      readers: c.readers,
      mb_per_s: round(c.mbPerS, 1),
      events_per_s: Math.round(c.eventsPerS),
      p50_ms: round(c.p50),
      p99_ms: round(c.p99),
      server_cores: round(c.serverCores),
      server_peak_rss_mib: round(mib(c.peakRss), 1),
    })),
    targets: { ratio_ge_0_3: met.ratio, p99_lt_50_ms: met.p99 },
    targets_met: met.ratio && met.p99,
    load_average: { start: loadStart.map((l) => round(l)), end: loadEnd.map((l) => round(l)) },
    duration_s: Math.round((Date.now() - started) / 1000),
  };
  console.log(JSON.stringify(figures));
}
