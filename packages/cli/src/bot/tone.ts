/**
 * The bots' microphone: a sine tone encoded to Opus (48 kHz mono, 20 ms frames, about 32 kbit/s),
 * what a browser's `AudioEncoder` sends, by one ffmpeg (libopus) per pitch in real time. The bots
 * that share a pitch share its encoder, as they share the video's.
 */
import { encodeEvc1 } from '@vss/protocol';
import { endChild, exitText, start } from './ffmpeg.js';
import { OggReader } from './ogg.js';

export const SAMPLE_RATE = 48_000;
export const FRAME_MS = 20;
const BITRATE_KBPS = 32;

/**
 * The pitch of bot number `n` (1-based): 300, 350, … 750 Hz, then again: distinct pitches tell the
 * bots apart by ear.
 */
export function pitchOf(n: number): number {
  return 300 + 50 * ((n - 1) % 10);
}

export function toneArgs(frequency: number): string[] {
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
    // `-re`: packets leave in real time, as from a microphone. sine's level is -18 dBFS: audible,
    // far from clipping when a player mixes several bots.
    ...['-re', '-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=${SAMPLE_RATE}`],
    ...['-ac', '1', '-c:a', 'libopus', '-b:a', `${BITRATE_KBPS}k`, '-frame_duration', String(FRAME_MS)],
    // Constrained VBR: libopus's unconstrained VBR spends about 49 kbit/s on a pure tone at a
    // 32 kbit/s target; constrained stays near the target (about 34 kbit/s), as a voice would.
    ...['-vbr', 'constrained'],
    // One Ogg page per packet: the muxer's default page of a second would hand them out in bursts.
    ...['-page_duration', String(FRAME_MS * 1000), '-flush_packets', '1', '-f', 'ogg', 'pipe:1'],
  ];
}

/**
 * The EVC1 chunk of Opus packet `data` as audio frame number `index` (its time is index × 20 ms on
 * the bot's clock), with the stream's OpusHead as the decoder description, as the dashboard sends.
 */
export function opusChunk(head: Uint8Array, data: Uint8Array, index: number): Uint8Array {
  return encodeEvc1({
    key: true,
    codec: 'opus',
    timestampUs: index * FRAME_MS * 1000,
    durationUs: FRAME_MS * 1000,
    description: head,
    data,
  });
}

/** A running Opus encoder of one tone: subscribe to its packets; `stop()` ends the process. */
export class ToneEncoder {
  readonly pid: number | undefined;
  readonly args: string[];
  /** the OpusHead packet, once it came: the decoder description */
  head: Uint8Array | null = null;
  /** resolves once the first audio packet came, or the encoder ended */
  readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private readonly proc: ReturnType<typeof start>;
  private readonly listeners = new Set<(packet: Uint8Array) => void>();
  private readonly endListeners = new Set<(error: Error | null) => void>();
  private stopping = false;
  private ended = false;
  /** packets seen: the first two are OpusHead and OpusTags */
  private count = 0;

  constructor(ffmpeg: string, frequency: number) {
    this.args = toneArgs(frequency);
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    this.proc = start(ffmpeg, this.args);
    this.pid = this.proc.child.pid;
    const reader = new OggReader();
    this.proc.child.stdout!.on('data', (chunk: Buffer) => {
      let packets: Buffer[];
      try {
        packets = reader.push(chunk);
      } catch (err) {
        this.end(err as Error);
        void this.stop();
        return;
      }
      for (const p of packets) {
        const n = this.count++;
        if (n === 0) this.head = new Uint8Array(p);
        if (n < 2) continue;
        if (n === 2) this.resolveReady();
        for (const fn of this.listeners) fn(p);
      }
    });
    void this.proc.exited.then(() => {
      const { child } = this.proc;
      const err = this.proc.spawnError();
      if (this.stopping) this.end(null);
      else if (err) this.end(new Error(`cannot run ${ffmpeg}: ${err.message}`));
      else
        this.end(
          new Error(
            `the audio encoder stopped: ${exitText(child.exitCode, child.signalCode, this.proc.last())}`,
          ),
        );
    });
  }

  /** Calls `fn` with every Opus packet (20 ms); returns the unsubscribe function. */
  onPacket(fn: (packet: Uint8Array) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Calls `fn` once when the encoder ends: null when stopped, an Error when it failed on its own. */
  onEnd(fn: (error: Error | null) => void): void {
    this.endListeners.add(fn);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.listeners.clear();
    await endChild(this.proc.child, this.proc.exited);
  }

  private end(error: Error | null): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveReady();
    for (const fn of this.endListeners) fn(error);
    this.endListeners.clear();
  }
}
