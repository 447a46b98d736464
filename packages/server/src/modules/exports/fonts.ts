import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { extname, join } from 'node:path';
import { coverage, estimate, measureWith, type Measure } from './font-metrics.js';

const FONT_NAMES = [
  'DejaVuSans.ttf',
  'LiberationSans-Regular.ttf',
  'NotoSans-Regular.ttf',
  'FreeSans.ttf',
  'Arial.ttf',
  'Helvetica.ttc',
];
const FONT_DIRS = ['/usr/share/fonts', '/usr/local/share/fonts', '/System/Library/Fonts', '/Library/Fonts'];

function find(dir: string, depth: number, accept: (name: string) => boolean): string | null {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) if (e.isFile() && accept(e.name)) return join(dir, e.name);
  if (depth === 0) return null;
  for (const e of entries)
    if (e.isDirectory()) {
      const hit = find(join(dir, e.name), depth - 1, accept);
      if (hit) return hit;
    }
  return null;
}

let font: string | null | undefined;

/**
 * A TrueType font file for the name tiles: a common sans-serif one if installed, else any .ttf.
 * Null when there is none (drawtext then asks fontconfig for "Sans"). Given to drawtext as a file
 * so that the static ffmpeg's own fontconfig, older than most systems' configuration, is not used.
 */
export function nameFont(): string | null {
  if (font !== undefined) return font;
  font = null;
  for (const name of FONT_NAMES) {
    for (const dir of FONT_DIRS) {
      if (!existsSync(dir)) continue;
      const hit = find(dir, 4, (n) => n === name);
      if (hit) return (font = hit);
    }
  }
  for (const dir of FONT_DIRS) {
    const hit = find(dir, 4, (n) => n.toLowerCase().endsWith('.ttf'));
    if (hit) return (font = hit);
  }
  return font;
}

let files: string[] | undefined;

/** Every font file drawtext can use in the font directories (once per process), in path order. */
function fontFiles(): string[] {
  if (files) return files;
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory() && depth > 0) walk(path, depth - 1);
      else if (e.isFile() && /\.(ttf|otf|ttc)$/i.test(e.name)) out.push(path);
    }
  };
  for (const dir of FONT_DIRS) walk(dir, 4);
  return (files = out.sort());
}

/**
 * The font file a text is drawn in: `primary` when it has a glyph for every character, else the
 * installed font that has glyphs for the most of them (a CJK font for a name in Japanese, say),
 * `primary` again when none has more. drawtext draws with one font, and a box for each character
 * the font lacks.
 */
export function fontFor(text: string, primary: string): string {
  const total = [...text].length;
  const own = coverage(primary, text);
  if (own === null || own === total) return primary;
  let best = { file: primary, n: own };
  for (const file of fontFiles()) {
    const n = coverage(file, text);
    if (n !== null && n > best.n) best = { file, n };
    if (best.n === total) break;
  }
  return best.file;
}

/**
 * The fonts of one ffmpeg graph: for a text, drawtext's option naming the font it is drawn in (the
 * one `fontFor` picks, linked into `workDir` under a plain name, so that the graph names files
 * relative to ffmpeg's working directory and no path is ever escaped) and how wide it draws it.
 * Without `primary`, fontconfig's Sans and an estimate.
 */
export function graphFonts(
  primary: string | null,
  workDir: string,
): (text: string) => { font: string; measure: Measure } {
  const linked = new Map<string, string>();
  return (text) => {
    if (!primary) return { font: 'font=Sans', measure: estimate };
    const file = fontFor(text, primary);
    let name = linked.get(file);
    if (name === undefined) {
      name = `font-${linked.size}${extname(file)}`;
      symlinkSync(file, join(workDir, name));
      linked.set(file, name);
    }
    return { font: `fontfile=${name}`, measure: measureWith(file) };
  };
}
