/**
 * The spans of a recording in which recording was paused (the timeline's `recording.paused` to
 * the next `recording.resumed`): nothing was stored there, so the player jumps over them.
 */
import type { Envelope } from './types';

/** A paused span, [start, end) in ms since 1970. */
export interface Gap {
  start: number;
  end: number;
}

/**
 * The paused spans among timeline events in time order; one never resumed lasts until `end` (the
 * recording's end). Spans of no length are left out.
 */
export function pausedSpans(markers: readonly Envelope[], end: number): Gap[] {
  const gaps: Gap[] = [];
  let from: number | null = null;
  for (const m of markers) {
    if (m.type === 'recording.paused' && from === null) from = m.ts;
    else if (m.type === 'recording.resumed' && from !== null) {
      if (m.ts > from) gaps.push({ start: from, end: m.ts });
      from = null;
    }
  }
  if (from !== null && end > from) gaps.push({ start: from, end });
  return gaps;
}

/** The paused span `ts` falls in, if any. */
export function gapAt(gaps: readonly Gap[], ts: number): Gap | null {
  return gaps.find((g) => ts >= g.start && ts < g.end) ?? null;
}

/** `t`, or the end of the paused span it falls in (at most `end`, the recording's end). */
export function pastGap(markers: readonly Envelope[], end: number, t: number): number {
  const gap = gapAt(pausedSpans(markers, end), t);
  return gap ? Math.min(gap.end, end) : t;
}
