/**
 * The figures of a scenario run and the targets they are judged by ("Done when"), one definition
 * for the tests, which assert them, and the benchmark, which prints them.
 */
import type { BotLine, DownlinkRun, JoinRun, Recorded, Timings, UplinkRun } from './scenario.js';
import {
  addedDelay,
  baselineOf,
  fractionReceived,
  perSecond,
  recovery,
  undecodable,
  windowStats,
  type Baseline,
  type LogLine,
  type Recovery,
  type Undecodable,
  type WindowStats,
} from './stats.js';

/** One target: what was measured on the receiver judged, and beside it the unconstrained one. */
export interface Check {
  name: string;
  target: string;
  value: number;
  /** the same figure on the unconstrained receiver, when it has one */
  baseline?: number;
  pass: boolean;
}

const check = (name: string, target: string, value: number, pass: boolean, baseline?: number): Check => ({
  name,
  target,
  value,
  pass,
  ...(baseline === undefined ? {} : { baseline }),
});

export interface BotTotals {
  framesSent: number;
  framesAcked: number;
  videoFrames: number;
  audioFrames: number;
  errors: string[];
}

export function botTotals(lines: BotLine[]): BotTotals | null {
  const b = lines.find((l) => l.k === 'report')?.report?.bots[0];
  return b
    ? {
        framesSent: b.framesSent,
        framesAcked: b.framesAcked,
        videoFrames: b.videoFrames,
        audioFrames: b.audioFrames,
        errors: b.errors,
      }
    : null;
}

/** The recorded camera and microphone of the session's one publisher (a bot, or a page's member). */
function recordCounts(record: Recorded[]) {
  const cam = record.filter((e) => /^media\/[^/]+\/cam$/.test(e.stream));
  return {
    cam: cam.length,
    mic: record.filter((e) => /^media\/[^/]+\/mic$/.test(e.stream)).length,
    camTs: cam.map((e) => e.ts),
  };
}

/** Per video stream, the chunk timestamps of the recorded frames: the pictures published. */
function publishedUs(record: Recorded[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of record)
    if (e.us !== undefined) {
      const list = out.get(e.stream) ?? [];
      list.push(e.us);
      out.set(e.stream, list);
    }
  return out;
}

/** The checks every receiver behind a slow link must pass over its window. */
function slowChecks(w: WindowStats, base?: WindowStats): Check[] {
  return [
    check('video delay p95 (ms)', '< 500', w.delay.video.p95, w.delay.video.p95 < 500, base?.delay.video.p95),
    check('audio delay p95 (ms)', '< 500', w.delay.audio.p95, w.delay.audio.p95 < 500, base?.delay.audio.p95),
    check('audio max gap (ms)', '<= 300', w.audioMaxGapMs, w.audioMaxGapMs <= 300, base?.audioMaxGapMs),
    check('video fps, lowest second', '>= 3', w.fpsMin, w.fpsMin >= 3, base?.fpsMin),
  ];
}

export interface DownlinkFigures {
  baseline: Baseline;
  window: { from: number; to: number };
  slow: WindowStats;
  fast: WindowStats;
  recovery: Recovery;
  bot: BotTotals | null;
  recorded: { cam: number; mic: number };
  /** video frames of the slow receiver it could not decode, up to the end of the run */
  undecodable: Undecodable[];
  /** fraction of the published (recorded) pictures of the window each receiver got */
  slowReceived: number;
  fastReceived: number;
  raisedAt: number;
  checks: Check[];
  /** per second of the whole run from T0, slow and unconstrained */
  seconds: Array<{ at: number; slow: WindowStats; fast: WindowStats }>;
}

export function downlinkFigures(run: DownlinkRun, tm: Timings): DownlinkFigures {
  const baseline = baselineOf(run.fast);
  const from = run.t0 + tm.settleS * 1000;
  const to = run.t0 + tm.slowS * 1000;
  const slow = windowStats(run.slow, baseline, from, to);
  const fast = windowStats(run.fast, baseline, from, to);
  const rec = recovery(run.slow, run.fast, baseline, run.raisedAt, run.end);
  const bot = botTotals(run.bot);
  const counts = recordCounts(run.record);
  const published = publishedUs(run.record);
  const fracFast = fractionReceived(run.fast, counts.camTs, from, to);
  const fracSlow = fractionReceived(run.slow, counts.camTs, from, to);
  const added = addedDelay(run.slow, run.fast, from, to);
  const closed = run.slow.find((l) => l.k === 'close' && l.t < run.end) as
    Extract<LogLine, { k: 'close' }> | undefined;
  const bad = undecodable(run.slow, published).filter((u) => u.t < run.end);
  const recoverS = rec.recoveredAt === null ? Infinity : (rec.recoveredAt - run.raisedAt) / 1000;
  const checks: Check[] = [
    ...slowChecks(slow, fast),
    check(
      'undecodable video frames',
      '0',
      bad.length,
      bad.length === 0,
      undecodable(run.fast, published).length,
    ),
    check('connection closed (code)', 'open', closed?.code ?? 0, !closed),
    check('connection closed (s after T0)', 'open', closed ? (closed.t - run.t0) / 1000 : NaN, !closed),
    check('frames received (fraction)', '-', fracSlow, true, fracFast),
    check('added vs unconstrained, video p95 (ms)', '-', added.video.p95, true),
    check('added vs unconstrained, audio p95 (ms)', '-', added.audio.p95, true),
    check('unconstrained: video delay p95 (ms)', '< 150', fast.delay.video.p95, fast.delay.video.p95 < 150),
    check('unconstrained: audio delay p95 (ms)', '< 150', fast.delay.audio.p95, fast.delay.audio.p95 < 150),
    check('unconstrained: frames received', '>= 0.95', fracFast, fracFast >= 0.95),
    check('recovery: seconds to 90% fps', '<= 10', recoverS, recoverS <= 10),
    check(
      'recovery: fps after (vs unconstrained)',
      '>= 0.9x',
      rec.after?.fpsMean ?? NaN,
      !!rec.after && rec.after.fpsMean >= 0.9 * rec.baselineAfter!.fpsMean,
      rec.baselineAfter?.fpsMean,
    ),
    check(
      'recovery: video delay p95 after (ms)',
      '< 300',
      rec.after?.delay.video.p95 ?? NaN,
      (rec.after?.delay.video.p95 ?? NaN) < 300,
      rec.baselineAfter?.delay.video.p95,
    ),
    check(
      'recovery: audio delay p95 after (ms)',
      '< 300',
      rec.after?.delay.audio.p95 ?? NaN,
      (rec.after?.delay.audio.p95 ?? NaN) < 300,
      rec.baselineAfter?.delay.audio.p95,
    ),
    check(
      'recorded cam + mic = acked',
      '= acked',
      counts.cam + counts.mic,
      !!bot && counts.cam + counts.mic === bot.framesAcked,
      bot?.framesAcked,
    ),
  ];
  const seconds: DownlinkFigures['seconds'] = [];
  const slowS = perSecond(run.slow, baseline, run.t0, run.end);
  const fastS = perSecond(run.fast, baseline, run.t0, run.end);
  slowS.forEach((s, i) => seconds.push({ at: i, slow: s, fast: fastS[i]! }));
  return {
    baseline,
    window: { from, to },
    slow,
    fast,
    recovery: rec,
    bot,
    recorded: counts,
    undecodable: bad,
    slowReceived: fracSlow,
    fastReceived: fracFast,
    raisedAt: run.raisedAt,
    checks,
    seconds,
  };
}

export interface UplinkFigures {
  baseline: Baseline;
  window: { from: number; to: number };
  receiver: WindowStats;
  bot: BotTotals | null;
  recorded: { cam: number; mic: number };
  undecodable: Undecodable[];
  checks: Check[];
  seconds: Array<{ at: number; receiver: WindowStats }>;
}

export function uplinkFigures(run: UplinkRun, tm: Timings): UplinkFigures {
  // The publisher is the one behind the link: the baseline is the receiver's own delay while the
  // link was still unshaped (from the second second on: the encoder's first frames come in a burst).
  const baseline = baselineOf(run.receiver, run.t0 + 1000, run.shapedAt);
  const from = run.shapedAt + tm.settleS * 1000;
  const to = run.end;
  const receiver = windowStats(run.receiver, baseline, from, to);
  const bot = botTotals(run.bot);
  const counts = recordCounts(run.record);
  const published = publishedUs(run.record);
  const bad = undecodable(run.receiver, published);
  const checks: Check[] = [
    ...slowChecks(receiver),
    check('undecodable video frames', '0', bad.length, bad.length === 0),
    check(
      'recorded cam + mic >= acked',
      '>= acked',
      counts.cam + counts.mic,
      !!bot && counts.cam + counts.mic >= bot.framesAcked,
      bot?.framesAcked,
    ),
  ];
  const seconds = perSecond(run.receiver, baseline, run.t0, run.end).map((s, i) => ({ at: i, receiver: s }));
  return {
    baseline,
    window: { from, to },
    receiver,
    bot,
    recorded: counts,
    undecodable: bad,
    checks,
    seconds,
  };
}

/** The checks as lines of text: figure, target, measured, unconstrained, pass. */
export function formatChecks(title: string, checks: Check[]): string {
  const n = (v: number | undefined) =>
    v === undefined ? '' : Number.isFinite(v) ? String(Math.round(v * 100) / 100) : String(v);
  return [
    title,
    ...checks.map(
      (c) =>
        `  ${c.pass ? 'pass' : 'FAIL'}  ${c.name}: ${n(c.value)} (target ${c.target}${c.baseline === undefined ? '' : `; unconstrained ${n(c.baseline)}`})`,
    ),
  ].join('\n');
}

export interface JoinFigures {
  window: { from: number; to: number };
  receiver: WindowStats;
  bot: BotTotals | null;
  recorded: { cam: number; mic: number };
  /** the recorded camera's longest gap from its first frame to the window's end, ms */
  recordedCamMaxGapMs: number;
  undecodable: Undecodable[];
  checks: Check[];
  seconds: Array<{ at: number; receiver: WindowStats }>;
}

/** Nothing is subtracted: the publisher's timestamps and the receiver's arrivals share one clock. */
const NO_BASELINE: Baseline = { video: 0, audio: 0 };

/**
 * A publisher joining behind the slow uplink, judged from its join (second 0): the delay is the
 * arrival less the publisher's own timestamp (one machine, one clock), the audio's silences count
 * from the join, the frame rate from the first picture (the first key frame is up to a second
 * away), and the recorded camera has no gap once it began.
 */
export function joinFigures(run: JoinRun): JoinFigures {
  const from = run.t0;
  const to = run.end;
  const receiver = windowStats(run.receiver, NO_BASELINE, from, to);
  const firstCam = run.receiver.find((l) => l.k === 'media' && l.stream.endsWith('/cam') && l.t >= from)?.t;
  const pictures = windowStats(run.receiver, NO_BASELINE, firstCam ?? from, to);
  const bot = botTotals(run.bot);
  const counts = recordCounts(run.record);
  const camTs = counts.camTs.filter((ts) => ts < to).sort((a, b) => a - b);
  let camGap = camTs.length ? to - camTs.at(-1)! : Infinity;
  for (let i = 1; i < camTs.length; i++) camGap = Math.max(camGap, camTs[i]! - camTs[i - 1]!);
  const bad = undecodable(run.receiver, publishedUs(run.record));
  const checks: Check[] = [
    ...slowChecks(receiver).filter((c) => !c.name.startsWith('video fps')),
    check('video fps, lowest second from the first picture', '>= 3', pictures.fpsMin, pictures.fpsMin >= 3),
    check('recorded camera, longest gap (ms)', '<= 1500', camGap, camGap <= 1500),
    check('undecodable video frames', '0', bad.length, bad.length === 0),
    // A bot counts what was acked: all of it must be in the recording (a page does not say).
    ...(bot
      ? [
          check(
            'recorded cam + mic >= acked',
            '>= acked',
            counts.cam + counts.mic,
            counts.cam + counts.mic >= bot.framesAcked,
            bot.framesAcked,
          ),
        ]
      : []),
  ];
  const seconds = perSecond(run.receiver, NO_BASELINE, from, to).map((s, i) => ({ at: i, receiver: s }));
  return {
    window: { from, to },
    receiver,
    bot,
    recorded: { cam: counts.cam, mic: counts.mic },
    recordedCamMaxGapMs: camGap,
    undecodable: bad,
    checks,
    seconds,
  };
}
