import type { Measure } from './font-metrics.js';

/** Longest label drawn, in characters (graphemes): a longer one is cut with an ellipsis. */
export const LABEL_MAX = 40;
/** The name bar's background: black, a little more than half opaque. */
export const BAR_COLOUR = 'black@0.55';

/** A name bar on a tile's picture: where, how large, and the text it shows (fitted to it). */
export interface NameBar {
  /** from the picture's left and bottom edges, px (even) */
  x: number;
  bottom: number;
  w: number;
  h: number;
  fontSize: number;
  /** where the text starts inside the bar, px */
  padX: number;
  text: string;
}

const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)];
const even = (n: number) => Math.floor(n / 2) * 2;

/**
 * A label as drawtext may show it: one line (control characters, line and paragraph separators
 * become spaces, runs of spaces one), trimmed, without direction controls. A name's embeddings,
 * overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) are
 * dropped rather than wrapped in an isolate: drawtext draws U+2068/U+2069 as blanks, and without
 * them a name cannot reverse what follows it (" (screen)") while its letters keep their own
 * direction. drawtext reads it from a file without expansion, so nothing else needs escaping.
 */
export function cleanLabel(label: string): string {
  return label
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A label cut to `max` characters (graphemes), the last one an ellipsis when cut. */
export function truncateLabel(label: string, max = LABEL_MAX): string {
  const g = graphemes(label);
  if (g.length <= max) return label;
  return `${g
    .slice(0, max - 1)
    .map((s) => s.segment)
    .join('')
    .trimEnd()}…`;
}

/** The longest start of `text` that fits `maxW` px (with an ellipsis when cut); null when not even that fits. */
function fit(text: string, maxW: number, size: number, measure: Measure): string | null {
  if (measure(text, size) <= maxW) return text;
  const g = graphemes(text).map((s) => s.segment);
  for (let n = g.length - 1; n > 0; n--) {
    const cut = `${g.slice(0, n).join('').trimEnd()}…`;
    if (measure(cut, size) <= maxW) return cut;
  }
  return null;
}

/**
 * The name bar of a w×h tile's picture: a dark strip on its bottom-left corner, its height and
 * font size following the size of a 16:9 picture in the tile (readable on a small strip tile, not
 * large on a large one), as wide as its text plus padding. The picture's own size is known only
 * to ffmpeg: the bar is at most as wide as a 4:3 picture fitted to the tile (a camera's usual
 * shape; ffmpeg cuts it at the edge of a narrower one). The label is cut to LABEL_MAX characters,
 * then further until it fits. Null when the tile is too small for any of it.
 */
export function nameBar(w: number, h: number, label: string, measure: Measure): NameBar | null {
  const clean = truncateLabel(cleanLabel(label));
  if (!clean) return null;
  const pictureW = Math.min(w, (h * 16) / 9);
  const pictureH = Math.min(h, (w * 9) / 16);
  const fontSize = Math.round(Math.max(12, Math.min(24, pictureH / 18)));
  const barH = even(Math.round(fontSize * 1.7));
  const margin = even(Math.min(Math.round(fontSize * 0.5), pictureW / 40, pictureH / 40));
  const padX = Math.round(fontSize * 0.55);
  const maxW = even(Math.min(w, (h * 4) / 3) - 2 * margin);
  if (barH > pictureH - margin || maxW < 2 * padX + fontSize) return null;
  const text = fit(clean, maxW - 2 * padX, fontSize, measure);
  if (!text) return null;
  const barW = Math.min(maxW, even(measure(text, fontSize) + 2 * padX + 1));
  return { x: margin, bottom: margin, w: barW, h: barH, fontSize, padX, text };
}

/**
 * The ffmpeg filters drawing a name bar once: one `w`×`h` frame of BAR_COLOUR with the text of
 * `textfile` in white, centred on its height by the font's ascent and descent (the same baseline
 * whatever the letters), which `overlay` then repeats onto every frame of the video. In yuva420p,
 * so that overlaying it onto a yuv420p picture needs no conversion per frame. Text that drawtext
 * draws wider than measured is cut at the bar's edge.
 */
export function barPicture(bar: NameBar, fps: number, font: string, textfile: string): string {
  return (
    `color=c=${BAR_COLOUR}:s=${bar.w}x${bar.h}:r=${fps}:d=1,format=yuva420p,` +
    `drawtext=${font}:textfile=${textfile}:expansion=none:fontcolor=white:fontsize=${bar.fontSize}:` +
    `x=${bar.padX}:y=(h-ascent+descent)/2,trim=end_frame=1`
  );
}
