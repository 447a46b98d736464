import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coverage, measureWith } from '../src/modules/exports/font-metrics.js';
import { fontFor, nameFont } from '../src/modules/exports/fonts.js';
import { buildGraph } from '../src/modules/exports/graph.js';
import {
  CANVAS,
  gridRects,
  presenterAreas,
  presenterComposition,
  type Orientation,
} from '../src/modules/exports/layout.js';
import { cleanLabel, LABEL_MAX, nameBar, type NameBar } from '../src/modules/exports/name-bar.js';
import { render } from '../src/modules/exports/render.js';
import type { Scan, ScannedTrack } from '../src/modules/exports/scan.js';
import type { TrackFormat } from '../src/modules/exports/codecs.js';
import { createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { exportTo } from './support/exports.js';
import { ffmpeg, FFMPEG, recordSession, solidJpeg, type Planned } from './support/media.js';

const FONT = nameFont();
const measure = measureWith(FONT);
/** How wide the render draws a name: in the font it picks for it (another than FONT when FONT lacks some of its characters). */
const measureOf = (name: string) => measureWith(FONT && fontFor(name, FONT));
const S = 1_000_000;
const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)];

describe('name bars, without ffmpeg', () => {
  /** Every tile size an export can have: grids of 1 to 12, presenter tiles and strips of 1 to 11. */
  const tiles = (o: Orientation) => {
    const area = { x: 0, y: 0, w: CANVAS[o].width, h: CANVAS[o].height };
    const out = [];
    for (let n = 1; n <= 12; n++) {
      out.push(...gridRects(area, n));
      const p = presenterAreas(o, n - 1);
      out.push(p.main, ...gridRects(p.strip, n - 1));
    }
    return out;
  };

  it('fits on every tile: inside a 4:3 picture of it, its text within the bar, larger on larger tiles', () => {
    const name = 'Ana María Fernández de la Cruz y Vásquez';
    for (const o of ['landscape', 'vertical'] as const)
      for (const r of tiles(o)) {
        const b = nameBar(r.w, r.h, name, measure)!;
        const at = `${o} ${r.w}x${r.h}`;
        expect(b, at).not.toBeNull();
        const pictureH = Math.min(r.h, (r.w * 9) / 16);
        expect(b.x + b.w, at).toBeLessThanOrEqual(Math.min(r.w, (r.h * 4) / 3));
        expect(b.bottom + b.h, at).toBeLessThan(pictureH);
        expect(b.fontSize, at).toBeGreaterThanOrEqual(12);
        expect(b.fontSize, at).toBeLessThanOrEqual(24);
        expect(b.padX + measure(b.text, b.fontSize), at).toBeLessThanOrEqual(b.w);
        expect(
          [b.x, b.bottom, b.w, b.h].every((n) => n % 2 === 0),
          `${at}: even for yuv420p`,
        ).toBe(true);
        // Cut only where it has to be, and then with an ellipsis.
        if (b.text !== name) {
          expect(b.text.endsWith('…'), at).toBe(true);
          expect(name.startsWith(b.text.slice(0, -1)), at).toBe(true);
        }
      }
    const small = nameBar(312, 176, 'Ana', measure)!;
    const large = nameBar(960, 720, 'Ana', measure)!;
    expect(small.fontSize).toBe(12);
    expect(large.fontSize).toBe(24);
    expect(large.h).toBeGreaterThan(small.h);
  });

  it('cuts a label to 40 characters without splitting one, and keeps it on one line', () => {
    const family = '👨‍👩‍👧';
    const long = `${'é'.repeat(38)}${family}${family}xyz`;
    const b = nameBar(1280, 720, long, () => 0)!;
    expect(graphemes(b.text)).toHaveLength(LABEL_MAX);
    expect(b.text).toBe(`${'é'.repeat(38)}${family}…`);
    expect(nameBar(1280, 720, 'Ana\nMaría\t\u2028Pérez', measure)!.text).toBe('Ana María Pérez');
    expect(nameBar(1280, 720, '\n\t', measure)).toBeNull();
  });

  it('draws a name in the main font when it has every character, else in the installed font that has most', () => {
    expect(FONT, 'a TrueType font is installed (fonts-dejavu-core)').not.toBeNull();
    const font = FONT!;
    expect(fontFor('Ana María Zoë Ölund', font)).toBe(font);
    expect(coverage(font, 'Ana María')).toBe(9);
    for (const name of ['山田 太郎', 'Ana 🎉']) {
      const chosen = fontFor(name, font);
      expect(coverage(chosen, name)!).toBeGreaterThanOrEqual(coverage(font, name)!);
      // Its widths are its own: a CJK font's ideographs are one em wide.
      if (chosen !== font && coverage(chosen, name) === [...name].length)
        expect(measureWith(chosen)('山田', 20)).toBe(40);
    }
    // A character no font has: the main font, whose box for it is measured too.
    expect(fontFor('\u{10FFFD}', font)).toBe(font);
    expect(measure('a\u{10FFFD}', 20)).toBeGreaterThan(measure('a', 20));
  });

  /** Cameras on for the whole 10 s, focus alice → bob at 4 s; display names for two of three. */
  const scan: Scan = {
    epochMs: 0,
    spanUs: 10 * S,
    tracks: ['alice', 'bob', 'carol'].map((u): ScannedTrack => ({
      streamId: `media/${u}/cam`,
      userId: u,
      kind: 'cam',
      format: { codec: 'mjpeg', evc1: false } as TrackFormat,
      frames: 150,
      firstUs: 0,
      lastUs: 10 * S,
      on: [[0, 10 * S]],
    })),
    focus: [{ atUs: 4 * S, userId: 'bob' }],
    presence: [],
    names: new Map([
      ['alice', "Ana O'Neil: 100%, \\n {x}"],
      ['bob', '山田 太郎'],
    ]),
  };
  const fontOf = () => ({ font: 'fontfile=font.ttf', measure });
  const opts = { fps: 15, frames: 151, durationUs: 151 * (S / 15), fontOf };

  it('drops direction controls from a name, so that it reverses nothing drawn after it; letters keep their own direction', () => {
    // U+202E in a name turned "Eve (screen)" into "Eve )neercs(" on the screen-share tile.
    for (const c of [
      '\u202e',
      '\u202d',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200e',
      '\u200f',
      '\u061c',
    ])
      expect(cleanLabel(`${c}Eve${c} (screen)`), `U+${c.codePointAt(0)!.toString(16)}`).toBe('Eve (screen)');
    expect(cleanLabel('שלום (screen)')).toBe('שלום (screen)');
    expect(nameBar(640, 360, '\u202eEve (screen)', measure)!.text).toBe('Eve (screen)');
  });

  it('gives every tile with video the bar of whoever it shows, as a file, never in the graph', () => {
    const comp = presenterComposition(scan, 'landscape', scan.spanUs, undefined);
    const graph = buildGraph(comp, scan, opts);
    // alice and bob each have a large tile and a strip tile (one at a time); carol a strip tile.
    expect(comp.groups.length).toBe(5);
    comp.groups.forEach((g, i) => {
      const label = ["Ana O'Neil: 100%, \\n {x}", '山田 太郎', 'carol'][g.subject]!;
      expect(graph.files.get(`bar-${i}.txt`), `tile ${i}`).toBe(label);
      // The bar is overlaid onto the tile's own scaled video, before it is padded and placed.
      expect(graph.script).toMatch(
        new RegExp(`\\[p${i}\\]\\[b${i}\\]overlay=x=\\d+:y=main_h-overlay_h-\\d+,pad=`),
      );
      expect(graph.script).toContain(`textfile=bar-${i}.txt:expansion=none`);
    });
    for (const text of ["O'Neil", '100%', '山田']) expect(graph.script).not.toContain(text);

    const off = buildGraph(comp, scan, { ...opts, names: false });
    expect([...off.files.keys()].filter((f) => f.startsWith('bar-'))).toEqual([]);
    expect(off.script).not.toContain('bar-');
    // The camera-off tiles keep their names either way.
    expect([...off.files.keys()].filter((f) => f.startsWith('label-'))).toHaveLength(3);
  });
});

/** One frame of an MP4, at full size, as luma (0–255 per pixel). */
async function lumaAt(
  file: string,
  seconds: number,
  width: number,
): Promise<(x: number, y: number) => number> {
  const { stdout } = await ffmpeg([
    '-ss',
    String(seconds),
    '-i',
    file,
    '-frames:v',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    '-',
  ]);
  return (x, y) => stdout[Math.round(y) * width + Math.round(x)]!;
}

type Luma = (x: number, y: number) => number;
interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
const pixels = (f: Luma, b: Box) => {
  const out: number[] = [];
  for (let y = b.y; y < b.y + b.h; y++) for (let x = b.x; x < b.x + b.w; x++) out.push(f(x, y));
  return out;
};
const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
/** Mean absolute difference of two frames over a box. */
const diff = (f: Luma, g: Luma, b: Box) => {
  const a = pixels(f, b);
  const c = pixels(g, b);
  return mean(a.map((v, i) => Math.abs(v - c[i]!)));
};

describe('name bars in rendered exports', () => {
  let t: TestApp;
  let a: Tenant;
  const dir = mkdtempSync(join(tmpdir(), 'vss-names-'));

  /**
   * Two participants with the same grey 320x240 camera (15 fps, 2 s), so that their tiles differ
   * only by their bars; alice hands the focus to bob at 1 s.
   */
  async function record(names: Record<string, string>): Promise<string> {
    const grey = await solidJpeg('0x808080');
    const plan: Planned[] = [];
    for (let k = 0; k < 30; k++)
      for (const user of ['alice', 'bob'])
        plan.push({ user, atMs: Math.round((k * 1000) / 15), stream: `media/${user}/cam`, payload: grey });
    plan.push({
      user: 'alice',
      atMs: 1000,
      stream: 'director',
      director: { type: 'director.focus', data: { user_id: 'bob' } },
    });
    const s = await createSession(t, a.key, 'names');
    await recordSession(t, a.key, s.id, plan, names);
    return s.id;
  }

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
  }, 60_000);
  afterAll(async () => t?.close());

  /**
   * The grid of two: tiles of 636x720, 8 px apart, each camera's 4:3 picture fitted to 636x476
   * (y 122 to 598); the bar on the picture's bottom-left corner.
   */
  const PICTURE = { y: 122, w: 636, h: 476 };
  const tileX = [0, 644];
  const barBox = (b: NameBar, tile: number): Box => ({
    x: tileX[tile]! + b.x,
    y: PICTURE.y + PICTURE.h - b.bottom - b.h,
    w: b.w,
    h: b.h,
  });
  /** The picture above the bars. */
  const above = (tile: number): Box => ({ x: tileX[tile]! + 4, y: PICTURE.y + 4, w: 620, h: 380 });

  it('draws each participant’s display name on their tile: a dark bar with text, different per name, absent when switched off', async () => {
    const names = { alice: 'Ana María', bob: '山田 太郎' };
    const first = await record(names);
    const second = await record({ alice: 'Zoë Ölund-Berg', bob: 'Li Wei' });
    const withNames = join(dir, 'names.mp4');
    const others = join(dir, 'other-names.mp4');
    const without = join(dir, 'no-names.mp4');
    await exportTo(t, a.key, first, withNames);
    await exportTo(t, a.key, second, others);
    // The same recording through the render's own switch, without bars.
    await render(t.runtime.streams, {
      sessionId: first,
      layout: 'grid',
      orientation: 'landscape',
      focus: null,
      output: without,
      workDir: join(dir, 'work'),
      ffmpeg: FFMPEG,
      font: nameFont(),
      names: false,
      signal: new AbortController().signal,
    });
    const [on, other, off] = (await Promise.all(
      [withNames, others, without].map((f) => lumaAt(f, 1.5, 1280)),
    )) as [Luma, Luma, Luma];
    const bars = [
      nameBar(636, 720, names.alice, measureOf(names.alice))!,
      nameBar(636, 720, names.bob, measureOf(names.bob))!,
    ];
    for (const tile of [0, 1]) {
      const box = barBox(bars[tile]!, tile);
      const camera = mean(pixels(off, box));
      const bar = pixels(on, box);
      // Darker than the camera there, with bright text on it.
      expect(camera).toBeGreaterThan(100);
      expect(mean(bar), `tile ${tile}`).toBeLessThan(camera * 0.75);
      expect(Math.max(...bar), `tile ${tile}`).toBeGreaterThan(200);
      expect(Math.min(...bar), `tile ${tile}`).toBeLessThan(70);
      // The bar ends where the name does: dark just inside its right edge (above the text), the camera just past it.
      const row = box.y + 2;
      expect(on(box.x + box.w - 3, row), `tile ${tile}`).toBeLessThan(80);
      expect(on(box.x + box.w + 3, row), `tile ${tile}`).toBeGreaterThan(100);
      // The picture above is the camera's, bar or not, whatever the names.
      expect(diff(on, off, above(tile))).toBeLessThan(1.5);
      expect(diff(on, other, above(tile))).toBeLessThan(1.5);
      // Other display names (same user ids), other bars.
      expect(diff(on, other, box), `tile ${tile}`).toBeGreaterThan(10);
    }
    // The two tiles show the same picture and different names.
    const both: Box = {
      x: 0,
      y: barBox(bars[0]!, 0).y,
      w: Math.max(bars[0]!.w, bars[1]!.w) + 8,
      h: bars[0]!.h,
    };
    const shifted: Luma = (x, y) => on(x + tileX[1]!, y);
    expect(diff(on, shifted, both)).toBeGreaterThan(10);
    expect(diff(on, shifted, above(0))).toBeLessThan(1.5);
  }, 90_000);

  /** Where a bar's dark run along `row` ends, from `x` on: its width. */
  const runWidth = (f: Luma, x: number, row: number) => {
    let w = 0;
    while (w < 1000 && f(x + w, row) < 90) w += 1;
    return w;
  };

  it('moves the bars with the tiles when the presenter changes: each tile says who it shows at that moment', async () => {
    const names = { alice: 'Ana María Fernández', bob: '山田 太郎' };
    const session = await record(names);
    const file = join(dir, 'presenter.mp4');
    await exportTo(t, a.key, session, file, '?layout=presenter');
    // The large tile (960x720) holds a 4:3 picture exactly; the strip's one tile (312x720 at
    // x = 968) a 312x234 picture at y = 243.
    const main = { x: 0, bottom: 720 };
    const strip = { x: 968, bottom: 243 + 234 };
    const widths = (tile: { x: number; bottom: number }, w: number, h: number, f: Luma) =>
      (['alice', 'bob'] as const).map((u) => {
        const b = nameBar(w, h, names[u], measureOf(names[u]))!;
        return { expected: b.w, seen: runWidth(f, tile.x + b.x, tile.bottom - b.bottom - b.h + 2) };
      });
    for (const [at, large] of [
      [0.5, 0],
      [1.5, 1],
    ] as const) {
      const f = await lumaAt(file, at, 1280);
      const m = widths(main, 960, 720, f);
      const s = widths(strip, 312, 720, f);
      expect(Math.abs(m[0]!.expected - m[1]!.expected)).toBeGreaterThan(10);
      expect(Math.abs(s[0]!.expected - s[1]!.expected)).toBeGreaterThan(10);
      // The large tile's bar is the large participant's, the strip's the other's.
      expect(Math.abs(m[large]!.seen - m[large]!.expected), `large tile at ${at} s`).toBeLessThanOrEqual(2);
      expect(Math.abs(s[1 - large]!.seen - s[1 - large]!.expected), `strip at ${at} s`).toBeLessThanOrEqual(
        2,
      );
    }
  }, 60_000);

  it('shows names holding quotes, colons, backslashes, commas, %{…} and emoji as they are', async () => {
    const names = { alice: "O'Brien: a\\b, 100%{pts} 🎉", bob: '[x];y=1,"q" \\%% \\\'' };
    const session = await record(names);
    const file = join(dir, 'odd-names.mp4');
    await exportTo(t, a.key, session, file);
    const early = await lumaAt(file, 0.3, 1280);
    const late = await lumaAt(file, 1.7, 1280);
    for (const [tile, u] of (['alice', 'bob'] as const).entries()) {
      const b = nameBar(636, 720, names[u], measureOf(names[u]))!;
      expect(b.text).toBe(names[u]);
      const box = barBox(b, tile);
      // A bar with text, the same in every frame (an expanded %{pts} would count the time)...
      expect(mean(pixels(late, box))).toBeLessThan(90);
      expect(Math.max(...pixels(late, box))).toBeGreaterThan(200);
      expect(diff(early, late, box), u).toBeLessThan(1.5);
      // ...and its text as wide as the name's own characters drawn one by one.
      let right = box.x + box.w - 1;
      while (right > box.x && Math.max(...pixels(late, { x: right, y: box.y, w: 1, h: box.h })) < 170)
        right -= 1;
      const expected = box.x + b.padX + measureOf(names[u])(b.text, b.fontSize);
      expect(right, u).toBeGreaterThanOrEqual(expected - 6);
      expect(right, u).toBeLessThanOrEqual(expected + 1);
    }
  }, 60_000);
});
