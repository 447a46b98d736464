/**
 * What a bot sends of each picture: layer 0 (the bot's size) on `media/<id>/cam` with an ack
 * (recorded), layers 1 and 2 (half and a quarter) without one (relayed, not recorded). Every layer
 * of one picture carries the same EVC1 timestamp and `timestamp_ms`. Each layer starts at a key
 * frame of its encoding, and after a frame of it was skipped waits for the next one, so that no
 * receiver gets a delta frame without its reference.
 *
 * At uplink step 0 layer 0 carries the full-rate encoding; at every step above, the floor (the same
 * size at a fifth of the rate, ffmpeg.ts), and step s stops the reduced layers below s: step 1 sends
 * the floor and both reduced layers, step 2 the floor and the smallest. Layer 0 is never stopped by
 * adaptation, so the recording has no gap: it changes encoding at a key frame of the new one,
 * sending the old one until then. Why not make a reduced encoding layer 0 instead: the export
 * decodes a change of picture size, but loses the session's audio for some seconds after it (ffmpeg
 * rebuilds its filter graph on the new size).
 */
import { encodeEvc1 } from '@vss/protocol';
import { FLOOR_EVERY } from './ffmpeg.js';
import type { Picture } from './video.js';

/** The microphone on the wire: Opus at about 34 kbit/s (tone.ts), in 50 frames a second. */
const AUDIO_BPS = 34_000 / 8;
const AUDIO_FPS = 50;
/** Framing of each frame on the wire (binary frame, EVC1, WebSocket, TCP/IP headers), bytes. */
const FRAMING_BYTES = 90;
/** Weight of each picture in the encodings' measured rates (about the last 2 s at 15 fps). */
const RATE_WEIGHT = 1 / 30;

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
   * the socket is open and its queue under `bound` bytes; `lasting`: for the smallest layer and for
   * layer 0 at its floor, which go on longer than the others when the uplink queues, so that the
   * picture keeps moving and the recording has no gap
   */
  canSend(bound: number, lasting: boolean): boolean;
  /** µs since the bot's media clock began (its welcome) */
  nowUs(): number;
  /** publishes layer 0 with an ack (recorded), or a reduced layer without one (relayed) */
  publish(layer: number, chunk: Uint8Array, timestampUs: number): void;
  /** a frame of layer 0 that was not sent */
  dropped(): void;
  /** the step now sent changed */
  stepped(step: number): void;
  /** a picture's key frames were sent: a burst the uplink can time */
  burst(): void;
}

export class LayeredVideo {
  /** the uplink step being sent */
  step = 0;
  /** per layer: skip until a key frame of the encoding it carries */
  private readonly needKey: boolean[];
  /** the encoding layer 0 carries now: 0 (full rate) or the floor's */
  private source = 0;
  /** the floor encoding's index in a picture's frames; null with one layer (no floor) */
  private readonly floor: number | null;
  /** per encoding, bytes per picture, averaged: what it makes whether or not it is sent */
  private readonly bytesPerPicture: number[] = [];
  private fps = 0;
  /** encoder clock + offset = the bot's media clock (µs since t0) */
  private offsetUs: number | null = null;
  private lastUs = -1;

  constructor(
    private readonly sink: VideoSink,
    /** layers sent of each picture: 1 to 3 (with 2 or 3, the encoder also makes the floor) */
    private readonly layers: number,
    /** the step sent first (the uplink's first call) */
    initialStep = 0,
  ) {
    this.needKey = Array.from({ length: layers }, () => true);
    this.floor = layers > 1 ? layers : null;
    this.step = Math.min(Math.max(0, initialStep), layers - 1);
    this.source = this.step === 0 || this.floor === null ? 0 : this.floor;
  }

  /** Frames sent since now must start at a key frame (a reconnect, a refused frame). */
  restart(): void {
    this.needKey.fill(true);
  }

  /**
   * Sends what `picture` has for the layers of step `want`. A step down stops the reduced layers at
   * once (what stops needs no key frame); a layer that comes back waits for its next key frame; layer
   * 0 changes encoding at the new one's next key frame.
   */
  onPicture(picture: Picture, want: number): void {
    this.measure(picture);
    if (want !== this.step && want >= 0 && want < this.layers) {
      this.step = want;
      this.sink.stepped(want);
    }
    for (let layer = 1; layer < this.step; layer++) this.needKey[layer] = true;
    const wanted = this.step === 0 || this.floor === null ? 0 : this.floor;
    // Layer 0 changes encoding on a key frame of the wanted one, or at once when its chain is broken
    // anyway (it then waits for that key frame).
    if (wanted !== this.source && (this.needKey[0] || picture.frames[wanted]?.key)) this.source = wanted;
    let ts: number | null = null;
    let keys = false;
    let zeroKey = false;
    for (let layer = 0; layer < this.layers; layer++) {
      if (layer > 0 && layer < this.step) continue;
      // The smallest layer and the recorded one at its floor go on longest: the picture keeps
      // moving, and the recording has no gap unless the link is all but stopped.
      const lasting = layer === this.layers - 1 || (layer === 0 && this.source !== 0);
      if (!this.sink.canSend(VIDEO_QUEUE_BOUND, lasting)) {
        // A skipped frame breaks the chain of delta frames: the layer resumes at a key frame.
        this.needKey[layer] = true;
        if (layer === 0) this.sink.dropped();
        continue;
      }
      const encoding = layer === 0 ? this.source : layer;
      const frame = picture.frames[encoding];
      // The floor makes no frame of most pictures: none was due, so nothing is broken or dropped.
      if (!frame && picture.expected[encoding] === false) continue;
      // Layer 1 does not start on the picture where layer 0 sends a key frame: both key frames in
      // one burst would hold the audio behind them for a third of a second on a 300 kbit/s uplink.
      // Its key frames come every second, layer 0's every two: the next one is a second away.
      if (layer === 1 && this.needKey[1] && zeroKey) continue;
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
      keys ||= frame.key;
      if (layer === 0) zeroKey = frame.key;
    }
    if (keys) this.sink.burst();
  }
  /**
   * What step `step` sends, bytes per second: the measured rates of the encodings it sends (every
   * encoding is made whatever is sent, so each is known before it is tried), the audio, and the
   * framing of every frame. Undefined before the first pictures.
   */
  plannedBps(step: number): number | undefined {
    if (this.fps === 0 || step < 0 || step >= this.layers) return undefined;
    const sent = [step === 0 || this.floor === null ? 0 : this.floor];
    for (let layer = Math.max(1, step); layer < this.layers; layer++) sent.push(layer);
    let bps = AUDIO_BPS + AUDIO_FPS * FRAMING_BYTES;
    for (const i of sent)
      bps += (this.bytesPerPicture[i] ?? 0) * this.fps + FRAMING_BYTES * this.framesPerS(i);
    return bps;
  }

  private framesPerS(encoding: number): number {
    return encoding === this.floor ? this.fps / FLOOR_EVERY : this.fps;
  }

  private measure(picture: Picture): void {
    this.fps = 1e6 / picture.durationUs;
    picture.frames.forEach((f, i) => {
      const bytes = f?.data.length ?? 0;
      const was = this.bytesPerPicture[i];
      this.bytesPerPicture[i] = was === undefined ? bytes : was + (bytes - was) * RATE_WEIGHT;
    });
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
