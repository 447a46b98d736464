import { closeSync, openSync, readSync } from 'node:fs';

/**
 * How wide drawtext will draw a text, in pixels at a font size: what a name bar needs to fit its
 * label, known before ffmpeg runs.
 */
export type Measure = (text: string, fontSize: number) => number;

/** What a font file tells of its glyphs: from its `cmap`, `hmtx`, `hhea` and `head` tables. */
interface Metrics {
  unitsPerEm: number;
  /** the advance of the glyph drawtext draws for a code point (.notdef's when the font has none), font units */
  advance(codePoint: number): number;
  /** whether the font has a glyph for the code point */
  has(codePoint: number): boolean;
  /** outlines FreeType draws (TrueType or CFF), not only colour bitmaps */
  outlines: boolean;
}

/** `length` bytes of an open file from `position`. */
function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  if (n < length) throw new RangeError('short read');
  return buf;
}

/**
 * Reads the metrics of a TrueType or OpenType font (the first face of a collection, the one
 * drawtext uses), and only the tables it needs: a CJK font file is tens of megabytes. Null when
 * the file is not a font or lacks a table this needs: the measure then falls back to an estimate.
 * Written here rather than taken from a font library (opentype.js, fontkit): those parse the whole
 * file into memory to answer this, and four tables' worth of reading is all an export needs.
 */
function readMetrics(file: string): Metrics | null {
  const fd = openSync(file, 'r');
  try {
    const first = readAt(fd, 0, 16);
    const base = first.toString('latin1', 0, 4) === 'ttcf' ? first.readUInt32BE(12) : 0;
    const count = readAt(fd, base + 4, 2).readUInt16BE(0);
    const dir = readAt(fd, base + 12, count * 16);
    const tables = new Map<string, { offset: number; length: number }>();
    for (let i = 0; i < count; i++)
      tables.set(dir.toString('latin1', i * 16, i * 16 + 4), {
        offset: dir.readUInt32BE(i * 16 + 8),
        length: dir.readUInt32BE(i * 16 + 12),
      });
    const table = (tag: string) => {
      const t = tables.get(tag);
      return t ? readAt(fd, t.offset, t.length) : null;
    };
    const head = table('head');
    const hhea = table('hhea');
    const cmap = table('cmap');
    if (!head || !hhea || !cmap || !tables.has('hmtx')) return null;
    const unitsPerEm = head.readUInt16BE(18);
    const metricsCount = hhea.readUInt16BE(34);
    if (unitsPerEm === 0 || metricsCount === 0) return null;
    const glyph = cmapLookup(cmap, 0);
    if (!glyph) return null;
    const hmtx = table('hmtx')!;
    const advanceOf = (g: number) => hmtx.readUInt16BE(4 * Math.min(g, metricsCount - 1));
    return {
      unitsPerEm,
      advance: (cp) => advanceOf(glyph(cp)),
      has: (cp) => glyph(cp) !== 0,
      outlines: tables.has('glyf') || tables.has('CFF ') || tables.has('CFF2'),
    };
  } finally {
    closeSync(fd);
  }
}

/** The code point → glyph lookup of a `cmap` table's Unicode subtable (format 12, else format 4). */
function cmapLookup(buf: Buffer, cmap: number): ((cp: number) => number) | null {
  const n = buf.readUInt16BE(cmap + 2);
  let format4: number | null = null;
  for (let i = 0; i < n; i++) {
    const platform = buf.readUInt16BE(cmap + 4 + i * 8);
    const encoding = buf.readUInt16BE(cmap + 6 + i * 8);
    const at = cmap + buf.readUInt32BE(cmap + 8 + i * 8);
    if (platform !== 0 && !(platform === 3 && (encoding === 1 || encoding === 10))) continue;
    const format = buf.readUInt16BE(at);
    if (format === 12) {
      const groups = buf.readUInt32BE(at + 12);
      return (cp) => {
        for (let g = 0; g < groups; g++) {
          const o = at + 16 + g * 12;
          const start = buf.readUInt32BE(o);
          if (cp >= start && cp <= buf.readUInt32BE(o + 4)) return buf.readUInt32BE(o + 8) + cp - start;
        }
        return 0;
      };
    }
    if (format === 4) format4 ??= at;
  }
  if (format4 === null) return null;
  const at = format4;
  const segments = buf.readUInt16BE(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const offsets = deltas + 2 * segments;
  return (cp) => {
    if (cp > 0xffff) return 0;
    for (let s = 0; s < segments; s++) {
      if (cp > buf.readUInt16BE(ends + 2 * s)) continue;
      const start = buf.readUInt16BE(starts + 2 * s);
      if (cp < start) return 0;
      const delta = buf.readUInt16BE(deltas + 2 * s);
      const offset = buf.readUInt16BE(offsets + 2 * s);
      if (offset === 0) return (cp + delta) & 0xffff;
      const g = buf.readUInt16BE(offsets + 2 * s + offset + 2 * (cp - start));
      return g === 0 ? 0 : (g + delta) & 0xffff;
    }
    return 0;
  };
}

const cache = new Map<string, Metrics | null>();

function metricsOf(file: string): Metrics | null {
  if (!cache.has(file)) {
    let m: Metrics | null = null;
    try {
      m = readMetrics(file);
    } catch {
      m = null;
    }
    cache.set(file, m);
  }
  return cache.get(file)!;
}

/** East Asian wide characters, emoji and the like: about one em wide in most fonts. */
const wide = (cp: number) =>
  (cp >= 0x1100 && cp <= 0x115f) ||
  (cp >= 0x2e80 && cp <= 0xa4cf) ||
  (cp >= 0xac00 && cp <= 0xd7a3) ||
  (cp >= 0xf900 && cp <= 0xfaff) ||
  (cp >= 0xfe30 && cp <= 0xfe4f) ||
  (cp >= 0xff00 && cp <= 0xff60) ||
  (cp >= 0x1f300 && cp <= 0x1faff) ||
  (cp >= 0x20000 && cp <= 0x3fffd);

/** Without the font's metrics: 0.62 em a character, one em for wide ones (DejaVu Sans averages 0.6). */
export const estimate: Measure = (text, fontSize) => {
  let em = 0;
  for (const ch of text) em += wide(ch.codePointAt(0)!) ? 1 : 0.62;
  return Math.ceil(em * fontSize);
};

/**
 * The measure of a font file: drawtext's advance for each code point (its hinted advance is whole
 * pixels, so each glyph's is rounded), summed; an estimate when the file cannot be read.
 */
export function measureWith(file: string | null): Measure {
  const m = file ? metricsOf(file) : null;
  if (!m) return estimate;
  return (text, fontSize) => {
    let px = 0;
    for (const ch of text) px += Math.round((m.advance(ch.codePointAt(0)!) * fontSize) / m.unitsPerEm);
    return px;
  };
}

/**
 * How many of a text's characters a font file has glyphs for (spaces count as had); null when it
 * cannot be read or has no outlines drawtext can draw.
 */
export function coverage(file: string, text: string): number | null {
  const m = metricsOf(file);
  if (!m || !m.outlines) return null;
  let n = 0;
  for (const ch of text) if (/\s/.test(ch) || m.has(ch.codePointAt(0)!)) n += 1;
  return n;
}
