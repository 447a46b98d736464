/**
 * playback: reading a whole recording window by window over HTTP, against reading the same payload
 * bytes from the page cache and base64-encoding them, which is all a playback answer has to do.
 *
 *   npm run bench -- playback [--quick] [--minutes=N] [--rounds=N] [--readers=2,4]
 *                             [--only=http,baseline,store] [--keep] [--data-dir=DIR]
 *                             [--cpu-prof=DIR] [--entry=FILE]
 *
 * Fixture: a recording of 4 participants (cam: 15 fps of 20,000-byte JPEG-like frames; mic: 50
 * EVC1/opus packets/s), 60 minutes (--quick: 3), about 936,000 events and 4.4 GB. It is not
 * published live (that would take the hour): a first run of the compiled server creates an
 * account, an API key and a session through the HTTP API and stops; then the events are written
 * with the server's own embedded stream store (`appendBatch`, 2,000 events a batch, seq increasing
 * in time order, timestamps from 2026-11-21 10:00 UTC): bodies into segment files
 * (DATA_DIR/segments/<session>/<n>.seg), one index row per event into DATA_DIR/streams.sqlite;
 * then the server starts again on the same DATA_DIR. The fixture's generation is timed on its own,
 * and the segment files must hold exactly the payload bytes (each body written once, none in rows).
 * Before reading, the benchmark reads streams.sqlite and every segment file through once, so that
 * every reader starts from the page cache.
 *
 * Measured, in rounds that interleave the three readers (each in a child process, one task at a
 * time, so the reader has a core and the server the other):
 *   http      GET /v1/sessions/{id}/playback?from_ts=<min_ts>&window_size=30000, then with
 *             base_seq=next_base_seq until it is null, API key, one reader (bench/lib/playback-reader.ts)
 *   baseline  the session's segment files in seq order (the order of the recording): positional
 *             reads (`readSync` at an offset) of runs of adjacent bodies, at most 1 MiB a read,
 *             into one reused buffer, and `toString('base64')` of each body (one string per body,
 *             as an answer holds them); the index is read before the clock starts, and there is no
 *             checksum, SQL, JSON or HTTP (bench/lib/playback-baseline.ts)
 *   store     the same answers (same paging and caps) from the compiled server's stream store
 *             (firstFrom/slot: index rows, segment reads, checksums) on the same
 *             DATA_DIR in the reader process, bodies not encoded: no HTTP
 *   floor     the http reader against bench/playback-floor-server.ts, a bare node:http server that
 *             answers each request with the real server's answer to it, fetched once (an unmeasured
 *             pass first) and held in memory (about 1.35 bytes per payload byte: 0.3 GB for the
 *             quick fixture, 6 GB for the full one): moving the same bytes over HTTP to the same
 *             reader with no work of a server at all, the ceiling of `ratio` on this machine
 * then 2 and 4 concurrent HTTP readers (each reading the whole recording). Every reader checks
 * that it got every seq exactly once and the exact payload bytes. The HTTP reader checks each
 * event's stream, timestamp and exact body bytes against what the fixture wrote (recorded on its
 * way into the store, kept in DATA_DIR/bench-truth.json), in a thread of its own and without
 * JSON.parse (it walks the answer's bytes; see playback-reader.ts), so that the reader keeps up
 * with the server; the store reader and the baseline check each body's markers and stamped seq.
 * MB/s counts payload bytes (decoded bodies), not JSON or base64 text. `ratio` = HTTP MB/s ÷
 * baseline MB/s (medians over the rounds); `ratio_store` = HTTP ÷ the stream store read directly.
 * Latency is per answer (one window of 30 s, cut at 5000 events or 8 MiB of payload; the baseline's
 * bodies are grouped the same way). The server's peak RSS is VmHWM, reset (/proc/<pid>/clear_refs)
 * before each reading phase; it is reported, with no target.
 * Targets (issue 18): HTTP MB/s ≥ 0.3 × the baseline's; an answer of a 30 s window under 50 ms p99
 * (one reader).
 *
 * --only leaves readers out of the rounds (http always runs); --keep leaves the DATA_DIR (with
 * bench-fixture.json and bench-truth.json) for --data-dir=DIR to reuse; --cpu-prof=DIR runs the
 * server under `node --cpu-prof` (profile written to DIR at its exit, then summarised: heaviest functions);
 * --entry=FILE runs another compiled server main.js (a patched copy, for what-if measurements).
 */
import { fork, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
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
import { summarize, type FunctionCost } from './lib/cpu-profile.ts';
import { expectCall } from './lib/http.ts';
import { benchTenant } from './lib/tenant.ts';
import { median, quantile } from './lib/load.ts';
import type { BaselineResult, BaselineTask } from './lib/playback-baseline.ts';
import {
  FIXED_EPOCH_MS,
  openSqliteStreamStore,
  writeFixture,
  type Fixture,
  type FixtureSpec,
} from './lib/playback-fixture.ts';
import {
  saveTruth,
  TRUTH_FILE,
  TruthRecorder,
  type ReaderResult,
  type ReaderTask,
} from './lib/playback-reader.ts';
import { readProc, resetPeak } from './lib/proc.ts';
import { ROOT, startProcess, startTsServer, stopAll, vssArgs, type ServerProcess } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';

type Mode = 'http' | 'baseline' | 'store' | 'floor';
const MODES: Mode[] = ['http', 'baseline', 'store', 'floor'];
/** The readers that GET answers over HTTP from a server process, whose CPU and memory are measured. */
const overHttp = (m: Mode): boolean => m === 'http' || m === 'floor';
type Result = ReaderResult | BaselineResult;

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
const TARGET_RATIO = 0.3;
const TARGET_P99_MS = 50;

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

/**
 * A reader child process (bench/lib/playback-reader.ts or playback-baseline.ts): one task per
 * message, answered by its id.
 */
class ChildReader<T, R> {
  private readonly child: ChildProcess;
  private next = 1;
  private readonly waiting = new Map<number, { ok: (r: R) => void; fail: (e: Error) => void }>();

  constructor(
    private readonly name: string,
    file: string,
    envFlag: string,
  ) {
    const env: NodeJS.ProcessEnv = { ...process.env, [envFlag]: '1' };
    this.child = fork(join(ROOT, file), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (msg: { id: number; result?: R; error?: string }) => {
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.error !== undefined) w.fail(new Error(`${this.name}: ${msg.error}`));
      else w.ok(msg.result!);
    });
    this.child.on('exit', (code, signal) => {
      for (const w of this.waiting.values()) w.fail(new Error(`${this.name} exited (${code ?? signal})`));
      this.waiting.clear();
    });
  }

  run(task: T): Promise<R> {
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

/** A session's segment files (DATA_DIR/segments/<session>/<n>.seg), in segment order. */
function segmentFiles(dataDir: string, sessionId: string): string[] {
  const dir = join(dataDir, 'segments', sessionId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d+\.seg$/.test(f))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10))
    .map((f) => join(dir, f));
}

interface Pass {
  result: Result;
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
  let reader: ChildReader<ReaderTask, ReaderResult> | null = null;
  let baseline: ChildReader<BaselineTask, BaselineResult> | null = null;

  try {
    // ------------------------------------------------------------ the fixture
    let saved: Saved;
    const savedFile = join(dataDir, 'bench-fixture.json');
    const truthFile = join(dataDir, TRUTH_FILE);
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
      // What the HTTP reader checks every event against, taken from the batches on their way in.
      const truth = new TruthRecorder(spec.epochMs);
      let fixture: Fixture;
      try {
        fixture = await writeFixture(truth.wrap(store), boot.sessionId, spec, (done, total) => {
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
      saveTruth(truthFile, truth.truth());
      writeFileSync(savedFile, JSON.stringify(saved));
    }
    if (!existsSync(truthFile))
      throw new Error(
        `${dataDir} has no ${TRUTH_FILE} (what the fixture wrote, which the HTTP reader checks against): ` +
          'it was kept by an older version of this benchmark; let the benchmark write a new fixture',
      );
    const { fixture, spec } = saved;
    // The bodies live in the segment files, each once: their bytes are exactly the payload's.
    const segments = segmentFiles(dataDir, fixture.sessionId);
    const segmentBytes = segments.reduce((n, f) => n + fileBytes(f), 0);
    if (segmentBytes !== fixture.payloadBytes)
      throw new Error(
        `the session's ${segments.length} segment files hold ${segmentBytes} bytes, the recording's payload is ` +
          `${fixture.payloadBytes}: the store did not write each body once into segments`,
      );
    const indexBytes = fileBytes(streamsFile) + fileBytes(`${streamsFile}-wal`);

    // ------------------------------------------------------------ the server, the readers
    const server: ServerProcess = await startServer(
      'vss',
      profDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profDir)}`] : [],
    );
    const floor = await startTsServer('bench/playback-floor-server.ts', { UPSTREAM: server.url }, 'floor');
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
    reader = new ChildReader<ReaderTask, ReaderResult>(
      'reader',
      'bench/lib/playback-reader.ts',
      'VSS_PLAYBACK_READER',
    );
    baseline = new ChildReader<BaselineTask, BaselineResult>(
      'baseline',
      'bench/lib/playback-baseline.ts',
      'VSS_PLAYBACK_BASELINE',
    );
    const rd = reader;
    const bl = baseline;
    const run = (mode: Mode, extra: { readers?: number; maxAnswers?: number } = {}): Promise<Result> => {
      const limit = extra.maxAnswers !== undefined ? { maxAnswers: extra.maxAnswers } : {};
      if (overHttp(mode))
        return rd.run({
          ...common,
          ...limit,
          mode: 'http',
          base: mode === 'floor' ? floor.url : server.url,
          headers: auth,
          readers: extra.readers ?? 1,
          truthFile,
        });
      if (mode === 'store') return rd.run({ ...common, ...limit, mode, dataDir });
      return bl.run({ ...common, ...limit, dataDir });
    };

    const pass = async (mode: Mode, readers?: number): Promise<Pass> => {
      // The floor's figures are its own process's; the others' (http) the real server's.
      const proc = mode === 'floor' ? floor : server;
      proc.assertAlive();
      const peakReset = overHttp(mode) && resetPeak(proc.pid);
      const mark = proc.sampler.mark();
      const result = await run(mode, readers === undefined ? {} : { readers });
      const serverCpuS = proc.sampler.cpuSince(mark);
      proc.assertAlive();
      const now = readProc(proc.pid);
      const serverPeakRss = peakReset ? (now?.peakRssBytes ?? NaN) : proc.sampler.peakRssBytes;
      return { result, serverCpuS, serverPeakRss };
    };

    const loadStart = loadavg();
    const c0 = performance.now();
    let cached = readThrough(streamsFile);
    for (const f of segments) cached += readThrough(f);
    console.log(
      `playback: ${fixture.events.toLocaleString('en-US')} events, ${fmt(fixture.payloadBytes / 1e9, 2)} GB of payload ` +
        `in ${segments.length} segment files, streams.sqlite ${fmt(indexBytes / 1e6, 1)} MB (all read through once in ` +
        `${fmt((performance.now() - c0) / 1000, 1)} s: ${fmt(cached / 1e9, 2)} GB); server pid ${server.pid}; ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    // The floor asks the real server once for each answer: a whole pass before it is measured.
    for (const mode of plan.modes)
      await run(mode, mode === 'floor' ? {} : { maxAnswers: plan.warmupAnswers });

    // ------------------------------------------------------------ interleaved rounds
    const orders: Mode[][] = [
      ['store', 'http', 'baseline', 'floor'],
      ['baseline', 'floor', 'http', 'store'],
      ['floor', 'store', 'baseline', 'http'],
    ];
    const passes: Record<Mode, Pass[]> = { http: [], baseline: [], store: [], floor: [] };
    const mbps = (p: Pass) => p.result.bytes / 1e6 / p.result.wallS;
    const eps = (p: Pass) => p.result.events / p.result.wallS;
    for (let r = 1; r <= plan.rounds; r++) {
      for (const mode of orders[(r - 1) % orders.length]!.filter((m) => plan.modes.includes(m))) {
        const p = await pass(mode);
        passes[mode].push(p);
        const x = p.result;
        console.log(
          `  round ${r}/${plan.rounds} ${mode.padEnd(8)}: ${fmt(x.wallS, 2).padStart(6)} s  ` +
            `${fmt(mbps(p)).padStart(6)} MB/s  ${fmt(eps(p)).padStart(8)} events/s  ` +
            `${x.answers} answers  p50 ${fmt(quantile(sorted(x.latencyMs), 0.5))} ms  ` +
            `p99 ${fmt(quantile(sorted(x.latencyMs), 0.99))} ms` +
            (overHttp(mode)
              ? `  server ${fmt(p.serverCpuS / x.wallS, 2)} cores, peak RSS ${fmt(mib(p.serverPeakRss), 1)} MiB`
              : '') +
            `  reader ${fmt(x.cpuS / x.wallS, 2)} cores`,
        );
      }
      const h = passes.http[r - 1]!;
      const vs = (['baseline', 'store', 'floor'] as Mode[])
        .filter((m) => passes[m][r - 1])
        .map((m) => `http ÷ ${m} ${fmt(mbps(h) / mbps(passes[m][r - 1]!), 3)}`);
      if (vs.length) console.log(`  round ${r}: ${vs.join(', ')} (MB/s)`);
    }

    // ------------------------------------------------------------ concurrent HTTP readers
    const concurrent: Pass[] = [];
    for (const n of plan.readers) {
      const p = await pass('http', n);
      concurrent.push(p);
      const x = p.result;
      console.log(
        `  ${n} concurrent http readers: ${fmt(x.wallS, 2)} s  ${fmt(mbps(p))} MB/s in all  ` +
          `p50 ${fmt(quantile(sorted(x.latencyMs), 0.5))} ms  p99 ${fmt(quantile(sorted(x.latencyMs), 0.99))} ms  ` +
          `server ${fmt(p.serverCpuS / x.wallS, 2)} cores, peak RSS ${fmt(mib(p.serverPeakRss), 1)} MiB`,
      );
    }
    const peakResettable = resetPeak(server.pid);
    const loadEnd = loadavg();

    await server.stop(30_000);
    await floor.stop();
    reader.stop();
    baseline.stop();

    // ------------------------------------------------------------ summary
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
    const conc = concurrent.map((p, i) => ({ readers: plan.readers[i]!, ...summary([p]) }));
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
          String(segments.length),
          fmt(indexBytes / 1e6, 1),
          fmt(saved.genS, 1),
          Math.round(fixture.events / saved.genS),
          Math.round(fixture.payloadBytes / 1e6 / saved.genS),
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
      `Whole recording, ${WINDOW_MS / 1000} s windows, median of ${plan.rounds} interleaved rounds; MB/s of payload ` +
        `(decoded bodies); latency per answer (≤ 5000 events or 8 MiB of one window), pooled over the rounds. ` +
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
        `${conc.length ? `with up to ${Math.max(...plan.readers)} readers` : 'with 1 reader'}; ${fmt(http.peakRss / 1e6, 1)} MB with 1`,
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
      segment_files: segments.length,
      index_bytes: indexBytes,
      window_ms: WINDOW_MS,
      rounds: plan.rounds,
      fixture: {
        generation_s: round(saved.genS, 1),
        events_per_s: Math.round(fixture.events / saved.genS),
        mb_per_s: round(fixture.payloadBytes / 1e6 / saved.genS, 1),
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
  } finally {
    reader?.stop();
    baseline?.stop();
    await stopAll();
    if (!reuse && !keep) rmSync(dataDir, { recursive: true, force: true });
    else console.error(`playback: DATA_DIR kept: ${dataDir} (reuse with --data-dir=${dataDir})`);
  }
}

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}
