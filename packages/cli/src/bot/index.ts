/**
 * `vss bot`: test participants for demos and load tests. Each bot joins a live session, publishes
 * VP8 video (a test pattern, or a looped file) on its camera in up to three simulcast layers, a
 * tone in Opus on its microphone and a few chat messages, every recorded publish acked, adapts its
 * video to its uplink, and leaves cleanly after `durationS` or on abort.
 *
 * The order of a run:
 *  1. options are checked and ffmpeg is found;
 *  2. a one-frame probe proves that the input decodes and encodes, so that a bad file fails the run
 *     before any bot joins (a join would start the session);
 *  3. one Opus encoder starts per distinct pitch (the bots that share a pitch share it); the bots
 *     join, all at once, as a room filling up at a meeting's start would;
 *  4. the one shared encoder starts: its first frame, a key frame, reaches every bot at the same
 *     moment, so no bot waits a whole key-frame interval for its first picture;
 *  5. each bot leaves after `durationS` from its join; the encoders are always stopped at the end.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { findFfmpeg, probe, type VideoSpec } from './ffmpeg.js';
import { Bot } from './participant.js';
import { pitchOf, ToneEncoder } from './tone.js';
import type { BotEvent, BotOptions, BotReport } from './types.js';
import type { ForcedStep } from './uplink.js';
import { VideoEncoder } from './video.js';

export type { BotEvent, BotOptions, BotReport, BotStats } from './types.js';
export { findFfmpeg } from './ffmpeg.js';

/** How long the run waits for the audio encoders' first packets before the bots join anyway. */
const TONE_START_MS = 5000;

/** Resolves with `p`, or after `ms`; clears its timer either way. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** More bots than this belong on several machines; the cap catches a mistyped count. */
const MAX_BOTS = 1000;

/** The options with defaults applied, checked. */
interface Checked {
  url: string;
  count: number;
  durationS: number;
  prefix: string;
  spec: VideoSpec;
  chatEveryS: number;
  statsEveryS: number;
  joinTimeoutMs: number;
  forcedSteps?: ForcedStep[];
}

function fail(message: string): never {
  throw new Error(message);
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const isNonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The WebSocket base URL of the server: http → ws, https → wss, any path kept. */
export function liveUrlOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return fail(`baseUrl must be an http(s) URL, got "${baseUrl}"`);
  }
  const scheme = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' }[url.protocol];
  if (!scheme) fail(`baseUrl must be an http(s) URL, got "${baseUrl}"`);
  url.protocol = scheme;
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

function check(o: BotOptions): Checked {
  if (!isInt(o.count, 1, MAX_BOTS))
    fail(`count must be a whole number from 1 to ${MAX_BOTS}, got ${o.count}`);
  if (typeof o.durationS !== 'number' || !(o.durationS > 0) || !Number.isFinite(o.durationS))
    fail(`durationS must be a positive number of seconds, got ${o.durationS}`);
  const prefix = o.userPrefix ?? 'bot';
  // User ids name media streams (`media/<user_id>/cam`): no "/" or spaces, at most 128 characters.
  if (!/^[^/\s]+$/.test(prefix) || `${prefix}-${o.count}`.length > 128)
    fail(`userPrefix must be 1 to ${127 - String(o.count).length} characters without "/" or spaces`);
  const width = o.width ?? 640;
  const height = o.height ?? 360;
  const fps = o.fps ?? 15;
  // 4:2:0 video needs even sides; VP8 takes up to 16383, browsers send far less.
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const)
    if (!isInt(v, 16, 4096) || v % 2 !== 0) fail(`${name} must be an even number from 16 to 4096, got ${v}`);
  if (!isInt(fps, 1, 60)) fail(`fps must be a whole number from 1 to 60, got ${fps}`);
  const bitrateKbps = o.videoBitrateKbps ?? Math.max(100, Math.round((width * height * fps * 0.12) / 1000));
  if (!isInt(bitrateKbps, 50, 50_000))
    fail(`videoBitrateKbps must be a whole number from 50 to 50000, got ${bitrateKbps}`);
  const layers = o.layers ?? 3;
  if (!isInt(layers, 1, 3)) fail(`layers must be 1, 2 or 3, got ${layers}`);
  const forced = o.forcedSteps;
  if (
    forced !== undefined &&
    (!Array.isArray(forced) || !forced.every((f) => isNonNegative(f.afterS) && isInt(f.step, 0, layers - 1)))
  )
    fail(`forcedSteps must be a list of { afterS >= 0, step from 0 to ${layers - 1} }`);
  const chatEveryS = o.chatEveryS ?? 5;
  if (!isNonNegative(chatEveryS)) fail(`chatEveryS must be 0 or more seconds, got ${chatEveryS}`);
  const statsEveryS = o.statsEveryS ?? 5;
  if (!isNonNegative(statsEveryS)) fail(`statsEveryS must be 0 or more seconds, got ${statsEveryS}`);
  const joinTimeoutS = o.joinTimeoutS ?? 15;
  if (!(joinTimeoutS > 0) || !Number.isFinite(joinTimeoutS))
    fail(`joinTimeoutS must be a positive number of seconds, got ${joinTimeoutS}`);
  if (!o.sessionId) fail('sessionId is required');
  if (o.video !== undefined) checkVideoFile(o.video);
  return {
    url: liveUrlOf(o.baseUrl),
    count: o.count,
    durationS: o.durationS,
    prefix,
    spec: { ...(o.video !== undefined ? { file: o.video } : {}), width, height, fps, bitrateKbps, layers },
    chatEveryS,
    statsEveryS,
    joinTimeoutMs: joinTimeoutS * 1000,
    ...(forced ? { forcedSteps: [...forced].sort((a, b) => a.afterS - b.afterS) } : {}),
  };
}

/** A missing or unreadable file is named before ffmpeg is asked, with a message of our own. */
function checkVideoFile(path: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return fail(`video file not found: ${path}`);
  }
  if (!isFile) fail(`video is not a file: ${path}`);
  try {
    accessSync(path, constants.R_OK);
  } catch {
    fail(`video file not readable: ${path}`);
  }
}

/** Calls the listener; a listener that throws must not stop the bots. */
function emitter(onEvent: BotOptions['onEvent']): (e: BotEvent) => void {
  return (e) => {
    try {
      onEvent?.(e);
    } catch (err) {
      console.error('vss bot: the event listener threw:', err);
    }
  };
}

/**
 * Runs `count` bots in one session; resolves with what each sent and got acknowledged once all
 * have left. Rejects, before any bot joins, on bad options, a missing ffmpeg, or a video that
 * ffmpeg cannot use. A bot that cannot join, or whose connection is lost, is reported in its
 * `errors` and does not stop the others.
 */
export async function runBots(options: BotOptions): Promise<BotReport> {
  const started = Date.now();
  const c = check(options);
  const ffmpeg = options.ffmpegPath ?? findFfmpeg();
  const emit = emitter(options.onEvent);
  const { signal } = options;
  await probe(ffmpeg, c.spec, signal, (pid, args) => emit({ type: 'ffmpeg', role: 'probe', pid, args }));

  // Started before the bots join, and awaited (an encoder takes a quarter of a second or so to
  // start, longer on a busy machine), so that every bot has its tone from its first 20 ms on.
  const tones = new Map<number, ToneEncoder>();
  for (let i = 1; i <= Math.min(c.count, 10); i++) {
    const tone = new ToneEncoder(ffmpeg, pitchOf(i));
    tones.set(pitchOf(i), tone);
    if (tone.pid !== undefined) emit({ type: 'ffmpeg', role: 'audio', pid: tone.pid, args: tone.args });
  }
  const stopTones = () => Promise.all([...tones.values()].map((t) => t.stop()));
  const toneStarted = Promise.all([...tones.values()].map((t) => t.ready));
  await within(toneStarted, TONE_START_MS);

  const bots = Array.from(
    { length: c.count },
    (_, i) =>
      new Bot({
        index: i + 1,
        userId: `${c.prefix}-${i + 1}`,
        url: c.url,
        sessionId: options.sessionId,
        token: options.connectionToken,
        durationS: c.durationS,
        chatEveryS: c.chatEveryS,
        joinTimeoutMs: c.joinTimeoutMs,
        tone: tones.get(pitchOf(i + 1))!,
        encodings: c.spec.layers,
        ...(c.forcedSteps ? { forcedSteps: c.forcedSteps } : {}),
        emit,
      }),
  );
  for (const [pitch, tone] of tones)
    tone.onEnd((err) => {
      if (!err) return;
      emit({ type: 'error', message: err.message });
      bots.forEach((bot, i) => pitchOf(i + 1) === pitch && bot.mediaFailed(err.message));
    });
  const onAbort = () => {
    for (const bot of bots) void bot.leave('aborted');
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  // Statistics every statsEveryS from here, where the bots start to join, each line naming its
  // own tick (5s, 10s, …): starting ffmpeg and the tone encoders before it takes a second or
  // more on a busy machine, and a late timer does not make the fifth second the sixth.
  let ticks = 0;
  const stats =
    c.statsEveryS > 0
      ? setInterval(() => {
          ticks += 1;
          const all = bots.map((b) => b.snapshot());
          const sum = (f: (s: (typeof all)[number]) => number) => all.reduce((n, s) => n + f(s), 0);
          const steps = [0, 0, 0];
          bots.forEach((b, i) => b.connected && steps[all[i]!.uplinkStep]!++);
          emit({
            type: 'stats',
            elapsedS: ticks * c.statsEveryS,
            connected: bots.filter((b) => b.connected).length,
            framesSent: sum((s) => s.framesSent),
            framesAcked: sum((s) => s.framesAcked),
            framesDropped: sum((s) => s.framesDropped),
            relayedFrames: sum((s) => s.relayedFrames),
            keyframeRequests: sum((s) => s.keyframeRequests),
            steps: steps.slice(0, c.spec.layers),
            chats: sum((s) => s.chats),
          });
        }, c.statsEveryS * 1000)
      : null;

  let encoder: VideoEncoder | null = null;
  try {
    const joined = await Promise.all(bots.map((b) => b.join()));
    if (joined.some(Boolean) && !signal?.aborted) {
      encoder = new VideoEncoder(ffmpeg, c.spec);
      if (encoder.pid !== undefined)
        emit({ type: 'ffmpeg', role: 'encoder', pid: encoder.pid, args: encoder.args });
      encoder.onEnd((err) => {
        if (!err) return;
        // The run goes on: audio and chat still exercise the session; every bot's report says why
        // its video stopped.
        emit({ type: 'error', message: err.message });
        for (const bot of bots) bot.mediaFailed(err.message);
      });
      bots.forEach((bot, i) => joined[i] && bot.attachVideo(encoder!));
    }
    await Promise.all(bots.map((b) => b.done));
  } finally {
    if (stats) clearInterval(stats);
    signal?.removeEventListener('abort', onAbort);
    // Only reached with bots still running when something above threw: they leave too.
    await Promise.all(bots.map((b) => b.leave('aborted')));
    await Promise.all([encoder?.stop(), stopTones()]);
  }
  return {
    bots: bots.map((b) => b.snapshot()),
    aborted: signal?.aborted ?? false,
    elapsedS: Math.round((Date.now() - started) / 100) / 10,
  };
}
