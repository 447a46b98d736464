import { decodeEvc1, isEvc1, isJpeg } from '@vss/protocol';
import type { TrackFormat } from './codecs.js';
import { NO_CUTS, pausedBetween, type Cuts } from './cuts.js';

/** One frame ready for the Matroska writer: its time on the export's clock, and its bytes. */
export interface Frame {
  /** µs since the export's epoch */
  atUs: number;
  key: boolean;
  data: Uint8Array;
}

/** An EVC1 timestamp further than this from the recorded time means the encoder restarted. */
const REANCHOR_US = 2_000_000;

/**
 * Turns a track's recorded payloads into frames on the export's clock, in recorded order.
 * MJPEG frames sit at their recorded time. EVC1 chunks carry the encoder's own timestamps: a track
 * is anchored at the recorded time of its first chunk and follows the encoder's clock from there
 * (sample-accurate audio, presentation order for video with B-frames), re-anchoring when the two
 * drift apart by more than 2 s (an encoder restarted after the camera was turned off and on).
 * Payloads of another codec than the track's, and video before its first key frame, are skipped.
 * The same input always gives the same frames: the scan and the render pass both use this.
 *
 * Recorded times go through the export's clock (`cuts.clock`: paused spans cut out unless kept),
 * and `epochMs` is on that clock. An EVC1 track follows its encoder across a cut less the paused
 * time cut out since its anchor (the encoder ran on while nothing was stored), so that its timing
 * within each recorded stretch stays the encoder's and every track, whatever its codec, loses
 * exactly the paused time. Video after a paused span waits for a key frame again: the frames it
 * would depend on were never stored. Payloads recorded outside `cuts.window` (a clip's) give none.
 */
export class TrackFramer {
  private anchorUs: number | undefined;
  private anchorChunkUs = 0;
  /** paused time cut out before the anchor, µs */
  private anchorCutUs = 0;
  private started = false;
  /** the recorded time of the last frame given, ms */
  private lastMs = -Infinity;

  constructor(
    private readonly format: TrackFormat,
    private readonly epochMs: number,
    private readonly cuts: Cuts = NO_CUTS,
  ) {}

  frame(recordedMs: number, payload: Uint8Array): Frame | undefined {
    if (recordedMs < this.cuts.window.fromMs || recordedMs >= this.cuts.window.toMs) return undefined;
    const onClock = this.cuts.clock(recordedMs);
    const recordedUs = (onClock - this.epochMs) * 1000;
    if (!this.format.evc1) {
      if (!isJpeg(payload)) return undefined;
      return { atUs: recordedUs, key: true, data: payload };
    }
    if (!isEvc1(payload)) return undefined;
    let chunk;
    try {
      chunk = decodeEvc1(payload);
    } catch {
      return undefined;
    }
    if (chunk.codec !== this.format.codec) return undefined;
    const video = this.format.mkv.type === 'video';
    if (video && this.started && pausedBetween(this.cuts, this.lastMs, recordedMs)) this.started = false;
    if (video && !this.started && !chunk.key) return undefined;
    this.started = true;
    this.lastMs = recordedMs;
    const cutUs = (recordedMs - onClock) * 1000;
    const follow = () =>
      this.anchorUs! + (chunk.timestampUs - this.anchorChunkUs) - (cutUs - this.anchorCutUs);
    if (this.anchorUs === undefined || Math.abs(follow() - recordedUs) > REANCHOR_US) {
      this.anchorUs = recordedUs;
      this.anchorChunkUs = chunk.timestampUs;
      this.anchorCutUs = cutUs;
    }
    const atUs = Math.max(0, follow());
    return { atUs, key: video ? chunk.key : true, data: chunk.data };
  }
}
