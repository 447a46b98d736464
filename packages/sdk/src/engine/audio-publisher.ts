/**
 * Encodes a microphone for publishing: Opus (48 kHz mono) in EVC1 through WebCodecs'
 * `AudioEncoder` where the browser has it, or Opus as the browser's MediaRecorder encoded it where
 * only that can read the microphone (mic-capture.ts). Without either, 16-bit PCM in EVC1
 * (`pcm-s16`): about 768 kbit/s at 48 kHz, against Opus's 32, but heard by every receiver and
 * recorded. Why not an Opus encoder in WebAssembly for that case: every browser vss supports
 * (Chromium, Firefox 130+, Safari 26+) has `AudioEncoder` with Opus; only a Safari older than 26
 * lacks it, and a ~300 KB WebAssembly module in every page's download would serve only that.
 */
import { encodeEvc1 } from '@vss/protocol';
import { micCapture, type PcmBlock } from './mic-capture';
import { webCodecsReady } from './webcodecs-ready';
import type { OpusPacket } from './webm-opus';

/** The rate PCM is sent at, about: enough for speech (telephony's wideband). */
const PCM_RATE = 16_000;
const OPUS = { codec: 'opus', sampleRate: 48_000, numberOfChannels: 1, bitrate: 32_000 } as const;

/** What the publisher needs from the connection. */
export interface AudioSink {
  /** false: skip this chunk (rate budget spent, or the socket's queue is long) */
  ready(): boolean;
  /** publishes one payload, stamped `timestampMs` (when its sound was captured, ms since 1970) */
  send(payload: Uint8Array, timestampMs: number): Promise<boolean>;
  /**
   * sound keeps failing to encode (told once per run of failures), or cannot be read at all in
   * this browser (`final`: nothing will be sent)
   */
  failed(err: unknown, final?: boolean): void;
}

/** Encodes one microphone track and hands each payload to the sink. */
export class AudioPublisher {
  private readonly stopCapture: () => void;
  private encoder: AudioEncoder | null = null;
  private description: Uint8Array = new Uint8Array(0);
  /** the encoder's clock: µs of audio fed so far, so timestamps never jump backwards */
  private fedUs = 0;
  /**
   * Recent blocks' encoder timestamps (µs) and the wall clock when each was captured (ms): a
   * chunk's timestamp_ms is its capture time, the clock of the video's pictures, so that its sound
   * is recorded and played with them however long it waited on the way.
   */
  private readonly captured: { us: number; epochMs: number }[] = [];
  private stopped = false;

  constructor(
    track: MediaStreamTrack,
    private readonly sink: AudioSink,
    /** Opus (true) or PCM (false); see `AudioPublisher.canEncode` */
    private readonly opus: boolean,
    /** where the SDK's AudioWorklet module is served (mic-capture.ts) */
    workletUrl: string,
  ) {
    this.stopCapture = micCapture(
      track,
      {
        pcm: (b) => this.onBlock(b),
        opus: (p, head, capturedMs) => this.onPacket(p, head, capturedMs),
        failed: (err, final) => sink.failed(err, final),
      },
      workletUrl,
    );
  }

  /** True when this browser can encode Opus through WebCodecs. */
  static async canEncode(): Promise<boolean> {
    if (typeof AudioEncoder === 'undefined' || typeof AudioData === 'undefined') return false;
    await webCodecsReady();
    try {
      return (await AudioEncoder.isConfigSupported(OPUS)).supported === true;
    } catch {
      return false;
    }
  }

  /** Stops reading and encoding. */
  stop(): void {
    this.stopped = true;
    this.stopCapture();
    if (this.encoder && this.encoder.state !== 'closed') this.encoder.close();
    this.encoder = null;
  }

  private onBlock(b: PcmBlock): void {
    if (this.stopped || !b.samples.length) return;
    const timestampUs = this.fedUs;
    const durationUs = Math.round((b.samples.length / b.sampleRate) * 1e6);
    this.fedUs += durationUs;
    // The block's last sample was captured about now.
    this.captured.push({ us: timestampUs, epochMs: Date.now() - durationUs / 1000 });
    if (this.captured.length > 64) this.captured.shift();
    if (this.opus) this.encode(b, timestampUs);
    else this.pcm(b, timestampUs);
  }

  /** A packet the browser encoded already (MediaRecorder's Opus): sent as it is. */
  private onPacket(p: OpusPacket, head: Uint8Array, capturedMs: number): void {
    if (this.stopped || !this.sink.ready()) return;
    const timestampUs = this.fedUs;
    this.fedUs += p.durationUs;
    void this.sink.send(
      encodeEvc1({
        codec: 'opus',
        key: true,
        timestampUs,
        durationUs: p.durationUs,
        description: head,
        data: p.data,
      }),
      capturedMs,
    );
  }

  private encode(b: PcmBlock, timestampUs: number): void {
    if (!this.encoder || this.encoder.state === 'closed') {
      this.encoder = new AudioEncoder({
        output: (chunk, meta) => this.onChunk(chunk, meta),
        error: () => {
          // A failed encoder is closed; the next block starts a new one.
          this.encoder = null;
        },
      });
      // Why the block's rate: the encoder resamples to Opus's 48 kHz itself.
      this.encoder.configure({ ...OPUS, sampleRate: b.sampleRate });
    }
    const data = new AudioData({
      format: 'f32-planar',
      sampleRate: b.sampleRate,
      numberOfChannels: 1,
      numberOfFrames: b.samples.length,
      timestamp: timestampUs,
      data: b.samples as Float32Array<ArrayBuffer>,
    });
    try {
      this.encoder.encode(data);
    } finally {
      data.close();
    }
  }

  /** The wall clock (ms since 1970) when the sound at encoder time `us` was captured. */
  private epochMsAt(us: number): number {
    let at = this.captured[0];
    for (const c of this.captured) if (c.us <= us) at = c;
    return Math.round(at ? at.epochMs + (us - at.us) / 1000 : Date.now());
  }

  private onChunk(chunk: EncodedAudioChunk, meta?: EncodedAudioChunkMetadata): void {
    const d = meta?.decoderConfig?.description;
    if (d)
      // A copy: the encoder may reuse the buffer it handed out.
      this.description = (
        ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d)
      ).slice();
    // Why check here rather than before encoding: Opus frames are independent, so skipping one
    // costs 20 ms of sound and nothing after it.
    if (this.stopped || !this.sink.ready()) return;
    const data = new Uint8Array(chunk.byteLength);
    chunk.copyTo(data);
    void this.sink.send(
      encodeEvc1({
        codec: 'opus',
        key: true,
        timestampUs: chunk.timestamp,
        durationUs: chunk.duration ?? 20_000,
        description: this.description,
        data,
      }),
      this.epochMsAt(chunk.timestamp),
    );
  }

  /**
   * 16-bit PCM, at about 16 kHz (every 2nd or 3rd sample, each the mean of its group): speech
   * stays clear and the rate falls from 768 to 256 kbit/s.
   */
  private pcm(b: PcmBlock, timestampUs: number): void {
    if (!this.sink.ready()) return;
    const factor = Math.max(1, Math.floor(b.sampleRate / PCM_RATE));
    const rate = b.sampleRate / factor;
    const n = Math.floor(b.samples.length / factor);
    const bytes = new Uint8Array(n * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < factor; j++) sum += b.samples[i * factor + j]!;
      const s = Math.max(-1, Math.min(1, sum / factor));
      view.setInt16(i * 2, Math.round(s * 32767), true);
    }
    const description = new TextEncoder().encode(JSON.stringify({ sampleRate: rate, numberOfChannels: 1 }));
    void this.sink.send(
      encodeEvc1({
        codec: 'pcm-s16',
        key: true,
        timestampUs,
        durationUs: Math.round((n / rate) * 1e6),
        description,
        data: bytes,
      }),
      this.epochMsAt(timestampUs),
    );
  }
}
