import { encodeEvc1 } from '@vss/protocol';
import { describe, expect, it } from 'vitest';
import { MediaError, formatOf } from '../src/modules/exports/codecs.js';
import {
  CANVAS,
  GAP,
  gridRects,
  presenterAreas,
  presenterComposition,
  type Composition,
  type Rect,
} from '../src/modules/exports/layout.js';
import type { Scan, ScannedTrack } from '../src/modules/exports/scan.js';
import type { TrackFormat } from '../src/modules/exports/codecs.js';
import { MKV_FRAME_HEADER_BYTES, mkvFrameHeader, mkvHeader } from '../src/modules/exports/matroska.js';
import { byteRange } from '../src/modules/exports/routes.js';

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (r: Rect, area: Rect) =>
  r.x >= area.x && r.y >= area.y && r.x + r.w <= area.x + area.w && r.y + r.h <= area.y + area.h;

describe('export layout, without ffmpeg', () => {
  it('places n grid tiles inside the canvas, apart, with even sizes, one tile filling a 16:9 canvas', () => {
    for (const orientation of ['landscape', 'vertical'] as const) {
      const area = { x: 0, y: 0, w: CANVAS[orientation].width, h: CANVAS[orientation].height };
      for (let n = 1; n <= 9; n++) {
        const rects = gridRects(area, n);
        expect(rects).toHaveLength(n);
        for (const [i, r] of rects.entries()) {
          expect(inside(r, area), `${orientation} ${n} tile ${i}`).toBe(true);
          expect((r.w % 2) + (r.h % 2), 'even sizes for the encoder').toBe(0);
          for (const other of rects.slice(i + 1)) expect(overlaps(r, other)).toBe(false);
        }
      }
    }
    expect(gridRects({ x: 0, y: 0, w: 1280, h: 720 }, 1)).toEqual([{ x: 0, y: 0, w: 1280, h: 720 }]);
    // Four on a landscape canvas: two by two, GAP apart.
    const four = gridRects({ x: 0, y: 0, w: 1280, h: 720 }, 4);
    expect(new Set(four.map((r) => r.x)).size).toBe(2);
    expect(new Set(four.map((r) => r.y)).size).toBe(2);
    expect(four[1]!.x - (four[0]!.x + four[0]!.w)).toBe(GAP);
    expect(gridRects({ x: 0, y: 0, w: 1280, h: 720 }, 0)).toEqual([]);
  });

  it('gives the presenter a large tile and the others a strip beside it (landscape) or below it (vertical)', () => {
    const l = presenterAreas('landscape', 3);
    expect(l.main).toEqual({ x: 0, y: 0, w: 960, h: 720 });
    expect(l.strip.x).toBe(960 + GAP);
    expect(l.strip.x + l.strip.w).toBe(1280);
    const v = presenterAreas('vertical', 3);
    expect(v.main).toEqual({ x: 0, y: 0, w: 720, h: 960 });
    expect(v.strip.y).toBe(960 + GAP);
    expect(v.strip.y + v.strip.h).toBe(1280);
    // Alone, the presenter has the whole canvas.
    expect(presenterAreas('landscape', 0).main).toEqual({ x: 0, y: 0, w: 1280, h: 720 });
  });
});

const S = 1_000_000;

/** A scan of cameras on the whole time of the export (µs), with these joins, leaves and focus commands. */
function scanOf(users: string[], presence: Scan['presence'], focus: Scan['focus'] = []): Scan {
  const tracks: ScannedTrack[] = users.map((u) => ({
    streamId: `media/${u}/cam`,
    userId: u,
    kind: 'cam',
    format: { codec: 'mjpeg', evc1: false } as TrackFormat,
    frames: 100,
    firstUs: 0,
    lastUs: 10 * S,
    on: [[0, 10 * S]],
  }));
  return { epochMs: 0, spanUs: 10 * S, tracks, focus, presence, names: new Map() };
}

/** Whose tile is large (the presenter's main area) at `t`, in each second of the export. */
function largeBySecond(c: Composition): string[] {
  const out: string[] = [];
  for (let t = 0; t < 10 * S; t += S) {
    const large = c.groups.filter(
      (g) => g.w === 960 && (g.spans === null || g.spans.some((p) => p.fromUs <= t && t < p.toUs)),
    );
    expect(large, `one large tile at ${t / S} s`).toHaveLength(1);
    out.push(c.subjects[large[0]!.subject]!.userId);
  }
  return out;
}

describe('the presenter export when the focus leaves', () => {
  const joined = (u: string, atUs = 0) => ({ atUs, userId: u, present: true });
  const left = (u: string, atUs: number) => ({ atUs, userId: u, present: false });

  it('shows the first participant still present large while the director’s focus is gone, and the focus again once back', () => {
    const scan = scanOf(
      ['alice', 'bob', 'carol'],
      [
        joined('alice'),
        joined('bob'),
        joined('carol'),
        left('bob', 3 * S),
        left('alice', 4.5 * S),
        joined('bob', 7 * S),
      ],
      [{ atUs: 1 * S, userId: 'bob' }],
    );
    const c = presenterComposition(scan, 'landscape', scan.spanUs, undefined);
    expect(largeBySecond(c)).toEqual([
      'alice',
      'bob',
      'bob',
      'alice', // bob left at 3 s: alice, the first one present
      'alice',
      'carol', // alice left too
      'carol',
      'bob', // bob is back, and still the focus
      'bob',
      'bob',
    ]);
    // The strip never holds the large tile's subject.
    for (const g of c.groups.filter((g) => g.w !== 960))
      for (const p of g.spans ?? [])
        for (const l of c.groups.filter((x) => x.w === 960 && x.subject === g.subject))
          for (const q of l.spans ?? []) expect(p.toUs <= q.fromUs || q.toUs <= p.fromUs).toBe(true);
  });

  it('treats a focus asked for the export the same way, and keeps the focus when the recording tells nobody’s presence', () => {
    const scan = scanOf(['alice', 'bob'], [joined('alice'), joined('bob'), left('bob', 2 * S)]);
    expect(largeBySecond(presenterComposition(scan, 'landscape', scan.spanUs, 'bob'))).toEqual([
      'bob',
      'bob',
      ...Array(8).fill('alice'),
    ]);
    const silent = scanOf(['alice', 'bob'], [], [{ atUs: 1 * S, userId: 'bob' }]);
    expect(largeBySecond(presenterComposition(silent, 'landscape', silent.spanUs, undefined))).toEqual([
      'alice',
      ...Array(9).fill('bob'),
    ]);
  });
});

describe('the Matroska writer', () => {
  it('starts with the EBML header and an unknown-size segment, and names the codec', () => {
    const head = mkvHeader({ type: 'video', codecId: 'V_VP8', width: 640, height: 480 });
    expect(head.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    expect(head.includes(Buffer.from('matroska'))).toBe(true);
    expect(head.includes(Buffer.from('V_VP8'))).toBe(true);
    const segment = head.indexOf(Buffer.from('18538067', 'hex'));
    expect(head.subarray(segment + 4, segment + 12).toString('hex')).toBe('01ffffffffffffff');
  });

  it('frames each frame in a cluster with its timestamp, its size and the key flag', () => {
    const h = mkvFrameHeader(1_234_567, true, 1000);
    expect(h.length).toBe(MKV_FRAME_HEADER_BYTES);
    expect(h.readUInt32BE(0).toString(16)).toBe('1f43b675'); // Cluster
    expect(Number(h.readBigUInt64BE(14))).toBe(1_234_567); // µs: the timescale is 1000 ns
    expect(h[34]).toBe(0x80);
    expect(mkvFrameHeader(0, false, 10)[34]).toBe(0);
    // The cluster's size covers its timestamp, the block header and the frame.
    expect(h.readUInt32BE(8)).toBe(10 + 1 + 8 + 4 + 1000);
  });
});

describe('codec detection', () => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0xff, 0xd9]);
  const chunk = (
    codec: string,
    key: boolean,
    description = new Uint8Array(),
    data = new Uint8Array([1, 2, 3]),
  ) => encodeEvc1({ key, codec, timestampUs: 0, durationUs: 20_000, description, data });

  it('reads MJPEG and EVC1 video from their first key frame, and refuses audio codecs on a camera', () => {
    expect(formatOf('media/a/cam', 'cam', jpeg)?.codec).toBe('mjpeg');
    expect(formatOf('media/a/cam', 'cam', chunk('vp8', true))?.mkv.codecId).toBe('V_VP8');
    expect(formatOf('media/a/cam', 'cam', chunk('vp09.00.10.08', true))?.mkv.codecId).toBe('V_VP9');
    expect(formatOf('media/a/screen', 'screen', chunk('avc1.42c00c', true))?.mkv.codecId).toBe(
      'V_MPEG4/ISO/AVC',
    );
    expect(formatOf('media/a/cam', 'cam', chunk('vp8', false))).toBeUndefined();
    expect(formatOf('media/a/cam', 'cam', Buffer.from('not media'))).toBeUndefined();
    expect(formatOf('media/a/mic', 'mic', jpeg)).toBeUndefined();
  });

  it('reads opus and pcm-s16 audio, with channels, and refuses a pcm-s16 description it cannot use', () => {
    const stereo = formatOf(
      'media/a/mic',
      'mic',
      chunk('opus', true, new Uint8Array(), new Uint8Array([0x04])),
    );
    expect(stereo?.mkv).toMatchObject({ codecId: 'A_OPUS', channels: 2, sampleRate: 48_000 });
    const pcm = new TextEncoder().encode(JSON.stringify({ sampleRate: 16_000, numberOfChannels: 1 }));
    expect(formatOf('media/a/mic', 'mic', chunk('pcm-s16', true, pcm))?.mkv).toMatchObject({
      codecId: 'A_PCM/INT/LIT',
      sampleRate: 16_000,
      channels: 1,
      bitDepth: 16,
    });
    const bad = new TextEncoder().encode(JSON.stringify({ sampleRate: 1, numberOfChannels: 1 }));
    expect(() => formatOf('media/a/mic', 'mic', chunk('pcm-s16', true, bad))).toThrow(MediaError);
    expect(() => formatOf('media/a/mic', 'mic', chunk('pcm-s16', true, bad))).toThrow(/sampleRate/);
  });
});

describe('byte ranges of a download', () => {
  it('answers the range a Range header asks for, the whole file for what it ignores, 416 past the end', () => {
    expect(byteRange(undefined, 100)).toBeNull();
    expect(byteRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(byteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
    expect(byteRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    // Malformed, several ranges, or backwards: ignored (the whole file), as RFC 9110 says.
    expect(byteRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(byteRange('items=0-1', 100)).toBeNull();
    expect(byteRange('bytes=9-1', 100)).toBeNull();
    expect(() => byteRange('bytes=100-', 100)).toThrow(/outside the file/);
    expect(() => byteRange('bytes=-0', 100)).toThrow(/outside the file/);
  });
});
