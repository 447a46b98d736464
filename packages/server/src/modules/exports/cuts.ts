import { cutClock, pausedSpans, type Span, type TimelineEvent } from '../../lib/recording.js';
import type { StreamStore } from '../../streams/store.js';

/** A half-open time interval on the export's clock, µs since its epoch. */
export type Interval = [startUs: number, endUs: number];

/** A clock of the session: ms since 1970 in, ms on the export's clock out. */
export type Clock = (ms: number) => number;

/**
 * What an export does with the spans in which recording was paused: every time that reaches the
 * layout or ffmpeg goes through `clock`, which cuts them out (lib/recording.ts `cutClock`: the
 * paused time before a moment is taken off it, and a moment inside a span is its start) unless
 * they are kept, when it is the session's own clock.
 */
export interface Cuts {
  /** the paused spans, on the session's clock (ms since 1970) */
  paused: Span[];
  keepGaps: boolean;
  clock: Clock;
  /**
   * The recorded time the export reads, on the session's clock (ms since 1970, `toMs` exclusive):
   * everything for a whole export; for a clip, from a little before its start (so that each video
   * has a key frame to start from) to its end. Frames recorded outside it are not read.
   */
  window: { fromMs: number; toMs: number };
}

const EVERYTHING = { fromMs: -Infinity, toMs: Infinity };

/** No paused span: the session's clock as it is. */
export const NO_CUTS: Cuts = { paused: [], keepGaps: false, clock: (ms) => ms, window: EVERYTHING };

export function cutsOf(paused: Span[], keepGaps: boolean, window = EVERYTHING): Cuts {
  return { paused, keepGaps, clock: keepGaps ? (ms) => ms : cutClock(paused), window };
}

/** Whether a paused span starts after `fromMs` and at or before `toMs` (session clock). */
export function pausedBetween(cuts: Cuts, fromMs: number, toMs: number): boolean {
  return cuts.paused.some((s) => s.start > fromMs && s.start <= toMs);
}

/**
 * The spans in which the session's recording was paused, from its timeline (`recording.paused`,
 * `recording.resumed`), read once before the scan: every time of the export depends on them.
 */
export async function readPausedSpans(store: StreamStore, sessionId: string): Promise<Span[]> {
  const events: TimelineEvent[] = [];
  for await (const e of store.read(sessionId, { streamId: 'events' })) {
    let env: { type?: unknown; ts?: unknown };
    try {
      env = JSON.parse(e.body.toString('utf8')) as typeof env;
    } catch {
      continue;
    }
    if (env.type === 'recording.paused' || env.type === 'recording.resumed')
      events.push({ type: env.type, ts: typeof env.ts === 'number' ? env.ts : e.ts });
  }
  return pausedSpans(events.sort((a, b) => a.ts - b.ts));
}

/**
 * `on` less the paused spans, for an export that keeps them: a video shows nothing while nothing
 * was recorded (its tile shows the name), never its last frame held over the pause. `epochMs`: time
 * 0 of `on`, on the session's clock.
 */
export function offWhilePaused(on: Interval[], cuts: Cuts, epochMs: number): Interval[] {
  let out = on;
  for (const p of cuts.paused) {
    const ps = (p.start - epochMs) * 1000;
    const pe = p.end === null ? Infinity : (p.end - epochMs) * 1000;
    const next: Interval[] = [];
    for (const [a, b] of out) {
      if (b <= ps || a >= pe) next.push([a, b]);
      else {
        if (a < ps) next.push([a, ps]);
        if (b > pe) next.push([pe, b]);
      }
    }
    out = next;
  }
  return out;
}
