import { decodeEvc1, isEvc1, isJpeg } from '@vss/protocol';
import type { TrackFormat } from './codecs.js';

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
 */
export class TrackFramer {
  private anchorUs: number | undefined;
  private anchorChunkUs = 0;
  private started = false;

  constructor(
    private readonly format: TrackFormat,
    private readonly epochMs: number,
  ) {}

  frame(recordedMs: number, payload: Uint8Array): Frame | undefined {
    const recordedUs = (recordedMs - this.epochMs) * 1000;
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
    if (video && !this.started && !chunk.key) return undefined;
    this.started = true;
    if (
      this.anchorUs === undefined ||
      Math.abs(this.anchorUs + (chunk.timestampUs - this.anchorChunkUs) - recordedUs) > REANCHOR_US
    ) {
      this.anchorUs = recordedUs;
      this.anchorChunkUs = chunk.timestampUs;
    }
    const atUs = Math.max(0, this.anchorUs + (chunk.timestampUs - this.anchorChunkUs));
    return { atUs, key: video ? chunk.key : true, data: chunk.data };
  }
}
