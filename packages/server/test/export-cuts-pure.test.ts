import { encodeEvc1 } from '@vss/protocol';
import { describe, expect, it } from 'vitest';
import type { TrackFormat } from '../src/modules/exports/codecs.js';
import { cutsOf, offWhilePaused } from '../src/modules/exports/cuts.js';
import { TrackFramer } from '../src/modules/exports/track-framer.js';

/** The export's clock around a paused span, without ffmpeg: frames placed by TrackFramer. */

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0xff, 0xd9]);
const MJPEG: TrackFormat = { codec: 'mjpeg', evc1: false, mkv: { type: 'video', codecId: 'V_MJPEG' } };
const PCM: TrackFormat = {
  codec: 'pcm-s16',
  evc1: true,
  mkv: { type: 'audio', codecId: 'A_PCM/INT/LIT', sampleRate: 16_000, channels: 1, bitDepth: 16 },
};
const VP8: TrackFormat = { codec: 'vp8', evc1: true, mkv: { type: 'video', codecId: 'V_VP8' } };

const chunk = (codec: string, timestampUs: number, key = true) =>
  encodeEvc1({
    key,
    codec,
    timestampUs,
    durationUs: 20_000,
    description: new Uint8Array(0),
    data: new Uint8Array(4),
  });

/** Paused from 10 s to 12 s of a session whose clock starts at 0. */
const PAUSED = [{ start: 10_000, end: 12_000 }];

describe("the export's clock with a paused span", () => {
  it('takes the paused time off every frame after it, and puts a frame stamped inside it at its start', () => {
    const f = new TrackFramer(MJPEG, 0, cutsOf(PAUSED, false));
    expect(f.frame(9_000, JPEG)!.atUs).toBe(9_000_000);
    expect(f.frame(11_000, JPEG)!.atUs).toBe(10_000_000);
    expect(f.frame(12_500, JPEG)!.atUs).toBe(10_500_000);
    // Kept, the session's own clock.
    expect(new TrackFramer(MJPEG, 0, cutsOf(PAUSED, true)).frame(12_500, JPEG)!.atUs).toBe(12_500_000);
  });

  it("keeps an encoder's timing across the cut, less exactly the paused time", () => {
    const f = new TrackFramer(PCM, 0, cutsOf(PAUSED, false));
    expect(f.frame(9_980, chunk('pcm-s16', 9_980_000))!.atUs).toBe(9_980_000);
    // The encoder ran on through the pause; the message was stamped 3 ms late.
    expect(f.frame(12_003, chunk('pcm-s16', 12_000_000))!.atUs).toBe(10_000_000);
    expect(f.frame(12_019, chunk('pcm-s16', 12_020_000))!.atUs).toBe(10_020_000);
    const kept = new TrackFramer(PCM, 0, cutsOf(PAUSED, true));
    kept.frame(9_980, chunk('pcm-s16', 9_980_000));
    expect(kept.frame(12_003, chunk('pcm-s16', 12_000_000))!.atUs).toBe(12_000_000);
  });

  it('waits for a key frame after a paused span: the frames a delta frame needs were not stored', () => {
    for (const keepGaps of [false, true]) {
      const f = new TrackFramer(VP8, 0, cutsOf(PAUSED, keepGaps));
      expect(f.frame(9_900, chunk('vp8', 9_900_000))).toBeDefined();
      expect(f.frame(9_966, chunk('vp8', 9_966_000, false))).toBeDefined();
      expect(f.frame(12_033, chunk('vp8', 12_033_000, false))).toBeUndefined();
      expect(f.frame(12_100, chunk('vp8', 12_100_000, false))).toBeUndefined();
      expect(f.frame(12_166, chunk('vp8', 12_166_000, true))!.atUs).toBe(keepGaps ? 12_166_000 : 10_166_000);
      expect(f.frame(12_233, chunk('vp8', 12_233_000, false))).toBeDefined();
    }
  });

  it('turns a video off for the whole of each paused span when the spans are kept', () => {
    const cuts = cutsOf([...PAUSED, { start: 14_000, end: null }], true);
    expect(offWhilePaused([[0, 13_000_000]], cuts, 0)).toEqual([
      [0, 10_000_000],
      [12_000_000, 13_000_000],
    ]);
    // Time 0 at 1 s of the session; the second span never ended.
    expect(offWhilePaused([[12_000_000, 15_000_000]], cuts, 1_000)).toEqual([[12_000_000, 13_000_000]]);
  });
});
