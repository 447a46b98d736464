/**
 * Draws one video track (live or recorded) into a canvas: EVC1 chunks through the browser's
 * WebCodecs `VideoDecoder`, JPEG frames through `createImageBitmap`.
 */
import { decodeEvc1, isEvc1, isJpeg, isVideoCodec, type Evc1Chunk } from '@vss/protocol';
import { VP8_COLOUR_SPACE } from './colour';

/** Decode requests pending beyond this mean the decoder cannot keep up: drop to the next key frame. */
const MAX_DECODE_QUEUE = 24;

/** True when this browser can decode EVC1 video (WebCodecs); JPEG works everywhere. */
const webCodecs = () => typeof VideoDecoder !== 'undefined';

/** True when a payload starts a picture on its own: an EVC1 key frame, or a JPEG. */
export function isKeyPayload(payload: Uint8Array): boolean {
  if (isJpeg(payload)) return true;
  if (!isEvc1(payload)) return false;
  try {
    return decodeEvc1(payload).key;
  } catch {
    return false;
  }
}

/** A key that changes whenever the decoder must be configured anew (codec or description). */
function configKey(chunk: Evc1Chunk): string {
  let hex = '';
  for (const b of chunk.description) hex += b.toString(16).padStart(2, '0');
  return `${chunk.codec}|${hex}`;
}

/**
 * Decodes one video track's payloads and draws every picture into a canvas, sized to the frame.
 * The picture may change size at a key frame (the server switched this receiver to another layer,
 * docs/protocol.md §6): VP8 key frames carry their size, the decoder follows them without being
 * configured again, and the canvas takes each picture's size.
 */
export class VideoTrackDecoder {
  private readonly ctx: CanvasRenderingContext2D | null;
  private decoder: VideoDecoder | null = null;
  private key: string | null = null;
  /** set until a key frame arrives: delta frames cannot be decoded without their key frame */
  private needKey = true;
  /** bumped by reset/close: a JPEG still being decoded from before must not be drawn */
  private gen = 0;
  /** the order number of the newest JPEG drawn, so a slow decode never overwrites a newer one */
  private jpegDrawn = 0;
  private jpegPushed = 0;
  private closed = false;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    /**
     * told when the picture is lost until the next key frame (a decoding error, frames dropped
     * because decoding fell behind, delta frames without their key frame): a live viewer asks the
     * publisher for a key frame rather than wait for the periodic one
     */
    private readonly onLost: () => void = () => undefined,
    /** told after every picture drawn (the replay shows a name card until there is one) */
    private readonly onPicture: () => void = () => undefined,
  ) {
    this.ctx = canvas.getContext('2d');
  }

  /**
   * Takes one media payload: an EVC1 video chunk or a JPEG; anything else is ignored. `catchUp`
   * marks frames handed on in a burst on purpose (a seek's lead-in, frames kept for a canvas not
   * yet shown): they are all decoded, where live frames piling up are dropped to the next key frame.
   */
  push(payload: Uint8Array, catchUp = false): void {
    if (this.closed) return;
    if (isJpeg(payload)) return this.pushJpeg(payload);
    if (!isEvc1(payload) || !webCodecs()) return;
    let chunk: Evc1Chunk;
    try {
      chunk = decodeEvc1(payload);
    } catch {
      return;
    }
    if (!isVideoCodec(chunk.codec)) return;
    // A delta frame without a description goes on in the configuration of its key frame (H.264
    // publishers send their avcC on key frames only).
    const key =
      !chunk.key && !chunk.description.length && this.key?.startsWith(`${chunk.codec}|`)
        ? this.key
        : configKey(chunk);
    if (key !== this.key || !this.decoder || this.decoder.state === 'closed') {
      // A new codec or description can only start at a key frame.
      if (!chunk.key) return;
      if (!this.configure(chunk, key)) return;
    }
    const decoder = this.decoder!;
    if (!chunk.key && (this.needKey || (!catchUp && decoder.decodeQueueSize > MAX_DECODE_QUEUE))) {
      this.needKey = true;
      return this.onLost();
    }
    this.needKey = false;
    try {
      decoder.decode(
        new EncodedVideoChunk({
          type: chunk.key ? 'key' : 'delta',
          timestamp: chunk.timestampUs,
          duration: chunk.durationUs || undefined,
          data: chunk.data,
        }),
      );
    } catch {
      // A chunk the decoder refuses: start over at the next key frame.
      this.dropDecoder();
      this.onLost();
    }
  }

  /** Forgets decoder state (e.g. after a seek): nothing is drawn until the next key frame. */
  reset(): void {
    this.gen++;
    this.jpegDrawn = this.jpegPushed;
    this.dropDecoder();
  }

  /** Releases the decoder; later pushes are ignored. */
  close(): void {
    this.reset();
    this.closed = true;
  }

  private configure(chunk: Evc1Chunk, key: string): boolean {
    const config: VideoDecoderConfig = {
      codec: chunk.codec,
      optimizeForLatency: true,
      // VP8 and VP9 streams have no description: one sent anyway (WebKitGTK) is left out.
      ...(chunk.description.length && !/^vp/.test(chunk.codec) ? { description: chunk.description } : {}),
      // Why only VP8: its stream cannot say its colour space, and the browser would guess BT.709;
      // VP9 and H.264 streams carry theirs, which a colour space given here would override.
      ...(chunk.codec === 'vp8' ? { colorSpace: VP8_COLOUR_SPACE } : {}),
    };
    try {
      if (!this.decoder || this.decoder.state === 'closed') {
        this.decoder = new VideoDecoder({
          output: (frame) => this.draw(frame),
          // Why: an error closes the decoder; the next key frame builds a new one.
          error: () => {
            if (this.closed) return;
            this.dropDecoder();
            this.onLost();
          },
        });
      }
      this.decoder.configure(config);
    } catch {
      this.dropDecoder();
      return false;
    }
    this.key = key;
    this.needKey = true;
    return true;
  }

  private dropDecoder(): void {
    const d = this.decoder;
    this.decoder = null;
    this.key = null;
    this.needKey = true;
    if (d && d.state !== 'closed') {
      try {
        d.close();
      } catch {
        // already closed by an error
      }
    }
  }

  private draw(frame: VideoFrame): void {
    // Why close at once: decoders hold few frame buffers and stall when they are not returned.
    try {
      if (!this.closed) this.paint(frame, frame.displayWidth, frame.displayHeight);
    } finally {
      frame.close();
    }
  }

  private pushJpeg(payload: Uint8Array): void {
    const gen = this.gen;
    const n = ++this.jpegPushed;
    createImageBitmap(new Blob([payload as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' })).then(
      (bitmap) => {
        if (gen === this.gen && !this.closed && n > this.jpegDrawn) {
          this.jpegDrawn = n;
          this.paint(bitmap, bitmap.width, bitmap.height);
        }
        bitmap.close();
      },
      () => {
        // a damaged JPEG: skip it, the next one replaces it
      },
    );
  }

  private paint(source: CanvasImageSource, width: number, height: number): void {
    if (!this.ctx || !width || !height) return;
    if (this.canvas.width !== width) this.canvas.width = width;
    if (this.canvas.height !== height) this.canvas.height = height;
    this.ctx.drawImage(source, 0, 0, width, height);
    this.onPicture();
  }
}
