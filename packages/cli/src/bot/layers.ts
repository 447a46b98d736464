/**
 * What a bot sends of each picture: encoding i as layer i, layer 0 (the bot's size) on
 * `media/<id>/cam` with an ack (recorded), layers 1 and 2 (half and a quarter) without one
 * (relayed, not recorded). Every layer of one picture carries the same EVC1 timestamp and
 * `timestamp_ms`. Each layer starts at a key frame of its encoding, and after a frame of it was
 * skipped waits for the next one, so that no receiver gets a delta frame without its reference.
 *
 * At uplink step s the layers below s are not sent: step 1 stops layer 0, step 2 layer 1 too.
 * Why not make the half-size encoding layer 0 instead, so that the recording goes on at a lower
 * size: the export decodes such a change of picture size, but loses the session's audio for some
 * seconds after it (ffmpeg rebuilds its filter graph on the new size), so a slow uplink would cost
 * the recording its sound. A gap in the camera costs the recording nothing else: what was acked is
 * recorded, and the export shows the name while the camera is off.
 */
import { encodeEvc1 } from '@vss/protocol';
import type { Picture } from './video.js';

/**
 * Past this many bytes queued in its own socket a bot drops video, as a real-time encoder does
 * when the network cannot keep up (and the server asks live clients to do when it stops reading).
 */
export const VIDEO_QUEUE_BOUND = 1024 * 1024;
/**
 * When the encoder's clock and the wall clock drift apart by more than this, video is re-anchored
 * to the wall clock. Below the 2 s at which an export re-anchors a track, so that what a bot
 * records always follows one clock per track.
 */
const REANCHOR_US = 1_000_000;
const NO_DESCRIPTION = new Uint8Array(0);

/** What the video needs of its bot. */
export interface VideoSink {
  /**
   * the socket is open and its queue under `bound` bytes; `smallest`: for the smallest layer,
   * which goes on longer than the others when the uplink queues, so that the picture keeps moving
   */
  canSend(bound: number, smallest: boolean): boolean;
  /** µs since the bot's media clock began (its welcome) */
  nowUs(): number;
  /** publishes layer 0 with an ack (recorded), or a reduced layer without one (relayed) */
  publish(layer: number, chunk: Uint8Array, timestampUs: number): void;
  /** a frame of layer 0 that was not sent */
  dropped(): void;
  /** the step now sent changed */
  stepped(step: number): void;
}

export class LayeredVideo {
  /** the uplink step being sent */
  step = 0;
  /** per layer: skip until a key frame of its encoding */
  private readonly needKey: boolean[];
  /** encoder clock + offset = the bot's media clock (µs since t0) */
  private offsetUs: number | null = null;
  private lastUs = -1;

  constructor(
    private readonly sink: VideoSink,
    /** encodings made of each picture: 1 to 3 */
    private readonly encodings: number,
  ) {
    this.needKey = Array.from({ length: encodings }, () => true);
  }

  /** Frames sent since now must start at a key frame (a reconnect, a refused frame). */
  restart(): void {
    this.needKey.fill(true);
  }

  /**
   * Sends what `picture` has for the layers of step `want`. A step down takes effect at once (what
   * stops needs no key frame); a layer that comes back waits for its next key frame.
   */
  onPicture(picture: Picture, want: number): void {
    if (want !== this.step && want >= 0 && want < this.encodings) {
      this.step = want;
      this.sink.stepped(want);
    }
    for (let layer = 0; layer < this.step; layer++) this.needKey[layer] = true;
    let ts: number | null = null;
    for (let layer = this.step; layer < this.encodings; layer++) {
      if (!this.sink.canSend(VIDEO_QUEUE_BOUND, layer === this.encodings - 1)) {
        // A skipped frame breaks the chain of delta frames: the layer resumes at a key frame.
        this.needKey[layer] = true;
        if (layer === 0) this.sink.dropped();
        continue;
      }
      const frame = picture.frames[layer];
      if (!frame || (this.needKey[layer] && !frame.key)) {
        if (!frame) this.needKey[layer] = true;
        if (layer === 0) this.sink.dropped();
        continue;
      }
      this.needKey[layer] = false;
      ts ??= this.timestampOf(picture);
      const chunk = encodeEvc1({
        key: frame.key,
        codec: 'vp8',
        timestampUs: ts,
        durationUs: picture.durationUs,
        description: NO_DESCRIPTION,
        data: frame.data,
      });
      this.sink.publish(layer, chunk, ts);
    }
  }

  /**
   * The picture's time on the bot's clock. The encoder's clock keeps the frames evenly spaced; its
   * offset ties it to the bot's clock, on which the audio runs too, so both tracks of a bot share
   * one time line.
   */
  private timestampOf(picture: Picture): number {
    const nowUs = this.sink.nowUs();
    let ts = this.offsetUs === null ? nowUs : picture.ptsUs + this.offsetUs;
    if (this.offsetUs === null || Math.abs(ts - nowUs) > REANCHOR_US) {
      this.offsetUs = nowUs - picture.ptsUs;
      ts = nowUs;
    }
    ts = Math.max(Math.round(ts), this.lastUs + 1);
    this.lastUs = ts;
    return ts;
  }
}
