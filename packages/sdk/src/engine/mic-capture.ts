/**
 * The microphone's sound, read in the first way this browser allows:
 * 1. `MediaStreamTrackProcessor` on the page (Chromium): PCM blocks with the capture's timestamps.
 * 2. An AudioWorklet (`/sdk/mic-worklet.js`) in an AudioContext (Firefox, Safari): PCM blocks from
 *    the audio thread. An AudioContext runs only where the browser has a sound output device.
 * 3. Where none starts within START_MS (Firefox on a machine without speakers never starts an
 *    AudioContext): `MediaRecorder` making WebM Opus, which needs no output; its packets are sent as
 *    they are, already encoded.
 * When all three fail, `failed` is told once with the reason in words and `final` set: the
 * microphone cannot be sent from this browser, and the person (and, by its absence, everyone
 * else) is told so rather than left with a silent gap.
 */
import { audioPlanes } from './audio-planes';
import { WebmOpusReader, type OpusPacket } from './webm-opus';

/** Mono PCM of a microphone: `samples` at `sampleRate`, captured starting at `timestampUs`. */
export interface PcmBlock {
  samples: Float32Array;
  sampleRate: number;
  timestampUs: number;
}

/** Where the microphone's sound goes: PCM to encode, or Opus packets encoded by the browser. */
export interface MicHandlers {
  pcm(b: PcmBlock): void;
  /** one packet, the stream's OpusHead, and when its sound was captured (ms since 1970) */
  opus(p: OpusPacket, head: Uint8Array, capturedMs: number): void;
  /** sound cannot be read this way or any other (`final`), or keeps failing to encode */
  failed(err: unknown, final?: boolean): void;
}

/** How long a way of reading sound has to deliver its first block before the next is tried. */
export const START_MS = 2500;
/** MediaRecorder hands its data over this often (ms): a block of sound at a time. */
const RECORDER_SLICE_MS = 40;
const WEBM_OPUS = 'audio/webm;codecs=opus';

type Processor = new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<AudioData> };

/** Mixes the planes of an AudioData down to one mono block. */
function monoOf(data: AudioData): Float32Array {
  const planes = audioPlanes(data);
  const mono = new Float32Array(data.numberOfFrames);
  for (const plane of planes) for (let i = 0; i < mono.length; i++) mono[i]! += plane[i]! / planes.length;
  return mono;
}

/** A way of reading sound: started, it returns its stop function. */
type Way = (track: MediaStreamTrack, h: MicHandlers, started: () => void) => Promise<() => void>;

const processorWay: Way = async (track, h, started) => {
  const P = (globalThis as { MediaStreamTrackProcessor?: Processor }).MediaStreamTrackProcessor;
  if (!P) throw new Error('no MediaStreamTrackProcessor');
  const reader = new P({ track }).readable.getReader();
  let stopped = false;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || stopped) return value?.close();
        try {
          h.pcm({ samples: monoOf(value), sampleRate: value.sampleRate, timestampUs: value.timestamp });
          started();
        } finally {
          value.close();
        }
      }
    } catch {
      // the track ended or the reader was cancelled
    }
  })();
  return () => {
    stopped = true;
    void reader.cancel().catch(() => undefined);
  };
};

const workletWay =
  (moduleUrl: string): Way =>
  async (track, h, started) => {
    if (typeof AudioWorkletNode === 'undefined') throw new Error('no AudioWorklet');
    const ctx = new AudioContext();
    try {
      await ctx.audioWorklet.addModule(moduleUrl);
      const source = ctx.createMediaStreamSource(new MediaStream([track]));
      const node = new AudioWorkletNode(ctx, 'vss-mic', { numberOfOutputs: 1 });
      node.port.onmessage = (
        ev: MessageEvent<{ samples: Float32Array; frame: number; sampleRate: number }>,
      ) => {
        const { samples, frame, sampleRate } = ev.data;
        h.pcm({ samples, sampleRate, timestampUs: Math.round((frame / sampleRate) * 1e6) });
        started();
      };
      source.connect(node);
      // Why connect it: a node the output does not pull from is not run in every browser. It
      // writes silence there.
      node.connect(ctx.destination);
      void ctx.resume().catch(() => undefined);
      return () => {
        node.port.onmessage = null;
        source.disconnect();
        node.disconnect();
        void ctx.close().catch(() => undefined);
      };
    } catch (err) {
      void ctx.close().catch(() => undefined);
      throw err;
    }
  };

const recorderWay: Way = async (track, h, started) => {
  if (typeof MediaRecorder === 'undefined' || !MediaRecorder.isTypeSupported(WEBM_OPUS))
    throw new Error('no MediaRecorder for WebM Opus');
  const webm = new WebmOpusReader();
  const recorder = new MediaRecorder(new MediaStream([track]), {
    mimeType: WEBM_OPUS,
    audioBitsPerSecond: 32_000,
  });
  // Blobs are read in order: each waits for the one before it.
  let chain = Promise.resolve();
  recorder.ondataavailable = (ev) => {
    const arrived = Date.now();
    chain = chain.then(async () => {
      const packets = webm.push(new Uint8Array(await ev.data.arrayBuffer()));
      // The last packet's sound ended about when the data arrived.
      let end = arrived - packets.reduce((us, p) => us + p.durationUs, 0) / 1000;
      for (const p of packets) {
        h.opus(p, webm.head!, Math.round(end));
        end += p.durationUs / 1000;
        started();
      }
    });
    chain = chain.catch((err: unknown) => h.failed(err));
  };
  recorder.start(RECORDER_SLICE_MS);
  return () => {
    recorder.ondataavailable = null;
    if (recorder.state !== 'inactive') recorder.stop();
  };
};

/**
 * Reads the microphone track with the first way that delivers sound (see above); returns the
 * function that stops it. `workletUrl` is where the SDK's AudioWorklet module is served.
 */
export function micCapture(track: MediaStreamTrack, h: MicHandlers, workletUrl: string): () => void {
  // How long each way may take to deliver: a processor needs no sound output, so it is not timed.
  const ways: [string, Way, number][] = [
    ['MediaStreamTrackProcessor', processorWay, Infinity],
    ['AudioWorklet', workletWay(workletUrl), START_MS],
    ['MediaRecorder', recorderWay, START_MS],
  ];
  let stop: (() => void) | null = null;
  let stopped = false;
  const tried: string[] = [];
  const next = async (): Promise<void> => {
    const way = ways.shift();
    if (!way) {
      return h.failed(
        new Error(
          'this browser could not read the microphone: it has no sound output device to run sound through, ' +
            `and no other way worked (tried ${tried.join('; ')})`,
        ),
        true,
      );
    }
    const [name, start, limit] = way;
    let delivered = false;
    let late = false;
    const timer =
      limit === Infinity
        ? null
        : setTimeout(() => {
            if (delivered || stopped) return;
            late = true;
            tried.push(`${name}: no sound within ${limit / 1000} s`);
            stop?.();
            stop = null;
            void next();
          }, limit);
    try {
      const s = await start(track, h, () => {
        delivered = true;
        if (timer) clearTimeout(timer);
      });
      if (late || stopped) return s();
      stop = s;
    } catch (err) {
      if (timer) clearTimeout(timer);
      if (late || stopped) return;
      tried.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      return next();
    }
  };
  void next();
  return () => {
    stopped = true;
    stop?.();
  };
}
