import type { StreamStore } from '../../streams/store.js';
import type { Cuts } from './cuts.js';
import { AUDIO_GAP_S } from './graph.js';
import { feedTrack, runFfmpeg } from './feed.js';
import type { Extent, FocusChange, Scan, ScannedTrack } from './scan.js';

/**
 * The `speaker` layout's focus: who is speaking over time, from the microphones' levels. Each
 * microphone is decoded by ffmpeg to a level per 100 ms window on the export's clock (`micLevels`),
 * and `speakerChanges` decides from those levels who holds the large tile, with hysteresis.
 */

/** How loud a participant's microphones were, one level per window from time 0 of the export. */
export interface MicLevels {
  userId: string;
  /** the length of each window, µs */
  windowUs: number;
  /** the RMS level of each window in dBFS (a full-scale sine is -3), SILENCE_DB for none */
  db: Float32Array;
}

/** The windows levels are measured over, µs. */
export const LEVEL_WINDOW_US = 100_000;
/** The level of a window without sound (digital silence, or no microphone then), dBFS. */
export const SILENCE_DB = -100;
/** The rate microphones are decoded at to be measured: plenty for a voice's loudness. */
const LEVEL_RATE = 8000;
const SAMPLES_PER_WINDOW = (LEVEL_RATE * LEVEL_WINDOW_US) / 1e6;
/** Microphones decoded at once: one ffmpeg each, on a machine that may have two cores. */
const DECODES_AT_ONCE = 2;

/**
 * How loud each participant was over the export, window by window: every microphone of the scan
 * decoded by its own ffmpeg (two at a time) to mono 8 kHz on the export's clock, fed exactly as
 * the render feeds it (the same TrackFramer, cuts and Matroska framing, `-copyts`, and the same
 * `aresample` that fills gaps and the time before the first packet with silence), so that window
 * n is the render's sound from n × 100 ms. Only the levels are kept, never the sound. A
 * participant with several microphones has the louder of them in each window. Every participant's
 * levels run to the end of the export (silence past their last packet). Rejects with a RenderError
 * carrying the end of ffmpeg's log when ffmpeg fails; `signal` stops it.
 */
export async function micLevels(
  store: StreamStore,
  req: { sessionId: string; scan: Scan; cuts: Cuts; extent?: Extent; ffmpeg: string; signal: AbortSignal },
): Promise<MicLevels[]> {
  if (req.signal.aborted) throw req.signal.reason;
  const mics = req.scan.tracks.filter((t) => t.kind === 'mic');
  const levels: Float32Array[] = new Array(mics.length);
  // One microphone failing stops the other's ffmpeg too: its levels would be of no use.
  const stop = new AbortController();
  const abort = () => stop.abort(req.signal.reason);
  req.signal.addEventListener('abort', abort, { once: true });
  let next = 0;
  const worker = async () => {
    while (next < mics.length) {
      const k = next++;
      try {
        levels[k] = await trackLevels(store, { ...req, signal: stop.signal }, mics[k]!);
      } catch (err) {
        stop.abort(err);
        throw err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(DECODES_AT_ONCE, mics.length) }, worker));
  } finally {
    req.signal.removeEventListener('abort', abort);
  }
  const windows = Math.ceil(req.scan.spanUs / LEVEL_WINDOW_US);
  const byUser = new Map<string, Float32Array>();
  mics.forEach((t, k) => {
    const had = byUser.get(t.userId) ?? new Float32Array(windows).fill(SILENCE_DB);
    byUser.set(t.userId, louder(had, levels[k]!));
  });
  return [...byUser].map(([userId, db]) => ({ userId, windowUs: LEVEL_WINDOW_US, db }));
}

/** The louder of two runs of levels in each window, as long as the longer. */
function louder(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(Math.max(a.length, b.length)).fill(SILENCE_DB);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(a[i] ?? SILENCE_DB, b[i] ?? SILENCE_DB);
  return out;
}

/** The ffmpeg command line measuring one microphone: Matroska on fd 3, s16le mono 8 kHz on stdout. */
function levelArgs(): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-nostats',
    '-copyts',
    '-f',
    'matroska',
    '-i',
    'pipe:3',
    '-af',
    `aresample=async=1:min_hard_comp=${AUDIO_GAP_S}:first_pts=0`,
    '-ac',
    '1',
    '-ar',
    String(LEVEL_RATE),
    '-f',
    's16le',
    'pipe:1',
  ];
}

/**
 * Sums the squares of 16-bit samples as they stream in, giving each window's RMS level in dBFS
 * once it is complete (a last, shorter window over the samples it has).
 */
class LevelMeter {
  private db = new Float32Array(1024);
  private windows = 0;
  private sum = 0;
  private samples = 0;
  /** the first byte of a sample split between two chunks */
  private odd: number | null = null;

  push(chunk: Buffer): void {
    let o = 0;
    if (this.odd !== null && chunk.length > 0) {
      this.add((((chunk[0]! << 8) | this.odd) << 16) >> 16);
      this.odd = null;
      o = 1;
    }
    for (; o + 1 < chunk.length; o += 2) this.add(chunk.readInt16LE(o));
    if (o < chunk.length) this.odd = chunk[o]!;
  }

  finish(): Float32Array {
    if (this.samples > 0) this.close();
    return this.db.slice(0, this.windows);
  }

  private add(sample: number): void {
    this.sum += sample * sample;
    this.samples += 1;
    if (this.samples === SAMPLES_PER_WINDOW) this.close();
  }

  private close(): void {
    const rms = Math.sqrt(this.sum / this.samples) / 32768;
    if (this.windows === this.db.length) {
      const grown = new Float32Array(this.db.length * 2);
      grown.set(this.db);
      this.db = grown;
    }
    this.db[this.windows++] = rms > 0 ? Math.max(SILENCE_DB, 20 * Math.log10(rms)) : SILENCE_DB;
    this.sum = 0;
    this.samples = 0;
  }
}

/** One microphone's levels: its track read from the store into ffmpeg, its sound measured as it comes out. */
async function trackLevels(
  store: StreamStore,
  req: { sessionId: string; scan: Scan; cuts: Cuts; extent?: Extent; ffmpeg: string; signal: AbortSignal },
  track: ScannedTrack,
): Promise<Float32Array> {
  const meter = new LevelMeter();
  await runFfmpeg({
    ffmpeg: req.ffmpeg,
    args: levelArgs(),
    signal: req.signal,
    feeds: [
      (pipe) =>
        feedTrack(store, pipe, {
          sessionId: req.sessionId,
          track,
          epochMs: req.scan.epochMs,
          cuts: req.cuts,
          extent: req.extent ?? { fromSeq: 0 },
          signal: req.signal,
        }),
    ],
    onStdout: (d) => meter.push(d),
    doing: `measuring ${track.streamId}`,
  });
  return meter.finish();
}

/** A window counts as speech above this level (dBFS): a voice near a microphone is typically -30 to -10, a quiet room below -50. */
export const SPEECH_DB = -45;
/** The first speaker takes the tile once they have spoken this long (µs) … */
export const FIRST_SPEECH_US = 300_000;
/** … within this span (µs): a click or a breath before anyone speaks does not take it. */
export const FIRST_SPAN_US = 500_000;
/** Someone else takes the tile once they have been the loudest speaker this long (µs) … */
export const TAKE_SPEECH_US = 700_000;
/** … of this sliding span (µs): a cough or a one-word interjection does not. */
export const TAKE_SPAN_US = 1_000_000;
/** The tile stays with whoever took it at least this long (µs). */
export const MIN_TURN_US = 1_500_000;

/** The rules of `speakerChanges`, each defaulting to the constant of the same meaning. */
export interface SpeakerRules {
  speechDb: number;
  firstSpeechUs: number;
  firstSpanUs: number;
  takeSpeechUs: number;
  takeSpanUs: number;
  minTurnUs: number;
}

const RULES: SpeakerRules = {
  speechDb: SPEECH_DB,
  firstSpeechUs: FIRST_SPEECH_US,
  firstSpanUs: FIRST_SPAN_US,
  takeSpeechUs: TAKE_SPEECH_US,
  takeSpanUs: TAKE_SPAN_US,
  minTurnUs: MIN_TURN_US,
};

/**
 * Who holds the large tile over time, from the microphones' levels (all on the same windows, as
 * `micLevels` gives them; a window past the end of someone's levels is silence for them):
 * - Someone is speaking in a window when they are louder than -45 dBFS there and the loudest
 *   participant of that window (on a tie, whoever holds the tile stays the loudest; else the first
 *   of `levels`).
 * - Until somebody speaks nobody holds the tile (no change: the layout starts with its first
 *   participant). The first to speak for 0.3 s within 0.5 s takes it.
 * - Someone else takes it once they have been the one speaking for 0.7 s of the last second, so a
 *   cough or a word said over the speaker does not move it, and never sooner than 1.5 s after the
 *   tile last moved.
 * - Silence keeps the tile where it is.
 * - The tile moves when the new speaker began to speak within that last second (or 0.5 s for the
 *   first), not when the rule decided it, but never less than 1.5 s after its previous move.
 * Returns the moves in time order, each to someone other than the one before.
 */
export function speakerChanges(levels: MicLevels[], opts: Partial<SpeakerRules> = {}): FocusChange[] {
  const rules = { ...RULES, ...opts };
  if (levels.length === 0) return [];
  const windowUs = levels[0]!.windowUs;
  const users = [...new Set(levels.map((l) => l.userId))];
  const entries = levels.map((l) => ({ user: users.indexOf(l.userId), db: l.db }));
  const windows = Math.max(...levels.map((l) => l.db.length));
  const inWindows = (us: number) => Math.max(1, Math.round(us / windowUs));
  const first = { span: inWindows(rules.firstSpanUs), need: inWindows(rules.firstSpeechUs) };
  const take = { span: inWindows(rules.takeSpanUs), need: inWindows(rules.takeSpeechUs) };

  /** who spoke in each window so far (-1: nobody) */
  const spoke = new Int32Array(windows).fill(-1);
  const firstCount = new Int32Array(users.length);
  const takeCount = new Int32Array(users.length);
  const changes: FocusChange[] = [];
  let holder = -1;
  for (let i = 0; i < windows; i++) {
    const s = speakerAt(entries, i, holder, rules.speechDb);
    spoke[i] = s;
    if (s >= 0) {
      firstCount[s]! += 1;
      takeCount[s]! += 1;
    }
    if (i >= first.span && spoke[i - first.span]! >= 0) firstCount[spoke[i - first.span]!]! -= 1;
    if (i >= take.span && spoke[i - take.span]! >= 0) takeCount[spoke[i - take.span]!]! -= 1;

    const lastUs = changes.length ? changes[changes.length - 1]!.atUs : -Infinity;
    const rule = holder < 0 ? first : take;
    const counts = holder < 0 ? firstCount : takeCount;
    if (holder >= 0 && i * windowUs < lastUs + rules.minTurnUs) continue;
    const next = mostSpoken(counts, holder, rule.need);
    if (next < 0) continue;
    // When they began speaking within the deciding span.
    let start = Math.max(0, i - rule.span + 1);
    while (spoke[start] !== next) start += 1;
    const atUs = Math.max(start * windowUs, lastUs + rules.minTurnUs);
    if (changes.length && changes[changes.length - 1]!.atUs >= atUs) changes.pop();
    if (changes[changes.length - 1]?.userId !== users[next]) changes.push({ atUs, userId: users[next]! });
    holder = next;
  }
  return changes;
}

/** The loudest participant of window `i` above `speechDb` (a tie goes to `holder`), or -1. */
function speakerAt(
  entries: Array<{ user: number; db: Float32Array }>,
  i: number,
  holder: number,
  speechDb: number,
): number {
  let best = -1;
  let bestDb = speechDb;
  for (const { user, db } of entries) {
    const level = db[i] ?? SILENCE_DB;
    if (level > bestDb || (level === bestDb && best >= 0 && user === holder)) {
      best = user;
      bestDb = level;
    }
  }
  return best;
}

/** The participant other than `holder` who spoke in the most windows of the span, if at least `need`; else -1. */
function mostSpoken(counts: Int32Array, holder: number, need: number): number {
  let best = -1;
  for (let u = 0; u < counts.length; u++)
    if (u !== holder && counts[u]! >= need && (best < 0 || counts[u]! > counts[best]!)) best = u;
  return best;
}
