/**
 * Raw frames of a local capture track: `MediaStreamTrackProcessor` where the browser has it,
 * otherwise a hidden <video> (pictures) or a Web Audio node (sound) read on a clock.
 */

type Processor<T> = new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<T> };

/** The browser's MediaStreamTrackProcessor, when it has one (Chromium exposes it to pages). */
function processor<T>(): Processor<T> | null {
  return (globalThis as { MediaStreamTrackProcessor?: Processor<T> }).MediaStreamTrackProcessor ?? null;
}

/** Stops a frame source. */
export type StopFrames = () => void;

/** A picture of the camera or screen: a WebCodecs frame, or an element to draw from. */
export type Picture = { frame: VideoFrame } | { element: HTMLVideoElement };

/** Called once when handling frames keeps failing (e.g. the encoder refuses every frame). */
export type FramesFailed = (err: unknown) => void;

/** Failures in a row after which frame handling counts as broken and is reported. */
const FAILURES_TO_REPORT = 10;

/**
 * `each`, made safe to call per frame: a throw skips that frame only (the next may well work,
 * e.g. after the encoder is configured anew); a run of failures is reported once to `failed`.
 */
function guarded<T>(each: (value: T) => void, failed: FramesFailed): (value: T) => void {
  let inRow = 0;
  return (value) => {
    try {
      each(value);
      inRow = 0;
    } catch (err) {
      if (++inRow === FAILURES_TO_REPORT) failed(err);
    }
  };
}

/** Reads a stream to its end, handing each value to `each` (which must not throw); returns the function that stops it. */
function pump<T>(readable: ReadableStream<T>, each: (value: T) => void): StopFrames {
  const reader = readable.getReader();
  let stopped = false;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || stopped) {
          (value as { close?: () => void } | undefined)?.close?.();
          break;
        }
        each(value);
      }
    } catch {
      // the track ended or the reader was cancelled
    }
  })();
  return () => {
    stopped = true;
    void reader.cancel().catch(() => undefined);
  };
}

/**
 * Calls `each` with pictures of a video track, at most `fps` per second. A `{ frame }` must be
 * closed by the callee; an `{ element }` is only valid during the call.
 */
export function videoPictures(
  track: MediaStreamTrack,
  fps: number,
  each: (p: Picture) => void,
  failed: FramesFailed,
): StopFrames {
  const P = processor<VideoFrame>();
  const minGapUs = 1_000_000 / fps - 2000;
  if (P) {
    let last = -Infinity;
    const thinned = (frame: VideoFrame) => {
      // Why thin out here: cameras deliver 30 fps; encoding fewer saves CPU and the rate budget.
      if (frame.timestamp - last < minGapUs) return frame.close();
      last = frame.timestamp;
      try {
        each({ frame });
      } catch (err) {
        // The callee owns the frame, but one that threw may not have closed it (closing twice is harmless).
        frame.close();
        throw err;
      }
    };
    return pump(new P({ track }).readable, guarded(thinned, failed));
  }
  const handle = guarded(each, failed);
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = new MediaStream([track]);
  void video.play().catch(() => undefined);
  const timer = setInterval(() => {
    if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA && video.videoWidth)
      handle({ element: video });
  }, 1000 / fps);
  return () => {
    clearInterval(timer);
    video.pause();
    video.srcObject = null;
  };
}

/** Mono PCM of a microphone: `samples` at `sampleRate`, captured starting at `timestampUs`. */
export interface PcmBlock {
  samples: Float32Array;
  sampleRate: number;
  timestampUs: number;
}

/** Mixes the planes of an AudioData down to one mono block. */
function monoOf(data: AudioData): Float32Array {
  const n = data.numberOfFrames;
  const mono = new Float32Array(n);
  const plane = new Float32Array(n);
  for (let c = 0; c < data.numberOfChannels; c++) {
    data.copyTo(plane, { planeIndex: c, format: 'f32-planar' });
    for (let i = 0; i < n; i++) mono[i]! += plane[i]! / data.numberOfChannels;
  }
  return mono;
}

/** Calls `each` with mono PCM blocks of an audio track, in order. */
export function micBlocks(
  track: MediaStreamTrack,
  each: (b: PcmBlock) => void,
  failed: FramesFailed,
): StopFrames {
  const P = processor<AudioData>();
  if (P) {
    const mono = (data: AudioData) => {
      try {
        each({ samples: monoOf(data), sampleRate: data.sampleRate, timestampUs: data.timestamp });
      } finally {
        data.close();
      }
    };
    return pump(new P({ track }).readable, guarded(mono, failed));
  }
  const handle = guarded(each, failed);
  // Why a ScriptProcessorNode: an AudioWorklet needs a module URL, and the dashboard's content
  // security policy allows scripts from its own origin only; this fallback serves browsers
  // without MediaStreamTrackProcessor, at a small latency cost.
  const ctx = new AudioContext();
  const source = ctx.createMediaStreamSource(new MediaStream([track]));
  const node = ctx.createScriptProcessor(2048, 1, 1);
  node.onaudioprocess = (ev) => {
    const samples = new Float32Array(ev.inputBuffer.getChannelData(0));
    handle({ samples, sampleRate: ctx.sampleRate, timestampUs: Math.round(ev.playbackTime * 1e6) });
  };
  source.connect(node);
  // The node only runs while connected to the destination; it writes silence there.
  node.connect(ctx.destination);
  void ctx.resume();
  return () => {
    node.onaudioprocess = null;
    source.disconnect();
    node.disconnect();
    void ctx.close();
  };
}
