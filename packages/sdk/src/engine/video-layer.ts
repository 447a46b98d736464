/**
 * One video layer's encoder (docs/protocol.md §6): a WebCodecs `VideoEncoder` (VP8 or H.264) of one
 * size and bitrate, its own key frames, its chunks wrapped in EVC1 and handed on with the layer's
 * number. An H.264 layer's key frames carry its avcC description (the decoder's configuration);
 * its delta frames carry none, and a receiver keeps the configuration of the key frame before.
 */
import { encodeEvc1, type Layer } from '@vss/protocol';

/** A media publish may be 2 MiB (docs/protocol.md §2); stay clear of it, header included. */
export const MAX_MEDIA_BYTES = 2 * 1024 * 1024 - 4096;
/** A key frame at least this often, so a viewer who joins or drops frames recovers soon. */
const KEY_INTERVAL_MS = 2000;

/** A picture size. */
export interface Size {
  width: number;
  height: number;
}

/** Where a layer's encoded chunks go. */
export type LayerOutput = (layer: Layer, payload: Uint8Array, timestampUs: number) => Promise<boolean>;

/** How a layer is encoded right now. */
export interface LayerSettings {
  size: Size;
  bitrate: number;
  fps: number;
}

/** Encodes the pictures of one layer; configured anew when its size, bitrate or frame rate change. */
export class LayerEncoder {
  private encoder: VideoEncoder | null = null;
  private settings: LayerSettings | null = null;
  private lastKey = -Infinity;
  private wantKey = true;
  private closed = false;
  /** the encoder's latest decoder description (H.264's avcC; VP8 has none) */
  private description = new Uint8Array(0);

  constructor(
    readonly layer: Layer,
    /** the WebCodecs codec string: `vp8` or `avc1.…` */
    private readonly codec: string,
    private readonly output: LayerOutput,
  ) {}

  /** Makes the next frame a key frame (a viewer joined, a layer switch, a frame was lost). */
  requestKeyFrame(): void {
    this.wantKey = true;
  }

  /** True when the encoder would take a frame now: it keeps up (no queue) and is not closed. */
  ready(): boolean {
    const e = this.encoder;
    // A queue means the encoder is behind: dropping here keeps latency low.
    return !this.closed && (!e || (e.state === 'configured' && e.encodeQueueSize <= 2));
  }

  /**
   * Encodes one frame of `settings.size` (the caller keeps and closes it). A change of size,
   * bitrate or frame rate configures the encoder again first; a change of size starts with a key
   * frame (the chain of delta frames cannot cross it).
   */
  encode(frame: VideoFrame, settings: LayerSettings): void {
    if (this.closed) return;
    const was = this.settings;
    if (
      !this.encoder ||
      this.encoder.state === 'closed' ||
      !was ||
      was.size.width !== settings.size.width ||
      was.size.height !== settings.size.height ||
      was.bitrate !== settings.bitrate ||
      was.fps !== settings.fps
    ) {
      this.configure(
        settings,
        !was || was.size.width !== settings.size.width || was.size.height !== settings.size.height,
      );
    }
    const encoder = this.encoder;
    if (!encoder || encoder.state !== 'configured') return;
    const now = performance.now();
    const keyFrame = this.wantKey || now - this.lastKey >= KEY_INTERVAL_MS;
    if (keyFrame) {
      this.wantKey = false;
      this.lastKey = now;
    }
    encoder.encode(frame, { keyFrame });
  }

  /** Stops the encoder; the next encode() starts a new one with a key frame. */
  pause(): void {
    this.drop();
  }

  /** Releases the encoder for good. */
  close(): void {
    this.closed = true;
    this.drop();
  }

  private drop(): void {
    const e = this.encoder;
    this.encoder = null;
    this.settings = null;
    this.wantKey = true;
    if (e && e.state !== 'closed') e.close();
  }

  private configure(settings: LayerSettings, resized: boolean): void {
    if (!this.encoder || this.encoder.state === 'closed') {
      const encoder: VideoEncoder = new VideoEncoder({
        output: (chunk, meta) => this.onChunk(chunk, meta),
        error: () => {
          // Why: a failed encoder is closed; the next frame configures a new one.
          if (this.encoder === encoder) this.drop();
        },
      });
      this.encoder = encoder;
      resized = true;
    }
    this.encoder.configure({
      codec: this.codec,
      ...(this.codec.startsWith('avc1.') ? { avc: { format: 'avc' as const } } : {}),
      width: settings.size.width,
      height: settings.size.height,
      bitrate: settings.bitrate,
      framerate: settings.fps,
      latencyMode: 'realtime',
    });
    this.settings = settings;
    // Why only on a new size: a new bitrate or frame rate keeps the chain going where the
    // browser can (a key frame costs several delta frames' bytes on a link already short of them);
    // where it cannot, its new encoder starts with a key frame by itself, flagged in the chunk.
    if (resized) this.wantKey = true;
  }

  private onChunk(chunk: EncodedVideoChunk, meta?: EncodedVideoChunkMetadata): void {
    if (this.closed) return;
    const data = new Uint8Array(chunk.byteLength);
    chunk.copyTo(data);
    // Only H.264 has a description; what some browsers hand out for VP8 (WebKitGTK) would make
    // a receiver's decoder refuse the stream.
    const d = this.codec.startsWith('avc1.') ? meta?.decoderConfig?.description : undefined;
    // A copy: the encoder may reuse the buffer it handed out.
    if (d)
      this.description = (
        ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d)
      ).slice();
    const key = chunk.type === 'key';
    const payload = encodeEvc1({
      codec: this.codec,
      key,
      timestampUs: chunk.timestamp,
      durationUs: chunk.duration ?? Math.round(1_000_000 / (this.settings?.fps ?? 15)),
      description: key ? this.description : new Uint8Array(0),
      data,
    });
    if (payload.length > MAX_MEDIA_BYTES) {
      this.wantKey = true;
      return;
    }
    void this.output(this.layer, payload, chunk.timestamp).then((sent) => {
      // A lost frame breaks the delta chain: start a new one.
      if (!sent) this.wantKey = true;
    });
  }
}
