import { parseMediaStream, type TrackKind } from '@vss/protocol';
import type { StreamStat, StreamStore } from '../../streams/store.js';
import { formatOf, MediaError, type TrackFormat } from './codecs.js';
import { NO_CUTS, offWhilePaused, type Cuts, type Interval } from './cuts.js';
import { TrackFramer } from './track-framer.js';

export type { Interval } from './cuts.js';

/** What the scan learnt about one media track. */
export interface ScannedTrack {
  streamId: string;
  userId: string;
  kind: TrackKind;
  format: TrackFormat;
  frames: number;
  firstUs: number;
  lastUs: number;
  /** video only: when the track shows pictures; outside these its tile shows the participant's name */
  on: Interval[];
}

/** A `director.focus` command, on the export's clock. */
export interface FocusChange {
  atUs: number;
  userId: string;
}

/** A participant joining or leaving, on the export's clock. */
export interface PresenceChange {
  atUs: number;
  userId: string;
  present: boolean;
}

/** Everything the layout needs, gathered in one read of the recording. */
export interface Scan {
  /** the first media frame on the export's clock (Cuts.clock), ms: time 0 of the export */
  epochMs: number;
  /** from the first media frame to the last, µs (less the paused spans, unless kept) */
  spanUs: number;
  tracks: ScannedTrack[];
  focus: FocusChange[];
  /** joins and leaves in the order they happened */
  presence: PresenceChange[];
  /** the name each participant last joined with (the timeline's `participant.joined`), where one was given */
  names: Map<string, string>;
}

/**
 * Where a clip's events are in the store, in seq order: from the first stamped at or after its
 * window's start to before `toSeq` (none: to the end). Events before `fromSeq` are read for the
 * timeline only (joins, leaves, names, focus), never a frame of them.
 */
export interface Extent {
  fromSeq: number;
  toSeq?: number;
}

/**
 * A camera that sends nothing for this long is off (its tile shows the name, not a frozen frame).
 * A shorter gap holds its last picture: a publisher whose uplink is slow sends its camera at a
 * floor of a picture or two a second, a busy machine stalls for a second or two, and a name card
 * flickering in there reads as the person leaving (the live call showed the last picture).
 */
export const CAM_GAP_US = 10_000_000;
/** How long the last frame before a gap (or the end of a track) stays on screen. */
export const HOLD_US = 200_000;
/** The scan lets the event loop turn at least this often (ms). */
const SLICE_MS = 20;

interface State {
  streamId: string;
  userId: string;
  kind: TrackKind;
  format?: TrackFormat;
  framer?: TrackFramer;
  frames: number;
  firstUs: number;
  lastUs: number;
  on: Interval[];
  open: { start: number; last: number } | null;
}

function close(s: State, untilUs = -Infinity): void {
  if (!s.open) return;
  s.on.push([s.open.start, Math.max(untilUs, s.open.last + HOLD_US)]);
  s.open = null;
}

function envelope(body: Buffer): { type?: unknown; ts?: unknown; data?: Record<string, unknown> } | null {
  try {
    return JSON.parse(body.toString('utf8')) as ReturnType<typeof envelope>;
  } catch {
    return null;
  }
}

/**
 * What the scan reads, in seq order: the timeline and the director's commands before the extent
 * (a clip's), then everything in it.
 */
async function* eventsOf(
  store: StreamStore,
  sessionId: string,
  extent: Extent,
  cuts: Cuts,
  wanted: (streamId: string) => boolean,
) {
  const timeline = ['events', 'director'];
  if (extent.fromSeq > 0) yield* store.read(sessionId, { streamIds: timeline, toSeq: extent.fromSeq });
  // Nothing stamped after the window counts (media is dropped, the timeline ignored): the
  // database leaves it out, rather than this process reading it.
  const toTs = cuts.window.toMs === Infinity ? undefined : cuts.window.toMs;
  yield* store.read(sessionId, {
    streams: (id) => timeline.includes(id) || wanted(id),
    fromSeq: extent.fromSeq,
    toSeq: extent.toSeq,
    toTs,
  });
}

/**
 * Reads the recording once, in seq order, before rendering: each track's format (from its first
 * usable payload), its frame times through the same TrackFramer the render uses, when each video
 * track is on, and the director's focus commands. Nothing but these figures is kept.
 *
 * A video track goes off after its last frame before a `track.unpublished` event: that event is
 * placed by its seq among the frames, not by its timestamp, which is the server's clock while
 * frames carry the publisher's media clock. A camera also goes off when it sends nothing for
 * CAM_GAP_US; a screen share does not (a still screen may send no frames for a long time).
 * Joins and leaves are placed the same way, at the latest media time read before them.
 *
 * Every time is on the export's clock (`cuts`): the paused spans cut out, unless kept. So a camera
 * recorded on both sides of a cut stays on across it (CAM_GAP_US counts recorded time), and a
 * join, leave or focus change made while paused takes effect at the cut. When the spans are kept,
 * every video is off during each of them. A clip's scan reads only its `extent` of media (and the
 * timeline before it, so that who is there and their names are known from its first frame).
 * `kinds`: only tracks of these kinds are read (the sound alone reads its microphones alone, so
 * its span is from the first recorded sound to the last).
 */
export async function scanRecording(
  store: StreamStore,
  sessionId: string,
  stats: StreamStat[],
  cuts: Cuts = NO_CUTS,
  extent: Extent = { fromSeq: 0 },
  kinds?: readonly TrackKind[],
): Promise<Scan> {
  const wanted = (id: string) => {
    const m = parseMediaStream(id);
    return m !== null && (!kinds || kinds.includes(m.kind));
  };
  const media = stats.filter((s) => wanted(s.streamId));
  if (media.length === 0) throw new MediaError('the session has no recorded media');
  // The clock never runs backwards: the first recorded time (in the window) is the first on it too.
  const epochMs = cuts.clock(Math.max(cuts.window.fromMs, Math.min(...media.map((s) => s.minTs))));
  const states = new Map<string, State>();
  const focus: FocusChange[] = [];
  const presence: PresenceChange[] = [];
  const names = new Map<string, string>();
  /** the latest media time read so far: where a join or leave is placed */
  let mediaUs = 0;

  let turn = performance.now() + SLICE_MS;
  for await (const e of eventsOf(store, sessionId, extent, cuts, wanted)) {
    // Reading the store and resolving promises never lets the event loop turn: without a pause now
    // and then, the whole scan (seconds for an hour of recording) would hold up every request and
    // live session of this process, and the pipes of other exports rendering beside it.
    if (performance.now() >= turn) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now() + SLICE_MS;
    }
    // A media stream's state is looked up before its name is parsed: almost every event is media.
    let s = states.get(e.streamId);
    if (!s) {
      const m = parseMediaStream(e.streamId);
      if (m) {
        s = {
          streamId: e.streamId,
          ...m,
          frames: 0,
          firstUs: Infinity,
          lastUs: -Infinity,
          on: [],
          open: null,
        };
        states.set(e.streamId, s);
      }
    }
    if (s) {
      if (!s.format) {
        s.format = formatOf(e.streamId, s.kind, e.body);
        if (!s.format) continue;
        s.framer = new TrackFramer(s.format, epochMs, cuts);
      }
      const f = s.framer!.frame(e.ts, e.body);
      if (!f) continue;
      s.frames += 1;
      s.firstUs = Math.min(s.firstUs, f.atUs);
      s.lastUs = Math.max(s.lastUs, f.atUs);
      mediaUs = Math.max(mediaUs, f.atUs);
      if (s.kind === 'mic') continue;
      if (s.open && s.kind === 'cam' && f.atUs - s.open.last > CAM_GAP_US) close(s);
      if (!s.open) s.open = { start: f.atUs, last: f.atUs };
      else s.open.last = Math.max(s.open.last, f.atUs);
      continue;
    }
    // The timeline after a clip's end (stamped by the server) changes nothing in it.
    if (e.ts >= cuts.window.toMs) continue;
    const env = envelope(e.body);
    if (!env) continue;
    if (e.streamId === 'events' && env.type === 'track.unpublished') {
      const off = states.get(String(env.data?.stream_id));
      if (off) close(off);
    } else if (
      e.streamId === 'events' &&
      (env.type === 'participant.joined' || env.type === 'participant.left') &&
      typeof env.data?.user_id === 'string'
    ) {
      presence.push({ atUs: mediaUs, userId: env.data.user_id, present: env.type === 'participant.joined' });
      const name = env.data.display_name;
      if (env.type === 'participant.joined' && typeof name === 'string' && name.length > 0)
        names.set(env.data.user_id, name);
    } else if (e.streamId === 'director' && env.type === 'director.focus') {
      const userId = env.data?.user_id;
      if (typeof userId === 'string' && typeof env.ts === 'number')
        focus.push({ atUs: Math.max(0, (cuts.clock(env.ts) - epochMs) * 1000), userId });
    }
  }

  const tracks: ScannedTrack[] = [];
  // A video that goes on past a clip's end shows to its end, not as if it stopped at its last frame.
  const endUs = (cuts.clock(cuts.window.toMs) - epochMs) * 1000;
  const maxTs = new Map(media.map((m) => [m.streamId, m.maxTs]));
  for (const s of states.values()) {
    close(s, (maxTs.get(s.streamId) ?? -Infinity) >= cuts.window.toMs ? endUs : -Infinity);
    if (!s.format || s.frames === 0) continue;
    if (cuts.keepGaps) s.on = offWhilePaused(s.on, cuts, epochMs);
    tracks.push({
      streamId: s.streamId,
      userId: s.userId,
      kind: s.kind,
      format: s.format,
      frames: s.frames,
      firstUs: s.firstUs,
      lastUs: s.lastUs,
      on: s.on,
    });
  }
  if (tracks.length === 0) throw new MediaError('no recorded media track holds a decodable frame');
  const order: Record<TrackKind, number> = { cam: 0, screen: 1, mic: 2 };
  tracks.sort(
    (a, b) => a.firstUs - b.firstUs || a.userId.localeCompare(b.userId) || order[a.kind] - order[b.kind],
  );
  focus.sort((a, b) => a.atUs - b.atUs);
  return {
    epochMs,
    spanUs: Math.max(...tracks.map((t) => t.lastUs)),
    tracks,
    focus,
    presence,
    names,
  };
}
