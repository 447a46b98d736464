import { shownFocus } from '@vss/protocol';
import type { FocusChange, Interval, Scan } from './scan.js';

/** The export layouts. */
export const LAYOUTS = ['grid', 'presenter', 'speaker'] as const;
export type Layout = (typeof LAYOUTS)[number];
export const ORIENTATIONS = ['landscape', 'vertical'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];
export const RESOLUTIONS = ['720p', '1080p'] as const;
/** What an export writes: an MP4 with the layout and the sound, or the sound alone (`m4a`). */
export const FORMATS = ['mp4', 'm4a'] as const;
export type Format = (typeof FORMATS)[number];
export type Resolution = (typeof RESOLUTIONS)[number];

/** Output sizes at 720p. */
export const CANVAS: Record<Orientation, { width: number; height: number }> = {
  landscape: { width: 1280, height: 720 },
  vertical: { width: 720, height: 1280 },
};

/** Pixels between tiles at 720p. */
export const GAP = 8;

/**
 * How much larger than 720p everything is drawn: 1080p is the same layout at 1.5 times the size
 * (1920x1080 or 1080x1920, tiles, gaps and name bars included), not a 720p picture scaled up.
 */
const SCALE: Record<Resolution, number> = { '720p': 1, '1080p': 1.5 };

/** The canvas of an orientation at a resolution, and the gap between its tiles. */
export function canvasOf(
  orientation: Orientation,
  resolution: Resolution = '720p',
): { width: number; height: number; gap: number; scale: number } {
  const scale = SCALE[resolution];
  const { width, height } = CANVAS[orientation];
  return { width: width * scale, height: height * scale, gap: GAP * scale, scale };
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Something shown in a tile: a video track, or (when nobody has video) a participant's name. */
export interface Subject {
  userId: string;
  kind: 'cam' | 'screen' | 'name';
  label: string;
  /** index into scan.tracks of the video track, or null for a name-only tile */
  track: number | null;
  /** when the video shows; outside, the tile shows `label` */
  on: Interval[];
  /** index of the participant (for the tile's colour) */
  person: number;
}

/** One subject at one tile size: where it is placed and when (always, for the grid). */
export interface TileGroup {
  subject: number;
  w: number;
  h: number;
  /** null: always at `at`; otherwise the intervals it is shown, each with its position */
  spans: Array<{ fromUs: number; toUs: number; x: number; y: number }> | null;
  at: { x: number; y: number };
}

export interface Composition {
  width: number;
  height: number;
  subjects: Subject[];
  groups: TileGroup[];
}

const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);

/**
 * `n` tiles in `area`, in the balanced grid that shows a 16:9 picture largest (ties: fewer empty
 * cells), centred, the last row centred too.
 */
export function gridRects(area: Rect, n: number, gap = GAP): Rect[] {
  if (n === 0) return [];
  let best = { cols: 1, rows: n, score: -1, empty: Infinity };
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const w = (area.w - gap * (cols - 1)) / cols;
    const h = (area.h - gap * (rows - 1)) / rows;
    if (w <= 0 || h <= 0) continue;
    const fitted = Math.min(w, (h * 16) / 9) * Math.min(h, (w * 9) / 16);
    const empty = rows * cols - n;
    if (fitted > best.score + 1e-6 || (Math.abs(fitted - best.score) <= 1e-6 && empty < best.empty))
      best = { cols, rows, score: fitted, empty };
  }
  const { cols, rows } = best;
  const w = even((area.w - gap * (cols - 1)) / cols);
  const h = even((area.h - gap * (rows - 1)) / rows);
  const top = area.y + Math.max(0, Math.floor((area.h - (rows * h + gap * (rows - 1))) / 4) * 2);
  const out: Rect[] = [];
  for (let i = 0; i < n; i++) {
    const row = Math.floor(i / cols);
    const inRow = row === rows - 1 ? n - row * cols : cols;
    const rowWidth = inRow * w + gap * (inRow - 1);
    const left = area.x + Math.max(0, Math.floor((area.w - rowWidth) / 4) * 2);
    out.push({ x: left + (i % cols) * (w + gap), y: top + row * (h + gap), w, h });
  }
  return out;
}

/** The presenter layout's large tile and strip, per orientation. */
export function presenterAreas(
  orientation: Orientation,
  stripTiles: number,
  resolution: Resolution = '720p',
): { main: Rect; strip: Rect } {
  const { width, height, gap, scale } = canvasOf(orientation, resolution);
  const large = 960 * scale;
  if (stripTiles === 0)
    return { main: { x: 0, y: 0, w: width, h: height }, strip: { x: 0, y: 0, w: 0, h: 0 } };
  if (orientation === 'landscape')
    return {
      main: { x: 0, y: 0, w: large, h: height },
      strip: { x: large + gap, y: 0, w: width - large - gap, h: height },
    };
  return {
    main: { x: 0, y: 0, w: width, h: large },
    strip: { x: 0, y: large + gap, w: width, h: height - large - gap },
  };
}

/** Which subjects the export shows: every video track, or every participant's name when none has video. */
export function subjectsOf(scan: Scan): Subject[] {
  const people: string[] = [];
  const person = (u: string) => {
    if (!people.includes(u)) people.push(u);
    return people.indexOf(u);
  };
  const name = (u: string) => scan.names.get(u) ?? u;
  const videos = scan.tracks.map((t, i) => ({ t, i })).filter(({ t }) => t.kind !== 'mic');
  if (videos.length > 0)
    return videos.map(({ t, i }) => ({
      userId: t.userId,
      kind: t.kind === 'screen' ? ('screen' as const) : ('cam' as const),
      label: t.kind === 'screen' ? `${name(t.userId)} (screen)` : name(t.userId),
      track: i,
      on: t.on,
      person: person(t.userId),
    }));
  const users = [...new Set(scan.tracks.map((t) => t.userId))];
  return users.map((u) => ({
    userId: u,
    kind: 'name' as const,
    label: name(u),
    track: null,
    on: [],
    person: person(u),
  }));
}

/** The grid: every subject in one balanced grid over the whole canvas, for the whole export. */
export function gridComposition(
  scan: Scan,
  orientation: Orientation,
  resolution: Resolution = '720p',
): Composition {
  const { width, height, gap } = canvasOf(orientation, resolution);
  const subjects = subjectsOf(scan);
  const rects = gridRects({ x: 0, y: 0, w: width, h: height }, subjects.length, gap);
  return {
    width,
    height,
    subjects,
    groups: rects.map((r, i) => ({ subject: i, w: r.w, h: r.h, spans: null, at: { x: r.x, y: r.y } })),
  };
}

const within = (t: number, on: Interval[]) => on.find(([a, b]) => a <= t && t < b);

/**
 * The presenter layout over time. The large tile shows, in order of precedence: a screen share
 * while it is on (the most recently started one when several are), else the focus participant's
 * camera (else their screen tile). The focus is `focus` when given; otherwise it follows the
 * recording's `director.focus` commands (a command naming someone without video is ignored),
 * starting with the first participant; while the focus is not present (they left), the first
 * participant present takes their place, by the live room's rule (`shownFocus`). The strip shows every other camera, and screens that are
 * on but not large, in a fixed order.
 *
 * `opts.changes` replaces the director's commands (the speaker layout passes who was speaking when:
 * a change naming someone without video is ignored the same way).
 */
export function presenterComposition(
  scan: Scan,
  orientation: Orientation,
  spanUs: number,
  focus: string | undefined,
  opts: { resolution?: Resolution; changes?: FocusChange[] } = {},
): Composition {
  const { width, height, gap } = canvasOf(orientation, opts.resolution);
  const subjects = subjectsOf(scan);
  const withVideo = new Set(subjects.map((s) => s.userId));
  const first = subjects[0]!.userId;
  const changes = focus ? [] : (opts.changes ?? scan.focus).filter((c) => withVideo.has(c.userId));
  const presence = scan.presence.filter((p) => withVideo.has(p.userId));
  /** who is present at `t` (with video), in the order they joined */
  const presentAt = (t: number) => {
    const present: string[] = [];
    for (const p of presence) {
      if (p.atUs > t) break;
      const at = present.indexOf(p.userId);
      if (p.present && at < 0) present.push(p.userId);
      else if (!p.present && at >= 0) present.splice(at, 1);
    }
    return present;
  };
  const focusAt = (t: number) => {
    let who = focus ?? first;
    for (const c of changes) if (c.atUs <= t) who = c.userId;
    // A focus who left gives way to someone present, as in the live room.
    return shownFocus(who, presentAt(t)) ?? who;
  };
  const screens = subjects.map((s, i) => ({ s, i })).filter(({ s }) => s.kind === 'screen');
  const isScreen = new Set(screens.map(({ i }) => i));

  const cuts = new Set<number>([0]);
  for (const c of changes) if (c.atUs < spanUs) cuts.add(c.atUs);
  for (const p of presence) if (p.atUs < spanUs) cuts.add(p.atUs);
  for (const { s } of screens)
    for (const [a, b] of s.on) {
      if (a > 0 && a < spanUs) cuts.add(a);
      if (b > 0 && b < spanUs) cuts.add(b);
    }
  const times = [...cuts].sort((a, b) => a - b);

  type Segment = { fromUs: number; toUs: number; main: number; strip: number[] };
  const segments: Segment[] = [];
  for (let k = 0; k < times.length; k++) {
    const t = times[k]!;
    const toUs = k + 1 < times.length ? times[k + 1]! : Infinity;
    let main = -1;
    let latest = -Infinity;
    for (const { s, i } of screens) {
      const iv = within(t, s.on);
      if (iv && iv[0] > latest) {
        latest = iv[0];
        main = i;
      }
    }
    if (main < 0) {
      const who = focusAt(t);
      main = subjects.findIndex((s, i) => s.userId === who && !isScreen.has(i));
      if (main < 0) main = subjects.findIndex((s) => s.userId === who);
      if (main < 0) main = 0;
    }
    const strip = subjects
      .map((s, i) => i)
      .filter((i) => i !== main && (!isScreen.has(i) || within(t, subjects[i]!.on)));
    const prev = segments[segments.length - 1];
    if (prev && prev.main === main && prev.strip.join() === strip.join()) prev.toUs = toUs;
    else segments.push({ fromUs: t, toUs, main, strip });
  }

  const stripTiles = Math.max(0, ...segments.map((s) => s.strip.length));
  const areas = presenterAreas(orientation, stripTiles, opts.resolution);
  const slots = gridRects(areas.strip, stripTiles, gap);
  const groups = new Map<string, TileGroup>();
  const place = (subject: number, rect: Rect, fromUs: number, toUs: number) => {
    const key = `${subject}:${rect.w}x${rect.h}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { subject, w: rect.w, h: rect.h, spans: [], at: { x: rect.x, y: rect.y } }));
    g.spans!.push({ fromUs, toUs, x: rect.x, y: rect.y });
  };
  for (const seg of segments) {
    place(seg.main, areas.main, seg.fromUs, seg.toUs);
    seg.strip.forEach((subject, k) => place(subject, slots[k]!, seg.fromUs, seg.toUs));
  }
  // A subject shown in one place for the whole export needs no timing.
  for (const g of groups.values()) {
    const s = g.spans!;
    if (s.length === 1 && s[0]!.fromUs === 0 && s[0]!.toUs === Infinity) g.spans = null;
  }
  return { width, height, subjects, groups: [...groups.values()] };
}
