/**
 * playback: reading a whole recording window by window over HTTP, against reading the same payload
 * bytes from the page cache and base64-encoding them, which is all a playback answer has to do.
 *
 *   npm run bench -- playback [--quick] [--pair] [--minutes=N] [--rounds=N] [--readers=2,4]
 *                             [--only=http,baseline,store] [--keep] [--data-dir=DIR]
 *                             [--cpu-prof=DIR] [--entry=FILE]
 *
 * Fixture: a recording of 4 participants (cam: 15 fps of 20,000-byte JPEG-like frames; mic: 50
 * EVC1/opus packets/s), 60 minutes (--quick: 3), about 936,000 events and 4.4 GB (--pair: two
 * cameras, no chat or sound, 1 minute or --minutes: 36 MB). It is not
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
 * JSON.parse (it walks the answer's bytes: bench/lib/playback-answer.ts), so that the reader keeps
 * up with the server; the store reader and the baseline check each body's markers and stamped seq.
 * MB/s counts payload bytes (decoded bodies), not JSON or base64 text. `ratio` = HTTP MB/s ÷
 * baseline MB/s (medians over the rounds); `ratio_store` = HTTP ÷ the stream store read directly.
 * Latency is per answer (one window of 30 s, cut at 5000 events or 4 MiB of payload; the baseline's
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
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchOptions } from './run.ts';
import { intFlag, strFlag } from './lib/args.ts';
import { expectCall } from './lib/http.ts';
import { benchTenant } from './lib/tenant.ts';
import { quantile } from './lib/load.ts';
import type { BaselineResult, BaselineTask } from './lib/playback-baseline.ts';
import {
  FIXED_EPOCH_MS,
  openSqliteStreamStore,
  writeFixture,
  type Fixture,
  type FixtureSpec,
} from './lib/playback-fixture.ts';
import type { ReaderResult, ReaderTask } from './lib/playback-reader.ts';
import { report } from './lib/playback-report.ts';
import {
  ANSWER_CAPS,
  ChildReader,
  eps,
  fileBytes,
  mbps,
  MODES,
  overHttp,
  readThrough,
  segmentFiles,
  sorted,
  WINDOW_MS,
  type Mode,
  type Pass,
  type Result,
} from './lib/playback-run.ts';
import { saveTruth, TRUTH_FILE, TruthRecorder } from './lib/playback-truth.ts';
import { readProc, resetPeak } from './lib/proc.ts';
import { ROOT, startProcess, startTsServer, stopAll, vssArgs, type ServerProcess } from './lib/server.ts';
import { fmt, mib } from './lib/table.ts';

interface Plan {
  minutes: number;
  rounds: number;
  readers: number[];
  modes: Mode[];
  warmupAnswers: number;
}

const FULL: Plan = { minutes: 60, rounds: 3, readers: [2, 4], modes: MODES, warmupAnswers: 40 };
const QUICK: Plan = { minutes: 3, rounds: 2, readers: [2], modes: MODES, warmupAnswers: 10 };
const HIGH = '100000000';

const specFor = (minutes: number, participants = 4, mic = true): FixtureSpec => ({
  minutes,
  participants,
  camFps: 15,
  camBytes: 20_000,
  micPerS: mic ? 50 : 0,
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

/** A tenant's session and API key, through the real API. */
async function bootstrap(base: string): Promise<{ sessionId: string; secret: string }> {
  const { sessionId, secret } = await benchTenant(base, 'playback');
  return { sessionId, secret };
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
      const pair = args.includes('--pair');
      const spec = specFor(pair ? (intFlag(args, 'minutes') ?? 1) : plan.minutes, pair ? 2 : 4, !pair);
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
    const common = { sessionId: fixture.sessionId, fromTs, windowSize: WINDOW_MS, expect, caps: ANSWER_CAPS };
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

    report({
      quick,
      started,
      rounds: plan.rounds,
      readers: plan.readers,
      spec,
      fixture,
      genS: saved.genS,
      segmentFiles: segments.length,
      indexBytes,
      restRss,
      passes,
      concurrent,
      peakResettable,
      loadStart,
      loadEnd,
      profDir,
    });
  } finally {
    reader?.stop();
    baseline?.stop();
    await stopAll();
    if (!reuse && !keep) rmSync(dataDir, { recursive: true, force: true });
    else console.error(`playback: DATA_DIR kept: ${dataDir} (reuse with --data-dir=${dataDir})`);
  }
}
