/**
 * Pictures of a local camera or screen track: `MediaStreamTrackProcessor` where the browser has it,
 * otherwise a hidden <video> read on a clock. (The microphone's sound: mic-capture.ts.)
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
 * Starts the SDK's capture worker from `url` (capture-worker.ts); null where workers cannot run.
 * A worker's script must come from the page's own origin: for a page of another origin, a blob of
 * that origin loads it (the page's content security policy must allow `worker-src blob:` then).
 */
function startWorker(url: string | null): Worker | null {
  if (!url || typeof Worker === 'undefined') return null;
  try {
    if (new URL(url).origin === location.origin) return new Worker(url);
    const code = `importScripts(${JSON.stringify(url)});`;
    return new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
  } catch {
    return null;
  }
}

/** Without a picture from requestVideoFrameCallback for this long, the worker's ticks take over. */
const RVFC_QUIET_MS = 500;

/**
 * Pictures from a hidden <video> playing the track: each new frame as `requestVideoFrameCallback`
 * tells of it, and on the worker's ticks while it tells of none (a hidden tab, a browser without
 * it). Without a worker, the page's own timer ticks (slowed to once a second in a hidden tab).
 */
function elementPictures(
  track: MediaStreamTrack,
  fps: number,
  handle: (p: Picture) => void,
  worker: Worker | null,
): StopFrames {
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = new MediaStream([track]);
  void video.play().catch(() => undefined);
  const minGapMs = 1000 / fps - 2;
  let last = -Infinity;
  let lastCallback = -Infinity;
  const take = () => {
    const now = performance.now();
    if (now - last < minGapMs || video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA || !video.videoWidth)
      return;
    last = now;
    handle({ element: video });
  };
  const rvfc = typeof video.requestVideoFrameCallback === 'function';
  let callback = 0;
  const onVideoFrame = () => {
    lastCallback = performance.now();
    take();
    callback = video.requestVideoFrameCallback(onVideoFrame);
  };
  if (rvfc) callback = video.requestVideoFrameCallback(onVideoFrame);
  const tick = () => {
    if (performance.now() - lastCallback > RVFC_QUIET_MS) take();
  };
  let timer: ReturnType<typeof setInterval> | null = null;
  const ownTimer = () => (timer ??= setInterval(tick, 1000 / fps));
  if (worker) {
    worker.onmessage = (ev) => ev.data === 'tick' && tick();
    worker.onerror = ownTimer;
    worker.postMessage({ tick: fps });
  } else ownTimer();
  return () => {
    if (rvfc) video.cancelVideoFrameCallback(callback);
    if (timer) clearInterval(timer);
    if (worker) worker.onmessage = null;
    video.pause();
    video.srcObject = null;
  };
}

/**
 * Calls `each` with pictures of a video track, at most `fps` per second, read in the first way
 * this browser allows: `MediaStreamTrackProcessor` on the page (Chromium); in the capture worker
 * `workerUrl` (Safari has the processor in workers only; a clone of the track is sent there);
 * else a hidden <video> (Firefox), see elementPictures. A `{ frame }` must be closed by the
 * callee; an `{ element }` is only valid during the call.
 */
export function videoPictures(
  track: MediaStreamTrack,
  fps: number,
  each: (p: Picture) => void,
  failed: FramesFailed,
  workerUrl: string | null,
): StopFrames {
  const P = processor<VideoFrame>();
  const minGapUs = 1_000_000 / fps - 2000;
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
  if (P) return pump(new P({ track }).readable, guarded(thinned, failed));
  const worker = startWorker(workerUrl);
  let stopped = false;
  let stop: StopFrames = () => undefined;
  const fromElement = () => {
    if (!stopped) stop = elementPictures(track, fps, guarded(each, failed), worker);
  };
  let clone: MediaStreamTrack | null = null;
  try {
    clone = track.clone();
    // Why a clone: a track sent to a worker leaves the page, which shows it to the person.
    worker?.postMessage({ track: clone, fps }, [clone as unknown as Transferable]);
  } catch {
    // This browser cannot send a track to a worker (Firefox).
    clone?.stop();
    clone = null;
  }
  if (!worker || !clone) fromElement();
  else {
    const handle = guarded(thinned, failed);
    worker.onmessage = (ev: MessageEvent<{ frame?: VideoFrame; unavailable?: string }>) => {
      if (ev.data.frame) return stopped ? ev.data.frame.close() : handle(ev.data.frame);
      if (ev.data.unavailable) fromElement();
    };
    stop = () => worker.postMessage({ stop: true });
  }
  return () => {
    stopped = true;
    stop();
    // Why later: the worker stops its copy of the track on the message above.
    if (worker) setTimeout(() => worker.terminate(), 1000);
  };
}
