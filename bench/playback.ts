/**
 * playback: reading a whole recording window by window over HTTP, against reading the same events
 * straight from the storage engine.
 *
 *   npm run bench -- playback [--quick] [--minutes=N] [--rounds=N] [--readers=2,4]
 *                             [--only=http,sqlite,store] [--keep] [--data-dir=DIR]
 *                             [--cpu-prof=DIR] [--entry=FILE]
 *
 * Fixture: a recording of 4 participants (cam: 15 fps of 20,000-byte JPEG-like frames; mic: 50
 * EVC1/opus packets/s), 60 minutes (--quick: 3), about 936,000 events and 4.4 GB. It is not
 * published live (that would take the hour): a first run of the compiled server creates an
 * account, an API key and a session through the HTTP API and stops; then the events are written
 * into DATA_DIR/streams.sqlite with the server's own SQLite stream store (`appendBatch`, 2,000
 * events a batch, seq increasing in time order, timestamps from 2026-11-21 10:00 UTC); then the
 * server starts again on the same DATA_DIR. The fixture's generation is timed on its own.
 *
 * Measured, in rounds that interleave the three readers (each in a child process, one task at a
 * time, so the reader has a core and the server the other):
 *   http    GET /v1/sessions/{id}/playback?from_ts=<min_ts>&window_size=30000, then with
 *           base_seq=next_base_seq until it is null, API key, one reader
 *   sqlite  better-sqlite3 directly: one `ts` range query per 30 s window, in seq order
 *   store   the same answers (same paging and caps) from the compiled server's stream store
 *           (firstFrom/slot/nextTs/minSeqIn) on the same file in the reader process: no HTTP
 * then 2 and 4 concurrent HTTP readers (each reading the whole recording). Every reader checks
 * that it got every seq exactly once, the exact payload bytes, and each event's own body.
 * `ratio` = HTTP events/s ÷ better-sqlite3 events/s (medians over the rounds): the storage
 * engine itself is the baseline, since the stream store's own reads are part of what the server
 * does; `ratio_store` = HTTP ÷ the stream store read directly. The server's peak RSS is VmHWM,
 * reset (/proc/<pid>/clear_refs) before each reading phase.
 * Targets (issue): HTTP ≥ 50% of the direct read; an answer of a 30 s window under 150 ms p99;
 * server peak memory while reading under 300 MB.
 *
 * --only leaves readers out of the rounds (http always runs); --keep leaves the DATA_DIR (with
 * bench-fixture.json) for --data-dir=DIR to reuse; --cpu-prof=DIR runs the server under
 * `node --cpu-prof`; --entry=FILE runs another compiled server main.js (a patched copy, for
 * what-if measurements).
 */
import { fork, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchOptions } from './run.ts';
import { intFlag, strFlag } from './lib/args.ts';
import { expectCall } from './lib/http.ts';
import { benchTenant } from './lib/tenant.ts';
import { median, quantile } from './lib/load.ts';
import {
  FIXED_EPOCH_MS,
  openSqliteStreamStore,
  writeFixture,
  type Fixture,
  type FixtureSpec,
} from './lib/playback-fixture.ts';
import type { ReaderResult, ReaderTask } from './lib/playback-reader.ts';
import { readProc, resetPeak } from './lib/proc.ts';
import { ROOT, startProcess, stopAll, vssArgs, type ServerProcess } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';

type Mode = ReaderTask['mode'];
const MODES: Mode[] = ['http', 'sqlite', 'store'];

interface Plan {
  minutes: number;
  rounds: number;
  readers: number[];
  modes: Mode[];
  warmupAnswers: number;
}

const FULL: Plan = { minutes: 60, rounds: 3, readers: [2, 4], modes: MODES, warmupAnswers: 40 };
const QUICK: Plan = { minutes: 3, rounds: 2, readers: [2], modes: MODES, warmupAnswers: 10 };
const WINDOW_MS = 30_000;
const HIGH = '100000000';
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 150;
const TARGET_RSS_BYTES = 300e6;

const specFor = (minutes: number): FixtureSpec => ({
  minutes,
  participants: 4,
  camFps: 15,
  camBytes: 20_000,
  micPerS: 50,
  micDataBytes: 80,
  epochMs: FIXED_EPOCH_MS,
  batch: 2000,
});

/** What --keep leaves in DATA_DIR for --data-dir to reuse. */
interface Saved {
  fixture: Fixture;
  spec: FixtureSpec;
  secret: string;
  genS: number;
}

/** The reader child process: one task per message (bench/lib/playback-reader.ts). */
class ReaderProcess {
  private readonly child: ChildProcess;
  private next = 1;
  private readonly waiting = new Map<number, { ok: (r: ReaderResult) => void; fail: (e: Error) => void }>();

  constructor() {
    this.child = fork(join(ROOT, 'bench/lib/playback-reader.ts'), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, VSS_PLAYBACK_READER: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (msg: { id: number; result?: ReaderResult; error?: string }) => {
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) w.fail(new Error(`reader: ${msg.error}`));
      else w.ok(msg.result!);
    });
    this.child.on('exit', (code, signal) => {
      for (const w of this.waiting.values()) w.fail(new Error(`reader exited (${code ?? signal})`));
      this.waiting.clear();
    });
  }

  run(task: ReaderTask): Promise<ReaderResult> {
    const id = this.next++;
    return new Promise((ok, fail) => {
      this.waiting.set(id, { ok, fail });
      this.child.send({ id, task });
    });
  }

  /** Disconnects (the child exits on that); kills it if it is still there a second later. */
  stop(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.child.connected) this.child.disconnect();
    setTimeout(() => {
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    }, 1000).unref();
  }
}

/** A tenant's session and API key, through the real API. */
async function bootstrap(base: string): Promise<{ sessionId: string; secret: string }> {
  const { sessionId, secret } = await benchTenant(base, 'playback');
  return { sessionId, secret };
}

/** Reads a file once, so that every reader starts from the page cache. */
function readThrough(file: string): number {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 << 20);
  let total = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      total += n;
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

const fileBytes = (f: string) => (existsSync(f) ? statSync(f).size : 0);

interface Pass {
  result: ReaderResult;
  /** server CPU seconds during the pass (http only) */
  serverCpuS: number;
  /** server peak RSS during the pass (VmHWM after a reset), bytes (http only) */
  serverPeakRss: number;
}

export default async function playback({ quick, args }: BenchOptions): Promise<void> {
  const plan: Plan = { ...(quick ? QUICK : FULL) };
  plan.minutes = intFlag(args, 'minutes') ?? plan.minutes;
  plan.rounds = intFlag(args, 'rounds') ?? plan.rounds;
  const readersFlag = strFlag(args, 'readers');
  if (readersFlag !== undefined)
    plan.readers = readersFlag
      .split(',')
      .filter(Boolean)
      .map((x) => {
        const n = Number(x);
        if (!Number.isInteger(n) || n < 2) throw new Error('--readers takes counts of 2 or more, e.g. 2,4');
        return n;
      });
  const only = strFlag(args, 'only');
  if (only !== undefined) {
    const asked = only.split(',').filter(Boolean);
    const unknown = asked.filter((m) => !MODES.includes(m as Mode));
    if (unknown.length)
      throw new Error(`--only: unknown reader(s) ${unknown.join(', ')} (of ${MODES.join(', ')})`);
    plan.modes = MODES.filter((m) => m === 'http' || asked.includes(m));
  }
  const keep = args.includes('--keep');
  const reuse = strFlag(args, 'data-dir');
  const profDir = strFlag(args, 'cpu-prof');
  const entry = resolve(strFlag(args, 'entry') ?? join(ROOT, 'packages/server/dist/main.js'));
  const started = Date.now();

  const dataDir = reuse ? resolve(reuse) : mkdtempSync(join(tmpdir(), 'vss-bench-playback-'));
  const streamsFile = join(dataDir, 'streams.sqlite');
  const serverEnv = {
    DATABASE_URL: '',
    REDIS_URL: '',
    PUBLIC_BASE_URL: '',
    SECRET_KEY: '',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY: HIGH,
    RATE_LIMIT_PER_IP: HIGH,
    DATA_DIR: dataDir,
  };
  const startServer = (name: string, nodeArgs: string[] = []) =>
    startProcess({
      name,
      command: process.execPath,
      args: [...nodeArgs, ...vssArgs(entry)],
      env: serverEnv,
      timeoutMs: 60_000,
    });
  let reader: ReaderProcess | null = null;

  try {
    // ------------------------------------------------------------ the fixture
    let saved: Saved;
    const savedFile = join(dataDir, 'bench-fixture.json');
    if (reuse) {
      saved = JSON.parse(readFileSync(savedFile, 'utf8')) as Saved;
      console.log(
        `playback: reusing the ${saved.spec.minutes}-minute fixture in ${dataDir} (generated in ${fmt(saved.genS, 1)} s)`,
      );
    } else {
      const spec = specFor(plan.minutes);
      const perS =
        spec.participants * (spec.camFps * spec.camBytes + spec.micPerS * (spec.micDataBytes + 32));
      const estimate = perS * spec.minutes * 60;
      const fs = statfsSync(dataDir);
      const free = fs.bavail * fs.bsize;
      if (free < estimate * 1.3)
        throw new Error(
          `${dataDir}: ${fmt(free / 1e9, 1)} GB free, the fixture needs about ${fmt(estimate / 1e9, 1)} GB`,
        );
      console.log(
        `playback: DATA_DIR ${dataDir} (${fmt(free / 1e9, 1)} GB free); fixture: ${spec.minutes} min, ` +
          `${spec.participants} participants, about ${fmt(estimate / 1e9, 2)} GB`,
      );
      const first = await startServer('vss (bootstrap)');
      const boot = await bootstrap(first.url);
      await first.stop();

      const g0 = performance.now();
      const store = await openSqliteStreamStore(dataDir);
      let fixture: Fixture;
      try {
        fixture = await writeFixture(store, boot.sessionId, spec, (done, total) => {
          if (done % 600 === 0 || done === total)
            console.log(
              `  fixture: ${done / 60}/${total / 60} min written (${fmt((performance.now() - g0) / 1000, 1)} s)`,
            );
        });
      } finally {
        await store.close();
      }
      const genS = (performance.now() - g0) / 1000;
      saved = { fixture, spec, secret: boot.secret, genS };
      writeFileSync(savedFile, JSON.stringify(saved));
    }
    const { fixture, spec } = saved;
    const fileSize = fileBytes(streamsFile) + fileBytes(`${streamsFile}-wal`);

    // ------------------------------------------------------------ the server, the readers
    const server: ServerProcess = await startServer(
      'vss',
      profDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profDir)}`] : [],
    );
    const auth = { authorization: `Bearer ${saved.secret}` };
    const meta = await expectCall<{
      data: { total_events_estimated: number; min_ts: number; max_ts: number };
    }>(200, `${server.url}/v1/sessions/${fixture.sessionId}/playback/timeline`, { headers: auth });
    if (meta.json.data.total_events_estimated !== fixture.events || meta.json.data.min_ts !== fixture.minTs)
      throw new Error(`the server sees another recording: ${meta.text}`);
    const fromTs = meta.json.data.min_ts;
    const restRss = readProc(server.pid)?.rssBytes ?? NaN;
    const expect = { events: fixture.events, maxSeq: fixture.maxSeq, payloadBytes: fixture.payloadBytes };
    const common = { sessionId: fixture.sessionId, fromTs, windowSize: WINDOW_MS, expect };
    const task = (mode: Mode, extra: { readers?: number; maxAnswers?: number } = {}): ReaderTask => {
      const limit = extra.maxAnswers !== undefined ? { maxAnswers: extra.maxAnswers } : {};
      if (mode === 'http')
        return { ...common, ...limit, mode, base: server.url, headers: auth, readers: extra.readers ?? 1 };
      if (mode === 'store') return { ...common, ...limit, mode, dataDir };
      return { ...common, ...limit, mode, dataDir, maxTs: meta.json.data.max_ts };
    };
    reader = new ReaderProcess();
    const rd = reader;

    const pass = async (t: ReaderTask): Promise<Pass> => {
      server.assertAlive();
      const peakReset = t.mode === 'http' && resetPeak(server.pid);
      const mark = server.sampler.mark();
      const result = await rd.run(t);
      const serverCpuS = server.sampler.cpuSince(mark);
      server.assertAlive();
      const now = readProc(server.pid);
      const serverPeakRss = peakReset ? (now?.peakRssBytes ?? NaN) : server.sampler.peakRssBytes;
      return { result, serverCpuS, serverPeakRss };
    };

    const loadStart = loadavg();
    const c0 = performance.now();
    const cached = readThrough(streamsFile);
    console.log(
      `playback: ${fixture.events.toLocaleString('en-US')} events, ${fmt(fixture.payloadBytes / 1e9, 2)} GB of payload, ` +
        `streams.sqlite ${fmt(fileSize / 1e9, 2)} GB (read through once in ${fmt((performance.now() - c0) / 1000, 1)} s: ` +
        `${fmt(cached / 1e9, 2)} GB); server pid ${server.pid}; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    for (const mode of plan.modes)
      await rd.run(task(mode, { maxAnswers: mode === 'sqlite' ? 4 : plan.warmupAnswers }));

    // ------------------------------------------------------------ interleaved rounds
    const orders: Mode[][] = [
      ['store', 'http', 'sqlite'],
      ['sqlite', 'http', 'store'],
      ['http', 'store', 'sqlite'],
    ];
    const passes: Record<Mode, Pass[]> = { http: [], store: [], sqlite: [] };
    const eps = (p: Pass) => p.result.events / p.result.wallS;
    for (let r = 1; r <= plan.rounds; r++) {
      for (const mode of orders[(r - 1) % orders.length]!.filter((m) => plan.modes.includes(m))) {
        const p = await pass(task(mode));
        passes[mode].push(p);
        const x = p.result;
        console.log(
          `  round ${r}/${plan.rounds} ${mode.padEnd(6)}: ${fmt(x.wallS, 2).padStart(6)} s  ` +
            `${fmt(eps(p)).padStart(8)} events/s  ${fmt(x.bytes / 1e6 / x.wallS).padStart(6)} MB/s  ` +
            `${x.answers} answers  p50 ${fmt(quantile(sorted(x.latencyMs), 0.5))} ms  ` +
            `p99 ${fmt(quantile(sorted(x.latencyMs), 0.99))} ms` +
            (mode === 'http'
              ? `  server ${fmt(p.serverCpuS / x.wallS, 2)} cores, peak RSS ${fmt(mib(p.serverPeakRss), 1)} MiB`
              : '') +
            `  reader ${fmt(x.cpuS / x.wallS, 2)} cores`,
        );
      }
      const h = passes.http[r - 1]!;
      const vs = (['sqlite', 'store'] as Mode[])
        .filter((m) => passes[m][r - 1])
        .map((m) => `http ÷ ${m} ${fmt(eps(h) / eps(passes[m][r - 1]!), 3)}`);
      if (vs.length) console.log(`  round ${r}: ${vs.join(', ')}`);
    }

    // ------------------------------------------------------------ concurrent HTTP readers
    const concurrent: Pass[] = [];
    for (const n of plan.readers) {
      const p = await pass(task('http', { readers: n }));
      concurrent.push(p);
      const x = p.result;
      console.log(
        `  ${n} concurrent http readers: ${fmt(x.wallS, 2)} s  ${fmt(eps(p))} events/s in all  ` +
          `p50 ${fmt(quantile(sorted(x.latencyMs), 0.5))} ms  p99 ${fmt(quantile(sorted(x.latencyMs), 0.99))} ms  ` +
          `server ${fmt(p.serverCpuS / x.wallS, 2)} cores, peak RSS ${fmt(mib(p.serverPeakRss), 1)} MiB`,
      );
    }
    const peakResettable = resetPeak(server.pid);
    const loadEnd = loadavg();

    await server.stop(30_000);
    reader.stop();

    // ------------------------------------------------------------ summary
    type Summary = ReturnType<typeof summary>;
    const summary = (ps: Pass[]) => {
      const lat = sorted(ps.flatMap((p) => p.result.latencyMs));
      const ttfb = sorted(ps.flatMap((p) => p.result.ttfbMs));
      const sizes = ps.flatMap((p) => p.result.answerBytes);
      const wall = ps.reduce((a, p) => a + p.result.wallS, 0);
      return {
        eventsPerS: median(ps.map(eps)),
        mbPerS: median(ps.map((p) => p.result.bytes / 1e6 / p.result.wallS)),
        minEps: Math.min(...ps.map(eps)),
        maxEps: Math.max(...ps.map(eps)),
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
      sqlite: passes.sqlite.length ? summary(passes.sqlite) : null,
      store: passes.store.length ? summary(passes.store) : null,
    };
    const conc = concurrent.map((p, i) => ({ readers: plan.readers[i]!, ...summary([p]) }));
    const ratio = s.sqlite ? http.eventsPerS / s.sqlite.eventsPerS : NaN;
    const ratioStore = s.store ? http.eventsPerS / s.store.eventsPerS : NaN;

    printTable(
      ['fixture', 'minutes', 'events', 'payload GB', 'file GB', 'generation s', 'events/s', 'MB/s'],
      [
        [
          `${spec.participants} × (cam ${spec.camFps} fps × ${fmt(spec.camBytes / 1000)} kB + mic ${spec.micPerS}/s)`,
          String(spec.minutes),
          fixture.events,
          fmt(fixture.payloadBytes / 1e9, 2),
          fmt(fileSize / 1e9, 2),
          fmt(saved.genS, 1),
          Math.round(fixture.events / saved.genS),
          Math.round(fixture.payloadBytes / 1e6 / saved.genS),
        ],
      ],
      'Fixture (written with the stream store’s appendBatch, 2,000 events a batch, server stopped)',
    );
    const label: Record<Mode, string> = {
      http: 'HTTP playback, 1 reader',
      sqlite: 'direct: better-sqlite3, 1 query/window',
      store: 'direct: stream store, same paging',
    };
    printTable(
      [
        'reader',
        'events/s',
        'range',
        'MB/s',
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
            Math.round(x.eventsPerS),
            `${fmt(x.minEps)}–${fmt(x.maxEps)}`,
            fmt(x.mbPerS, 1),
            String(x.answers),
            fmt(x.p50, 1),
            fmt(x.p99, 1),
            fmt(x.max, 1),
            m === 'http' ? fmt(x.serverCores, 2) : '',
            fmt(x.readerCores, 2),
            m === 'http' ? '' : fmt(http.eventsPerS / x.eventsPerS, 3),
          ],
        ];
      }),
      `Whole recording, ${WINDOW_MS / 1000} s windows, median of ${plan.rounds} interleaved rounds ` +
        `(latency: per answer, pooled; sqlite: per uncapped window)`,
    );
    printTable(
      [
        'HTTP readers',
        'events/s (all)',
        'MB/s (all)',
        'p50 ms',
        'p99 ms',
        'max ms',
        'server cores',
        'server peak RSS MiB',
      ],
      [{ readers: 1, ...http }, ...conc].map((c) => [
        String(c.readers),
        Math.round(c.eventsPerS),
        fmt(c.mbPerS, 1),
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
    const met = {
      ratio: ratio >= TARGET_RATIO,
      p99: http.p99 < TARGET_P99_MS,
      rss: peakAll < TARGET_RSS_BYTES,
    };
    const yn = (b: boolean) => (b ? 'met' : 'NOT MET');
    console.log(
      `\nload average (1, 5, 15 min): ${loadStart.map((l) => l.toFixed(2)).join(' ')} at the start of reading, ` +
        `${loadEnd.map((l) => l.toFixed(2)).join(' ')} at the end (2 cores: above ~2 means other work shared the machine)`,
    );
    console.log(
      `targets: HTTP ≥ ${TARGET_RATIO} × the direct read (better-sqlite3): ${yn(met.ratio)} (${fmt(ratio, 3)}; ` +
        `${fmt(ratioStore, 3)} × the stream store read directly)\n` +
        `         answer p99 < ${TARGET_P99_MS} ms: ${yn(met.p99)} (${fmt(http.p99, 1)} ms, 1 reader)\n` +
        `         server peak RSS < 300 MB while reading: ${yn(met.rss)} (${fmt(peakAll / 1e6, 1)} MB = ${fmt(mib(peakAll), 1)} MiB, ` +
        `${conc.length ? `up to ${Math.max(...plan.readers)} readers` : '1 reader'}; ${fmt(http.peakRss / 1e6, 1)} MB with 1)`,
    );
    if (![http, s.sqlite, s.store, ...conc].every((x) => x === null || x.complete))
      throw new Error('a reader was incomplete');

    const fig = (x: Summary | null) =>
      x && {
        events_per_s: Math.round(x.eventsPerS),
        mb_per_s: round(x.mbPerS, 1),
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
      file_bytes: fileSize,
      window_ms: WINDOW_MS,
      rounds: plan.rounds,
      fixture: {
        generation_s: round(saved.genS, 1),
        events_per_s: Math.round(fixture.events / saved.genS),
        mb_per_s: round(fixture.payloadBytes / 1e6 / saved.genS, 1),
      },
      ratio: orNull(ratio, 3),
      ratio_store: orNull(ratioStore, 3),
      http: {
        ...fig(http),
        ttfb_p50_ms: round(http.ttfbP50),
        ttfb_p99_ms: round(http.ttfbP99),
        answer_mb: round(http.answerMb, 2),
        server_cores: round(http.serverCores),
        server_peak_rss_mib: round(mib(http.peakRss), 1),
        server_rest_rss_mib: round(mib(restRss), 1),
      },
      sqlite: fig(s.sqlite),
      store: fig(s.store),
      concurrent: conc.map((c) => ({
        readers: c.readers,
        events_per_s: Math.round(c.eventsPerS),
        mb_per_s: round(c.mbPerS, 1),
        p50_ms: round(c.p50),
        p99_ms: round(c.p99),
        server_cores: round(c.serverCores),
        server_peak_rss_mib: round(mib(c.peakRss), 1),
      })),
      targets: { ratio_ge_0_5: met.ratio, p99_lt_150_ms: met.p99, peak_rss_lt_300_mb: met.rss },
      targets_met: met.ratio && met.p99 && met.rss,
      load_average: { start: loadStart.map((l) => round(l)), end: loadEnd.map((l) => round(l)) },
      duration_s: Math.round((Date.now() - started) / 1000),
    };
    console.log(JSON.stringify(figures));
  } finally {
    reader?.stop();
    await stopAll();
    if (!reuse && !keep) rmSync(dataDir, { recursive: true, force: true });
    else console.error(`playback: DATA_DIR kept: ${dataDir} (reuse with --data-dir=${dataDir})`);
  }
}

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}
