/**
 * The network scenarios, shared by the CI tests (packages/cli/test/network) and the benchmark
 * (bench/network.ts): a running server, one session, `vss bot` with its defaults publishing, an
 * unconstrained receiver, and a receiver or the bot behind a slow link. The runs only collect
 * logs; `figures.ts` turns them into the figures both judge.
 *
 * Times are anchored on the first camera frame the unconstrained receiver gets (T0): the bot
 * joins, probes and starts ffmpeg first, which takes a variable second or two.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLink, type Link } from './links.js';
import { decodeEvc1 } from '@vss/protocol';
import { parseLog, trackOf, type LogLine } from './stats.js';

const RECEIVER = fileURLToPath(new URL('./receiver.ts', import.meta.url));
const BOT = fileURLToPath(new URL('./bot.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../..', import.meta.url));

/** A server this machine's namespaces can reach: listening on 0.0.0.0 (or on each link's host address). */
export interface Target {
  port: number;
  /** an API key of a project */
  key: string;
}

const local = (t: Target) => `http://127.0.0.1:${t.port}`;

async function api<T>(t: Target, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(local(t) + path, {
    method,
    headers: { authorization: `Bearer ${t.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

export const newSession = async (t: Target, name: string) =>
  (await api<{ id: string }>(t, 'POST', '/v1/sessions', { name })).id;

/** A child process writing JSON lines, its lines parsed as they come. */
interface Lines<L> {
  child: ChildProcess;
  lines: L[];
  stderr: () => string;
  exited: Promise<number | null>;
  /** resolves once a line matches; rejects if the process exits first or after `ms` */
  waitFor(pred: (l: L) => boolean, ms: number, what: string): Promise<L>;
}

function lines<L>(child: ChildProcess, name: string): Lines<L> {
  const out: L[] = [];
  const waiters = new Set<() => void>();
  let rest = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop()!;
    for (const l of parseLog(parts.join('\n'))) out.push(l as L);
    for (const w of waiters) w();
  });
  child.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise<number | null>((ok) =>
    child.once('exit', (code) => {
      ok(code);
      for (const w of waiters) w();
    }),
  );
  return {
    child,
    lines: out,
    stderr: () => err,
    exited,
    waitFor: (pred, ms, what) =>
      new Promise((ok, fail) => {
        const check = () => {
          const hit = out.find(pred);
          if (hit) done(() => ok(hit));
          else if (child.exitCode !== null || child.signalCode !== null)
            done(() => fail(new Error(`${name} exited before ${what}: ${err.trim()}`)));
        };
        const timer = setTimeout(
          () => done(() => fail(new Error(`${name}: no ${what} within ${ms} ms: ${err.trim()}`))),
          ms,
        );
        const done = (f: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      }),
  };
}

function node(link: Link | null, script: string, env: Record<string, string>): ChildProcess {
  const args = ['--import', 'tsx', script];
  const opts = { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] as const };
  return link
    ? link.spawn(process.execPath, args, { ...opts, stdio: [...opts.stdio] })
    : spawn(process.execPath, args, { ...opts, stdio: [...opts.stdio] });
}

/** The address of the server as seen from `link`'s namespace, or from the root namespace. */
const hostOf = (link: Link | null) => (link ? link.hostAddress : '127.0.0.1');

export type Receiver = Lines<LogLine>;

/** A receiver (receiver.ts) joined to the session: resolves after its welcome. */
export async function startReceiver(
  t: Target,
  sessionId: string,
  userId: string,
  link: Link | null,
): Promise<Receiver> {
  const { access_token } = await api<{ access_token: string }>(
    t,
    'POST',
    `/v1/sessions/${sessionId}/connection`,
    {
      user_id: userId,
    },
  );
  const r = lines<LogLine>(
    node(link, RECEIVER, {
      VSS_URL: `ws://${hostOf(link)}:${t.port}`,
      VSS_SESSION: sessionId,
      VSS_USER: userId,
      VSS_TOKEN: access_token,
    }),
    `receiver ${userId}`,
  );
  await r.waitFor((l) => l.k === 'welcome' || l.k === 'close', 20_000, 'welcome');
  return r;
}

export interface BotLine {
  t: number;
  k: 'event' | 'report';
  event?: { type: string; [k: string]: unknown };
  report?: { bots: Array<Record<string, any>>; aborted: boolean; elapsedS: number };
}
export type BotProc = Lines<BotLine>;

/** `vss bot` with its defaults, one bot (`bot-1`), for `durationS` after it joined. */
export function startBot(t: Target, sessionId: string, durationS: number, link: Link | null): BotProc {
  return lines<BotLine>(
    node(link, BOT, {
      VSS_BASE: `http://${hostOf(link)}:${t.port}`,
      VSS_KEY: t.key,
      VSS_SESSION: sessionId,
      VSS_DURATION_S: String(durationS),
    }),
    'bot',
  );
}

/** Ends a receiver (1000) and resolves with its log. */
export async function stopReceiver(r: Receiver): Promise<LogLine[]> {
  if (r.child.exitCode === null) r.child.kill('SIGTERM');
  const timer = setTimeout(() => r.child.kill('SIGKILL'), 5000);
  await r.exited;
  clearTimeout(timer);
  return r.lines;
}

/** A recorded event; `us`: the chunk timestamp of an EVC1 video frame. */
export interface Recorded {
  stream: string;
  ts: number;
  us?: number;
}

/** The recorded events of the session, through the playback API. */
export async function recorded(t: Target, sessionId: string): Promise<Recorded[]> {
  const out: Recorded[] = [];
  let baseSeq: number | null = null;
  do {
    const q = `from_ts=0&window_size=300000${baseSeq === null ? '' : `&base_seq=${baseSeq}`}`;
    const data: {
      events: Array<{ stream_id: string; timestamp_ms: number; body_base64: string }>;
      next_base_seq: number | null;
    } = await api(t, 'GET', `/v1/sessions/${sessionId}/playback?${q}`);
    for (const e of data.events) {
      const r: Recorded = { stream: e.stream_id, ts: e.timestamp_ms };
      if (trackOf(e.stream_id) === 'video')
        try {
          r.us = decodeEvc1(Buffer.from(e.body_base64, 'base64')).timestampUs;
        } catch {
          // not EVC1 (JPEG): no chunk timestamp
        }
      out.push(r);
    }
    baseSeq = data.next_base_seq;
  } while (baseSeq !== null);
  return out;
}

const isCam = (l: LogLine) => l.k === 'media' && l.stream.endsWith('/cam');

/** Resolves once the receiver got a camera frame that arrived at or after `at` (or it closed). */
const reach = (r: Receiver, at: number, what: string) =>
  r.waitFor((l) => (isCam(l) && l.t >= at) || l.k === 'close', at - Date.now() + 15_000, what);

export interface Timings {
  /** downlink: seconds at the slow rate from T0, of which the first `settleS` are not judged */
  slowS: number;
  settleS: number;
  /** downlink: seconds after the link was raised */
  recoverS: number;
  /** uplink: seconds unshaped (the baseline) from T0, then shaped */
  leadS: number;
  uplinkS: number;
  /** joining behind the slow uplink: seconds judged from the bot's join */
  joinS: number;
}
export const FULL_TIMINGS: Timings = {
  slowS: 25,
  settleS: 5,
  recoverS: 15,
  leadS: 5,
  uplinkS: 20,
  joinS: 25,
};
export const QUICK_TIMINGS: Timings = {
  slowS: 12,
  settleS: 4,
  recoverS: 10,
  leadS: 4,
  uplinkS: 12,
  joinS: 12,
};

export interface Rates {
  slowDownKbit: number;
  fastDownKbit: number;
  slowUpKbit: number;
}
export const RATES: Rates = { slowDownKbit: 250, fastDownKbit: 5000, slowUpKbit: 300 };

export interface DownlinkRun {
  sessionId: string;
  t0: number;
  raisedAt: number;
  end: number;
  fast: LogLine[];
  slow: LogLine[];
  bot: BotLine[];
  record: Recorded[];
}

/** Slow downlink, then recovery: receiver `slow` behind the link, `fast` unconstrained, the bot in the root namespace. */
export async function runDownlink(
  t: Target,
  tm: Timings = FULL_TIMINGS,
  rates: Rates = RATES,
): Promise<DownlinkRun> {
  const sessionId = await newSession(t, 'slow downlink');
  const link = createLink({ downKbit: rates.slowDownKbit });
  const procs: Array<{ child: ChildProcess }> = [];
  try {
    const fast = await startReceiver(t, sessionId, 'fast', null);
    procs.push(fast);
    const slow = await startReceiver(t, sessionId, 'slow', link);
    procs.push(slow);
    const bot = startBot(t, sessionId, tm.slowS + tm.recoverS + 4, null);
    procs.push(bot);
    const t0 = (await fast.waitFor(isCam, 30_000, 'a camera frame')).t;
    await reach(fast, t0 + tm.slowS * 1000, `${tm.slowS} s of video`);
    link.setRate(rates.fastDownKbit, 0);
    const raisedAt = Date.now();
    const end = raisedAt + tm.recoverS * 1000;
    await reach(fast, end, `${tm.recoverS} s of video after the raise`);
    await bot.waitFor((l) => l.k === 'report', 30_000, 'the report');
    return {
      sessionId,
      t0,
      raisedAt,
      end,
      fast: await stopReceiver(fast),
      slow: await stopReceiver(slow),
      bot: bot.lines,
      record: await recorded(t, sessionId),
    };
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    link.destroy();
  }
}

export interface UplinkRun {
  sessionId: string;
  t0: number;
  shapedAt: number;
  end: number;
  receiver: LogLine[];
  bot: BotLine[];
  record: Recorded[];
}

/** Slow uplink: the bot inside a namespace, unshaped for `leadS` (the baseline), then behind the slow uplink. */
export async function runUplink(
  t: Target,
  tm: Timings = FULL_TIMINGS,
  rates: Rates = RATES,
): Promise<UplinkRun> {
  const sessionId = await newSession(t, 'slow uplink');
  const link = createLink({});
  const procs: Array<{ child: ChildProcess }> = [];
  try {
    const receiver = await startReceiver(t, sessionId, 'viewer', null);
    procs.push(receiver);
    const bot = startBot(t, sessionId, tm.leadS + tm.uplinkS + 4, link);
    procs.push(bot);
    const t0 = (await receiver.waitFor(isCam, 30_000, 'a camera frame')).t;
    await reach(receiver, t0 + tm.leadS * 1000, `${tm.leadS} s of video`);
    link.setRate(0, rates.slowUpKbit);
    const shapedAt = Date.now();
    const end = shapedAt + tm.uplinkS * 1000;
    // The receiver may get nothing at all for a while: wait for the bot to leave instead.
    await bot.waitFor((l) => l.k === 'report', (tm.uplinkS + 40) * 1000, 'the report');
    return {
      sessionId,
      t0,
      shapedAt,
      end,
      receiver: await stopReceiver(receiver),
      bot: bot.lines,
      record: await recorded(t, sessionId),
    };
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    link.destroy();
  }
}

export interface JoinRun {
  sessionId: string;
  /** the bot's join (its `joined` event) */
  t0: number;
  end: number;
  receiver: LogLine[];
  bot: BotLine[];
  record: Recorded[];
}

/**
 * A publisher that joins behind the slow uplink: the bot inside a namespace shaped from before it
 * starts, one unconstrained receiver, judged from the bot's join for `joinS`.
 */
export async function runJoinBehind(
  t: Target,
  tm: Timings = FULL_TIMINGS,
  rates: Rates = RATES,
): Promise<JoinRun> {
  const sessionId = await newSession(t, 'joins behind a slow uplink');
  const link = createLink({ upKbit: rates.slowUpKbit });
  const procs: Array<{ child: ChildProcess }> = [];
  try {
    const receiver = await startReceiver(t, sessionId, 'viewer', null);
    procs.push(receiver);
    const bot = startBot(t, sessionId, tm.joinS + 2, link);
    procs.push(bot);
    const joined = await bot.waitFor(
      (l) => l.k === 'event' && (l.event as { type?: string }).type === 'joined',
      30_000,
      'the bot to join',
    );
    const t0 = joined.t;
    const end = t0 + tm.joinS * 1000;
    await bot.waitFor((l) => l.k === 'report', (tm.joinS + 40) * 1000, 'the report');
    return {
      sessionId,
      t0,
      end,
      receiver: await stopReceiver(receiver),
      bot: bot.lines,
      record: await recorded(t, sessionId),
    };
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    link.destroy();
  }
}
