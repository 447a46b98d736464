/**
 * Encodes a camera or screen track for publishing: VP8 or H.264 in EVC1 through WebCodecs'
 * `VideoEncoder` where the browser has it, in three layers (docs/protocol.md §6), one JPEG per
 * frame (MJPEG, one layer) otherwise.
 */
import type { Layer } from '@vss/protocol';
import { isVp8Yuv, rgbaToI420, VP8_COLOUR_SPACE } from './colour';
import { webCodecsReady } from './webcodecs-ready';
import { videoPictures, type Picture, type StopFrames } from './track-frames';
import { STEPS, type UplinkStep } from './uplink';
import { LayerEncoder, MAX_MEDIA_BYTES, type Size } from './video-layer';

/** How to encode one kind of video: its full picture (layer 0). */
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

/**
 * Each layer's bitrate as a share of layer 0's: layer 1 has a quarter of the pixels, layer 2 a
 * sixteenth; small pictures need more bits per pixel to stay legible, hence 1/4 and 1/12 rather
 * than 1/4 and 1/16. A camera's layers come out at about 600, 150 and 50 kbit/s.
 */
const LAYER_BITRATE = [1, 1 / 4, 1 / 12] as const;
const LAYERS: readonly Layer[] = [0, 1, 2];
/** H.264 constrained baseline, level 3.1: what every H.264 decoder reads, hardware ones included. */
const H264 = 'avc1.42E01F';

/** What the publisher needs from the connection. */
export interface VideoSink {
  /** false: skip this layer's frame (rate budget spent, or the socket's queue is long) */
  ready(layer: Layer): boolean;
  /**
   * publishes one payload of a layer, stamped `timestampMs` (the same for every layer of one
   * picture); resolves false when it could not be sent
   */
  send(payload: Uint8Array, layer: Layer, timestampMs: number): Promise<boolean>;
  /** frames keep failing to encode: told once per run of failures */
  failed(err: unknown): void;
}

/** Fits width × height into the profile's box, keeping the aspect ratio; even sizes for the codec. */
function fit(w: number, h: number, p: VideoProfile): Size {
  const s = Math.min(1, p.maxWidth / w, p.maxHeight / h);
  return {
    width: Math.max(2, Math.round((w * s) / 2) * 2),
    height: Math.max(2, Math.round((h * s) / 2) * 2),
  };
}

/** Half a size, rounded to even numbers (the codec's chroma is half the size again). */
function half(s: Size): Size {
  return {
    width: Math.max(2, Math.round(s.width / 4) * 2),
    height: Math.max(2, Math.round(s.height / 4) * 2),
  };
}

type Canvas = OffscreenCanvas | HTMLCanvasElement;
type Context2d = OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D;

/** Encodes the pictures of one video track and hands each layer's payloads to the sink. */
export class VideoPublisher {
  private readonly stopFrames: StopFrames;
  private readonly layers: LayerEncoder[];
  /** one scratch canvas per layer, so that no layer's picture resizes another's */
  private readonly canvases: (Canvas | null)[] = [null, null, null];
  private step: UplinkStep = STEPS[0]!;
  /** share of the pictures to encode, accumulated: one picture is encoded per whole unit */
  private credit = 1;
  private busy = false;
  private readonly startMs = performance.now();
  /** the wall clock at startMs: a picture's timestamp_ms is this plus its encoder timestamp */
  private readonly startEpochMs = Date.now();
  private stopped = false;
  private readonly webCodecs: boolean;

  constructor(
    track: MediaStreamTrack,
    private readonly profile: VideoProfile,
    private readonly sink: VideoSink,
    /** the WebCodecs codec of the layers, or null for MJPEG; see `VideoPublisher.codecFor` */
    codec: string | null,
    /** where the SDK's capture worker is served (track-frames.ts); null: none */
    workerUrl: string | null = null,
  ) {
    this.webCodecs = codec !== null;
    this.layers = LAYERS.map(
      (layer) =>
        new LayerEncoder(layer, codec ?? 'vp8', (l, payload, timestampUs) =>
          this.stopped
            ? Promise.resolve(false)
            : sink.send(payload, l, Math.round(this.startEpochMs + timestampUs / 1000)),
        ),
    );
    this.stopFrames = videoPictures(
      track,
      profile.fps,
      (p) => this.onPicture(p),
      (err) => sink.failed(err),
      workerUrl,
    );
  }

  /**
   * The codec to publish in: `vp8`, or H.264 (`avc1.42E01F`, constrained baseline, which every
   * decoder reads) where the app asks for it or where VP8 would be encoded in software but H.264 in
   * hardware: Safari, and every browser on iOS, encode VP8 in software only, which costs a phone
   * its battery and frames. Null when WebCodecs cannot encode either (MJPEG then).
   */
  static async codecFor(profile: VideoProfile, wanted?: 'vp8' | 'h264'): Promise<string | null> {
    if (typeof VideoEncoder === 'undefined' || typeof VideoFrame === 'undefined') return null;
    await webCodecsReady();
    const ok = async (codec: string, hardwareAcceleration: HardwareAcceleration = 'no-preference') => {
      try {
        const { supported } = await VideoEncoder.isConfigSupported({
          codec,
          width: profile.maxWidth,
          height: profile.maxHeight,
          bitrate: profile.bitrate,
          hardwareAcceleration,
          ...(codec === H264 ? { avc: { format: 'avc' as const } } : {}),
        });
        return supported === true;
      } catch {
        return false;
      }
    };
    // Apple's own builds of WebKit (Safari, iOS); WebKitGTK on Linux says Apple too, but encodes
    // VP8 as every Linux browser does, and its H.264 (OpenH264 through GStreamer) refuses the
    // layers' settings (measured on 2.50.6).
    const apple =
      typeof navigator !== 'undefined' &&
      navigator.vendor.startsWith('Apple') &&
      !/X11|Linux/.test(navigator.userAgent);
    const order =
      wanted === 'h264' ||
      (wanted !== 'vp8' &&
        (apple || (!(await ok('vp8', 'prefer-hardware')) && (await ok(H264, 'prefer-hardware')))))
        ? [H264, 'vp8']
        : ['vp8', H264];
    for (const codec of order) if (await ok(codec)) return codec;
    return null;
  }

  /** Makes the next frame of `layer` (of every layer when absent) a key frame. */
  requestKeyFrame(layer?: Layer): void {
    for (const l of this.layers) if (layer === undefined || l.layer === layer) l.requestKeyFrame();
  }

  /** Sends as much as an uplink step says (uplink.ts): layers, their bitrates, the frame rate. */
  setStep(step: UplinkStep): void {
    this.step = step;
  }

  /** Stops reading and encoding. */
  stop(): void {
    this.stopped = true;
    this.stopFrames();
    for (const l of this.layers) l.close();
  }

  private onPicture(p: Picture): void {
    const frame = 'frame' in p ? p.frame : null;
    try {
      if (this.stopped || (!this.webCodecs && this.busy)) return;
      // A lower frame rate: whole pictures are left out, before any layer encodes them, so that
      // every layer's chain of delta frames stays whole.
      this.credit = Math.min(1, this.credit) + this.step.fps;
      if (this.credit < 1) return;
      this.credit -= 1;
      const source = frame ?? (p as { element: HTMLVideoElement }).element;
      const w = frame ? frame.displayWidth : (source as HTMLVideoElement).videoWidth;
      const h = frame ? frame.displayHeight : (source as HTMLVideoElement).videoHeight;
      const size = fit(w, h, this.profile);
      if (this.webCodecs) this.encode(source, w, h, size);
      else if (this.sink.ready(0)) this.jpeg(source, size);
    } finally {
      frame?.close();
    }
  }

  private encode(source: VideoFrame | HTMLVideoElement, w: number, h: number, full: Size): void {
    const timestamp = Math.round((performance.now() - this.startMs) * 1000);
    let size = full;
    for (const enc of this.layers) {
      if (enc.layer) size = half(size);
      const share = this.step.bitrate[enc.layer];
      if (!share) {
        enc.pause();
        continue;
      }
      // Why skip before encoding: a frame dropped after encoding would break the chain of delta
      // frames for every viewer of that layer until its next key frame.
      if (!enc.ready() || !this.sink.ready(enc.layer)) continue;
      const frame = this.frameOf(source, enc.layer, w, h, size, timestamp);
      try {
        enc.encode(frame, {
          size,
          bitrate: Math.round(this.profile.bitrate * LAYER_BITRATE[enc.layer] * share),
          fps: this.profile.fps * this.step.fps,
        });
      } finally {
        frame.close();
      }
    }
  }

  /** The picture at one layer's size, as the VP8 encoder must get it: BT.601 YUV. */
  private frameOf(
    source: VideoFrame | HTMLVideoElement,
    layer: Layer,
    w: number,
    h: number,
    size: Size,
    timestamp: number,
  ): VideoFrame {
    if (source instanceof VideoFrame && w === size.width && h === size.height && isVp8Yuv(source)) {
      return new VideoFrame(source, { timestamp });
    }
    // Why redraw: the encoder takes frames of its configured size only. Why convert here: given
    // RGB, the encoder would use the BT.709 matrix, which a VP8 stream cannot state; every reader
    // (viewers, the export) takes VP8 as BT.601 (see colour.ts).
    const canvas = this.scratch(layer, size);
    const ctx = this.context2d(canvas);
    ctx.drawImage(source, 0, 0, size.width, size.height);
    const { data } = ctx.getImageData(0, 0, size.width, size.height);
    return new VideoFrame(rgbaToI420(data, size.width, size.height), {
      format: 'I420',
      codedWidth: size.width,
      codedHeight: size.height,
      timestamp,
      colorSpace: VP8_COLOUR_SPACE,
    });
  }

  private scratch(layer: Layer, size: Size): Canvas {
    let canvas = this.canvases[layer];
    if (!canvas) {
      canvas =
        typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(2, 2) : document.createElement('canvas');
      this.canvases[layer] = canvas;
    }
    if (canvas.width !== size.width) canvas.width = size.width;
    if (canvas.height !== size.height) canvas.height = size.height;
    return canvas;
  }

  /** A scratch canvas's 2D context, kept in memory: the encoder path reads its pixels back. */
  private context2d(canvas: Canvas): Context2d {
    return canvas.getContext('2d', { willReadFrequently: true }) as Context2d;
  }

  /** MJPEG: one JPEG per picture, lowering the quality when a frame would be too large. */
  private jpeg(source: VideoFrame | HTMLVideoElement, size: Size): void {
    const canvas = this.scratch(0, size);
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
        await this.sink.send(new Uint8Array(await blob.arrayBuffer()), 0, Date.now());
      } finally {
        this.busy = false;
      }
    })();
  }
}
