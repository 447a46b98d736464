/**
 * What is recorded of a session, and when: recording rules and paused spans. Pure functions
 * shared by the live hub (what to store as it arrives), the manifest (each track's recorded
 * segments), replay (which spans to skip) and the export (which spans to cut out).
 */

import type { RecordingRule, RuleKind } from '@vss/protocol';
import { isRecorded } from '@vss/protocol';

export {
  isRecorded,
  sessionHosts,
  MAX_RULES,
  RULE_KINDS,
  type RecordingRule,
  type RuleKind,
} from '@vss/protocol';

/** A half-open interval of the session's clock (ms since 1970); `end` null: still open. */
export interface Span {
  start: number;
  end: number | null;
}

/** A timeline event as these functions need it. */
export interface TimelineEvent {
  type: string;
  ts: number;
  data?: Record<string, unknown>;
}

/** The spans during which recording was paused, from the timeline's `recording.paused`/`resumed`. */
export function pausedSpans(events: Iterable<TimelineEvent>): Span[] {
  const spans: Span[] = [];
  let open: Span | null = null;
  for (const e of events) {
    if (e.type === 'recording.paused' && !open) {
      open = { start: e.ts, end: null };
      spans.push(open);
    } else if (e.type === 'recording.resumed' && open) {
      open.end = Math.max(open.start, e.ts);
      open = null;
    }
  }
  return spans;
}

/**
 * A clock with the paused spans cut out: a time minus all the paused time before it. A time inside
 * a paused span maps to that span's start, so that nothing stamped there can fall out of order.
 */
export function cutClock(spans: readonly Span[]): (ts: number) => number {
  if (spans.length === 0) return (ts) => ts;
  return (ts) => {
    let cut = 0;
    for (const s of spans) {
      if (ts <= s.start) break;
      const end = s.end ?? Infinity;
      if (ts < end) return s.start - cut;
      cut += end - s.start;
    }
    return ts - cut;
  };
}

/**
 * The intervals in which a user's stream of `kind` was recorded, within [from, to]: the spans
 * not paused, in which the rules in force (the timeline's `recording.rules_changed` carries them
 * whole, `initial` applied before the first) recorded it; `hosts` are the session's, whom a `host`
 * rule matches. Adjacent intervals are merged.
 */
export function recordedSegments(
  events: readonly TimelineEvent[],
  initial: readonly RecordingRule[],
  userId: string,
  kind: RuleKind,
  from: number,
  to: number,
  hosts: readonly string[],
): Array<{ start_ts: number; end_ts: number }> {
  // Every change of state, in time order: what holds from each one on.
  let rules = initial;
  let paused = false;
  let openAt: number | null = null;
  const out: Array<{ start_ts: number; end_ts: number }> = [];
  const on = () => !paused && isRecorded(rules, userId, kind, hosts);
  const settle = (at: number) => {
    const now = on();
    if (now && openAt === null) openAt = Math.max(at, from);
    else if (!now && openAt !== null) {
      const end = Math.min(at, to);
      if (end > openAt) out.push({ start_ts: openAt, end_ts: end });
      openAt = null;
    }
  };
  settle(-Infinity);
  for (const e of [...events].sort((a, b) => a.ts - b.ts)) {
    if (e.ts >= to) break;
    if (e.type === 'recording.paused') paused = true;
    else if (e.type === 'recording.resumed') paused = false;
    else if (e.type === 'recording.rules_changed' && Array.isArray(e.data?.rules))
      rules = e.data.rules as RecordingRule[];
    else continue;
    settle(e.ts);
  }
  // Inclusive at the end: a track of one frame was recorded at that instant.
  if (openAt !== null && to >= openAt) out.push({ start_ts: openAt, end_ts: to });
  const merged: typeof out = [];
  for (const s of out) {
    const last = merged[merged.length - 1];
    if (last && last.end_ts >= s.start_ts) last.end_ts = Math.max(last.end_ts, s.end_ts);
    else merged.push({ ...s });
  }
  return merged;
}
