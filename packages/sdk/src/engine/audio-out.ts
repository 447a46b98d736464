/**
 * Plays audio tracks (live or recorded) through Web Audio: EVC1 `opus` through WebCodecs'
 * `AudioDecoder` (or libopus in WebAssembly where that cannot be used, see OPUS_IN_WASM), EVC1
 * `pcm-s16` directly; every track is mixed into one gain node.
 */
import { decodeEvc1, isEvc1, type Evc1Chunk } from '@vss/protocol';
import { audioPlanes } from './audio-planes';

/** Seconds of audio kept ahead of the clock for chunks played as soon as possible. */
const JITTER_S = 0.12;
/** A track further ahead than this has piled up (a stalled tab, a burst): drop to stay live. */
const MAX_AHEAD_S = 1;

/** Start times kept per track for chunks in its decoder; far more than a decoder holds. */
const MAX_PENDING = 256;

/** The part of the `opus-decoder` package's OpusDecoder used here. */
interface WasmOpus {
  ready: Promise<void>;
  decodeFrame(frame: Uint8Array): { channelData: Float32Array[]; samplesDecoded: number; sampleRate: number };
  free(): void;
}
type WasmOpusClass = new (options: { channels: number; preSkip: number }) => WasmOpus;

interface TrackState {
  decoder: AudioDecoder | null;
  /** the WebAssembly decoder (OPUS_IN_WASM), once it is ready */
  wasm: WasmOpus | null;
  key: string | null;
  /** where the next "as soon as possible" chunk of this track starts, in AudioContext time */
  next: number;
  /** requested start times of chunks in the decoder, by chunk timestamp */
  when: Map<number, number>;
  sources: Set<AudioBufferSourceNode>;
  /** set when the track was reset: its decoder's late output is dropped */
  gone: boolean;
  /** the peak of the latest decoded chunk, and when it was decoded (performance.now()) */
  peak: number;
  peakAt: number;
}

/** A level older than this is silence: the track stopped sending. */
const LEVEL_MAX_AGE_MS = 300;

/** The largest absolute sample of a buffer's channels. */
function peakOf(buffer: AudioBuffer): number {
  let peak = 0;
  for (let c = 0; c < buffer.numberOfChannels; c++)
    for (const v of buffer.getChannelData(c)) peak = Math.max(peak, Math.abs(v));
  return peak;
}

/** Opus channel count: from an OpusHead description, else the packet's TOC stereo bit. */
function opusChannels(chunk: Evc1Chunk): number {
  const d = chunk.description;
  if (d.length >= 19 && String.fromCharCode(...d.subarray(0, 8)) === 'OpusHead') return d[9] || 1;
  return chunk.data.length && chunk.data[0]! & 0x04 ? 2 : 1;
}

/** The pcm-s16 description, `{ sampleRate, numberOfChannels }`, or null when unusable. */
function pcmFormat(chunk: Evc1Chunk): { sampleRate: number; channels: number } | null {
  try {
    const d = JSON.parse(new TextDecoder().decode(chunk.description)) as {
      sampleRate?: unknown;
      numberOfChannels?: unknown;
    };
    const sampleRate = Number(d.sampleRate);
    const channels = Number(d.numberOfChannels);
    if (!(sampleRate >= 3000 && sampleRate <= 768_000) || !(channels >= 1 && channels <= 32)) return null;
    return { sampleRate, channels: Math.trunc(channels) };
  } catch {
    return null;
  }
}

const UA = typeof navigator === 'undefined' ? '' : navigator.userAgent;
/** WebKitGTK (GNOME Web, WebKit on Linux): Apple's engine on Linux, not a Chromium. */
const WEBKIT_GTK = /AppleWebKit/.test(UA) && /X11|Linux/.test(UA) && !/Chrome|Chromium|Android/.test(UA);

/**
 * True where Opus is decoded by libopus in WebAssembly (/sdk/opus-decoder.js, loaded on the
 * first Opus chunk) instead of WebCodecs: WebKitGTK (measured on 2.50.6) aborts its whole web
 * process ("double free or corruption") when a page reads the samples its own AudioDecoder
 * decoded from mono Opus, which is what every vss publisher sends. Safari (macOS, iOS) is another
 * build and is not affected.
 */
export const OPUS_IN_WASM = WEBKIT_GTK && typeof WebAssembly !== 'undefined';

/**
 * Why this browser cannot play others' sound, or null: it has no WebCodecs decoders, or it is
 * WebKitGTK without WebAssembly.
 */
export const SOUND_UNSUPPORTED: string | null =
  typeof navigator === 'undefined'
    ? null
    : typeof AudioDecoder === 'undefined' || typeof VideoDecoder === 'undefined'
      ? // Firefox for Android, and browsers older than WebCodecs: JPEG pictures alone are drawn.
        "this browser has no WebCodecs (Firefox for Android has none): it cannot play the others' sound or show most video; open the call in Chrome, Edge, Safari or Firefox on a computer"
      : WEBKIT_GTK && !OPUS_IN_WASM
        ? 'this browser (WebKitGTK, GNOME Web) cannot play the sound of a call without WebAssembly: open it in Firefox or Chromium to hear the others'
        : null;

/** The WebAssembly Opus decoder's class, loaded once per page; null when it could not be. */
let wasmOpus: Promise<WasmOpusClass | null> | null = null;

/** How long a sound output may take to start before a page says there is none. */
export const SOUND_START_MS = 2000;

/**
 * Tells `off` when `ctx` (null: no Web Audio at all) has not started within SOUND_START_MS, and
 * `on` when it starts after all. Never wait for it: a browser with no sound output device never
 * starts an AudioContext (Firefox), and one not started from a click may stay suspended.
 */
export function watchSound(
  ctx: AudioContext | null,
  off: () => void,
  on: () => void = () => undefined,
): void {
  if (SOUND_UNSUPPORTED) return off();
  setTimeout(() => ctx?.state !== 'running' && off(), SOUND_START_MS);
  ctx?.addEventListener('statechange', () => ctx.state === 'running' && on());
}

/** Mixes the audio of any number of tracks into an AudioContext's destination. */
export class AudioOut {
  private readonly gain: GainNode;
  private readonly tracks = new Map<string, TrackState>();
  private closed = false;

  /**
   * `sdkBase`: where the SDK's files are served (the WebAssembly decoder is loaded from there when
   * this browser needs it); `unavailable`: told why, when sound cannot be decoded after all.
   */
  constructor(
    private readonly ctx: AudioContext,
    private readonly opts: { sdkBase?: string; unavailable?: (why: string) => void } = {},
  ) {
    this.gain = ctx.createGain();
    this.gain.connect(ctx.destination);
  }

  /**
   * Plays one EVC1 audio payload of a track; `when` is the AudioContext time it should start at.
   * Without it the chunk follows the track's previous one, behind a small jitter buffer.
   */
  push(trackId: string, payload: Uint8Array, when?: number): void {
    if (this.closed || !isEvc1(payload)) return;
    let chunk: Evc1Chunk;
    try {
      chunk = decodeEvc1(payload);
    } catch {
      return;
    }
    const track = this.track(trackId);
    if (chunk.codec === 'pcm-s16') return this.pushPcm(track, chunk, when);
    if (chunk.codec !== 'opus' || SOUND_UNSUPPORTED) return;
    const channels = opusChannels(chunk);
    if (OPUS_IN_WASM) return this.pushWasm(track, chunk, channels, when);
    const key = `opus|${channels}|${chunk.description.length}`;
    if (key !== track.key || !track.decoder || track.decoder.state === 'closed') {
      if (!this.configure(track, chunk, channels, key)) return;
    }
    if (when !== undefined) {
      track.when.set(chunk.timestampUs, when);
      // A bound for a decoder whose output timestamps match none of its input.
      if (track.when.size > MAX_PENDING) track.when.delete(track.when.keys().next().value!);
    }
    try {
      track.decoder!.decode(
        new EncodedAudioChunk({
          type: 'key',
          timestamp: chunk.timestampUs,
          duration: chunk.durationUs || undefined,
          data: chunk.data,
        }),
      );
    } catch {
      this.dropDecoder(track);
    }
  }

  /** How loud a track is right now, 0..1: the peak of its latest sound, 0 once it has gone quiet. */
  level(trackId: string): number {
    const t = this.tracks.get(trackId);
    return t && performance.now() - t.peakAt < LEVEL_MAX_AGE_MS ? t.peak : 0;
  }

  /** Stops and forgets one track's queued audio (or every track's). */
  reset(trackId?: string): void {
    const ids = trackId === undefined ? [...this.tracks.keys()] : [trackId];
    for (const id of ids) {
      const t = this.tracks.get(id);
      if (!t) continue;
      t.gone = true;
      this.dropDecoder(t);
      for (const s of t.sources) {
        try {
          s.stop();
        } catch {
          // not started yet or already ended
        }
      }
      this.tracks.delete(id);
    }
  }

  /** Stops everything and disconnects from the context (which the caller owns). */
  close(): void {
    this.reset();
    this.closed = true;
    this.gain.disconnect();
  }

  private track(id: string): TrackState {
    let t = this.tracks.get(id);
    if (!t) {
      t = {
        decoder: null,
        wasm: null,
        key: null,
        next: 0,
        when: new Map(),
        sources: new Set(),
        gone: false,
        peak: 0,
        peakAt: 0,
      };
      this.tracks.set(id, t);
    }
    return t;
  }

  private configure(track: TrackState, chunk: Evc1Chunk, channels: number, key: string): boolean {
    this.dropDecoder(track);
    const isHead = chunk.description.length >= 19;
    try {
      const decoder = new AudioDecoder({
        output: (data) => this.play(track, data),
        error: () => this.dropDecoder(track),
      });
      decoder.configure({
        codec: 'opus',
        sampleRate: 48_000,
        numberOfChannels: channels,
        ...(isHead ? { description: chunk.description } : {}),
      });
      track.decoder = decoder;
      track.key = key;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Decodes one Opus packet in WebAssembly and plays it. Packets that come while the module loads
   * (once per page) or a track's decoder starts are dropped: a fraction of a second of sound.
   */
  private pushWasm(track: TrackState, chunk: Evc1Chunk, channels: number, when?: number): void {
    const key = `wasm|${channels}`;
    if (track.key !== key) {
      this.dropDecoder(track);
      track.key = key;
      void this.startWasm(track, key, channels);
    }
    if (!track.wasm) return;
    let decoded: ReturnType<WasmOpus['decodeFrame']>;
    try {
      decoded = track.wasm.decodeFrame(chunk.data);
    } catch {
      return;
    }
    if (!decoded.samplesDecoded) return;
    const buffer = this.ctx.createBuffer(
      decoded.channelData.length,
      decoded.samplesDecoded,
      decoded.sampleRate,
    );
    decoded.channelData.forEach((plane, c) => buffer.copyToChannel(plane as Float32Array<ArrayBuffer>, c));
    this.schedule(track, buffer, when);
  }

  private async startWasm(track: TrackState, key: string, channels: number): Promise<void> {
    const url = new URL('opus-decoder.js', this.opts.sdkBase ?? new URL('/sdk/', location.href)).href;
    wasmOpus ??= (import(/* @vite-ignore */ url) as Promise<{ OpusDecoder: WasmOpusClass }>).then(
      (m) => m.OpusDecoder,
      () => null,
    );
    const Decoder = await wasmOpus;
    if (!Decoder) {
      this.opts.unavailable?.(`this browser could not load the sound decoder from ${url}`);
      return;
    }
    const decoder = new Decoder({ channels, preSkip: 0 });
    try {
      await decoder.ready;
    } catch {
      decoder.free();
      this.opts.unavailable?.('this browser could not start the sound decoder (WebAssembly is blocked)');
      return;
    }
    if (this.closed || track.gone || track.key !== key) return decoder.free();
    track.wasm = decoder;
  }

  private dropDecoder(track: TrackState): void {
    track.wasm?.free();
    track.wasm = null;
    const d = track.decoder;
    track.decoder = null;
    track.key = null;
    track.when.clear();
    if (d && d.state !== 'closed') {
      try {
        d.close();
      } catch {
        // closed by an error already
      }
    }
  }

  private play(track: TrackState, data: AudioData): void {
    try {
      if (this.closed || track.gone) return;
      const planes = audioPlanes(data);
      const buffer = this.ctx.createBuffer(planes.length, data.numberOfFrames, data.sampleRate);
      planes.forEach((plane, c) => buffer.copyToChannel(plane as Float32Array<ArrayBuffer>, c));
      const when = track.when.get(data.timestamp);
      // Output comes in input order: what was handed in up to this chunk is done with, also
      // entries whose output carried another timestamp (they would otherwise stay until reset).
      for (const ts of track.when.keys()) {
        if (ts > data.timestamp) break;
        track.when.delete(ts);
      }
      this.schedule(track, buffer, when);
    } finally {
      data.close();
    }
  }

  private pushPcm(track: TrackState, chunk: Evc1Chunk, when?: number): void {
    const fmt = pcmFormat(chunk);
    if (!fmt) return;
    const frames = Math.floor(chunk.data.length / 2 / fmt.channels);
    if (!frames) return;
    const view = new DataView(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
    const buffer = this.ctx.createBuffer(fmt.channels, frames, fmt.sampleRate);
    for (let c = 0; c < fmt.channels; c++) {
      const plane = new Float32Array(frames);
      // Interleaved little-endian samples.
      for (let i = 0; i < frames; i++) plane[i] = view.getInt16((i * fmt.channels + c) * 2, true) / 32768;
      buffer.copyToChannel(plane, c);
    }
    this.schedule(track, buffer, when);
  }

  private schedule(track: TrackState, buffer: AudioBuffer, when?: number): void {
    track.peak = peakOf(buffer);
    track.peakAt = performance.now();
    const now = this.ctx.currentTime;
    let start: number;
    let offset = 0;
    if (when !== undefined) {
      if (when + buffer.duration <= now) return;
      start = Math.max(when, now);
      offset = start - when;
    } else {
      // Why a jitter buffer: network chunks arrive unevenly; playing each the moment it lands
      // would leave gaps. After an underrun the track starts again behind a fresh buffer.
      start = track.next < now ? now + JITTER_S : track.next;
      if (start - now > MAX_AHEAD_S) return;
      track.next = start + buffer.duration;
    }
    const source = this.ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(this.gain);
    track.sources.add(source);
    source.onended = () => {
      track.sources.delete(source);
      source.disconnect();
    };
    source.start(start, offset);
  }
}
