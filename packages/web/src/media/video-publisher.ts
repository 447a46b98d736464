/**
 * Encodes a camera or screen track for publishing: VP8 in EVC1 through WebCodecs'
 * `VideoEncoder` where the browser has it, one JPEG per frame (MJPEG) otherwise.
 */
import { encodeEvc1 } from '@vss/protocol';
import { isVp8Yuv, rgbaToI420, VP8_COLOUR_SPACE } from './colour';
import { videoPictures, type Picture, type StopFrames } from './track-frames';

/** A media publish may be 2 MiB (docs/protocol.md §2); stay clear of it, header included. */
export const MAX_MEDIA_BYTES = 2 * 1024 * 1024 - 4096;
/** A key frame at least this often, so a viewer who joins or drops frames recovers soon. */
const KEY_INTERVAL_MS = 2000;

/** How to encode one kind of video. */
export interface VideoProfile {
  fps: number;
  maxWidth: number;
  maxHeight: number;
  bitrate: number;
}

/** Camera and screen profiles: a camera moves, a screen has fine detail. */
export const PROFILES = {
  cam: { fps: 15, maxWidth: 640, maxHeight: 480, bitrate: 600_000 },
  screen: { fps: 8, maxWidth: 1280, maxHeight: 800, bitrate: 1_200_000 },
} as const satisfies Record<string, VideoProfile>;

/** What the publisher needs from the connection. */
export interface VideoSink {
  /** false: skip this frame (rate budget spent, or the socket's queue is long) */
  ready(): boolean;
  /** publishes one payload; resolves false when it could not be sent */
  send(payload: Uint8Array): Promise<boolean>;
  /** frames keep failing to encode: told once per run of failures */
  failed(err: unknown): void;
}

/** Fits width × height into the profile's box, keeping the aspect ratio; even sizes for the codec. */
function fit(w: number, h: number, p: VideoProfile): { width: number; height: number } {
  const s = Math.min(1, p.maxWidth / w, p.maxHeight / h);
  return {
    width: Math.max(2, Math.round((w * s) / 2) * 2),
    height: Math.max(2, Math.round((h * s) / 2) * 2),
  };
}

/** Encodes the pictures of one video track and hands each payload to the sink. */
export class VideoPublisher {
  private readonly stopFrames: StopFrames;
  private encoder: VideoEncoder | null = null;
  private size = { width: 0, height: 0 };
  private canvas: OffscreenCanvas | HTMLCanvasElement | null = null;
  private lastKey = -Infinity;
  private wantKey = true;
  private busy = false;
  private readonly startMs = performance.now();
  private stopped = false;

  constructor(
    track: MediaStreamTrack,
    private readonly profile: VideoProfile,
    private readonly sink: VideoSink,
    /** EVC1 VP8 (true) or MJPEG (false); see `VideoPublisher.canEncode` */
    private readonly webCodecs: boolean,
  ) {
    this.stopFrames = videoPictures(
      track,
      profile.fps,
      (p) => this.onPicture(p),
      (err) => sink.failed(err),
    );
  }

  /** True when this browser can encode VP8 through WebCodecs. */
  static async canEncode(profile: VideoProfile): Promise<boolean> {
    if (typeof VideoEncoder === 'undefined' || typeof VideoFrame === 'undefined') return false;
    try {
      const { supported } = await VideoEncoder.isConfigSupported({
        codec: 'vp8',
        width: profile.maxWidth,
        height: profile.maxHeight,
        bitrate: profile.bitrate,
      });
      return supported === true;
    } catch {
      return false;
    }
  }

  /** Makes the next frame a key frame (a viewer joined, or a frame was lost). */
  requestKeyFrame(): void {
    this.wantKey = true;
  }

  /** Stops reading and encoding. */
  stop(): void {
    this.stopped = true;
    this.stopFrames();
    if (this.encoder && this.encoder.state !== 'closed') this.encoder.close();
    this.encoder = null;
  }

  private onPicture(p: Picture): void {
    const frame = 'frame' in p ? p.frame : null;
    try {
      // Why skip before encoding: a frame dropped after encoding would break the chain of
      // delta frames for every viewer until the next key frame.
      if (this.stopped || (!this.webCodecs && this.busy) || !this.sink.ready()) return;
      const source = frame ?? (p as { element: HTMLVideoElement }).element;
      const w = frame ? frame.displayWidth : (source as HTMLVideoElement).videoWidth;
      const h = frame ? frame.displayHeight : (source as HTMLVideoElement).videoHeight;
      const size = fit(w, h, this.profile);
      if (this.webCodecs) this.encode(source, w, h, size);
      else this.jpeg(source, size);
    } finally {
      frame?.close();
    }
  }

  private encode(
    source: VideoFrame | HTMLVideoElement,
    w: number,
    h: number,
    size: { width: number; height: number },
  ): void {
    if (!this.encoder || size.width !== this.size.width || size.height !== this.size.height) {
      this.configure(size);
    }
    const encoder = this.encoder;
    // A queue means the encoder is behind: dropping here keeps latency low.
    if (!encoder || encoder.state !== 'configured' || encoder.encodeQueueSize > 2) return;
    const timestamp = Math.round((performance.now() - this.startMs) * 1000);
    let frame: VideoFrame;
    if (source instanceof VideoFrame && w === size.width && h === size.height && isVp8Yuv(source)) {
      frame = new VideoFrame(source, { timestamp });
    } else {
      // Why redraw: the encoder takes frames of its configured size only. Why convert here:
      // given RGB, the encoder would use the BT.709 matrix, which a VP8 stream cannot state;
      // every reader (viewers, the export) takes VP8 as BT.601 (see colour.ts).
      const canvas = this.scratch(size);
      const ctx = this.context2d(canvas);
      ctx.drawImage(source, 0, 0, size.width, size.height);
      const { data } = ctx.getImageData(0, 0, size.width, size.height);
      frame = new VideoFrame(rgbaToI420(data, size.width, size.height), {
        format: 'I420',
        codedWidth: size.width,
        codedHeight: size.height,
        timestamp,
        colorSpace: VP8_COLOUR_SPACE,
      });
    }
    const now = performance.now();
    const keyFrame = this.wantKey || now - this.lastKey >= KEY_INTERVAL_MS;
    if (keyFrame) {
      this.wantKey = false;
      this.lastKey = now;
    }
    try {
      encoder.encode(frame, { keyFrame });
    } finally {
      frame.close();
    }
  }

  private configure(size: { width: number; height: number }): void {
    if (!this.encoder || this.encoder.state === 'closed') {
      this.encoder = new VideoEncoder({
        output: (chunk, meta) => this.onChunk(chunk, meta),
        error: () => {
          // Why: a failed encoder is closed; the next frame configures a new one.
          this.encoder = null;
          this.wantKey = true;
        },
      });
    }
    this.encoder.configure({
      codec: 'vp8',
      width: size.width,
      height: size.height,
      bitrate: this.profile.bitrate,
      framerate: this.profile.fps,
      latencyMode: 'realtime',
    });
    this.size = size;
    this.wantKey = true;
  }

  private onChunk(chunk: EncodedVideoChunk, meta?: EncodedVideoChunkMetadata): void {
    if (this.stopped) return;
    const data = new Uint8Array(chunk.byteLength);
    chunk.copyTo(data);
    const description = meta?.decoderConfig?.description;
    const payload = encodeEvc1({
      codec: 'vp8',
      key: chunk.type === 'key',
      timestampUs: chunk.timestamp,
      durationUs: chunk.duration ?? Math.round(1_000_000 / this.profile.fps),
      description: !description
        ? new Uint8Array(0)
        : ArrayBuffer.isView(description)
          ? new Uint8Array(description.buffer, description.byteOffset, description.byteLength)
          : new Uint8Array(description),
      data,
    });
    if (payload.length > MAX_MEDIA_BYTES) {
      this.wantKey = true;
      return;
    }
    void this.sink.send(payload).then((sent) => {
      // A lost frame breaks the delta chain: start a new one.
      if (!sent) this.wantKey = true;
    });
  }

  private scratch(size: { width: number; height: number }): OffscreenCanvas | HTMLCanvasElement {
    if (!this.canvas) {
      this.canvas =
        typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(2, 2) : document.createElement('canvas');
    }
    if (this.canvas.width !== size.width) this.canvas.width = size.width;
    if (this.canvas.height !== size.height) this.canvas.height = size.height;
    return this.canvas;
  }

  /** The scratch canvas's 2D context, kept in memory: the encoder path reads its pixels back. */
  private context2d(
    canvas: OffscreenCanvas | HTMLCanvasElement,
  ): OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D {
    return canvas.getContext('2d', { willReadFrequently: true }) as
      OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D;
  }

  /** MJPEG: one JPEG per picture, lowering the quality when a frame would be too large. */
  private jpeg(source: VideoFrame | HTMLVideoElement, size: { width: number; height: number }): void {
    const canvas = this.scratch(size);
    this.context2d(canvas).drawImage(source, 0, 0, size.width, size.height);
    this.busy = true;
    const encode = async (quality: number): Promise<Blob | null> =>
      canvas instanceof HTMLCanvasElement
        ? new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality))
        : canvas.convertToBlob({ type: 'image/jpeg', quality });
    void (async () => {
      try {
        let blob = await encode(0.7);
        if (blob && blob.size > MAX_MEDIA_BYTES) blob = await encode(0.4);
        if (!blob || blob.size > MAX_MEDIA_BYTES || this.stopped) return;
        await this.sink.send(new Uint8Array(await blob.arrayBuffer()));
      } finally {
        this.busy = false;
      }
    })();
  }
}
