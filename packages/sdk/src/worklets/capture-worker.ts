/**
 * The capture worker, served as `/sdk/capture-worker.js` (a plain script: it may be started as a
 * classic worker through a blob that imports it, when the page is on another origin than vss).
 * Two jobs, by the first message:
 * - `{ track, fps }`: reads a camera or screen track with `MediaStreamTrackProcessor`, which Safari
 *   exposes in workers only, and posts each picture back as a transferred `VideoFrame` (at most
 *   `fps` a second), or `{ unavailable }` when this worker has no processor either;
 * - `{ tick: fps }`: posts `tick` `fps` times a second. A worker's timers keep their pace in a
 *   hidden tab, where the page's own are slowed to once a second or less and its
 *   `requestVideoFrameCallback` stops, so a hidden publisher keeps sending pictures.
 */

type Processor = new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<VideoFrame> };
const scope = self as unknown as {
  onmessage: ((ev: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
  MediaStreamTrackProcessor?: Processor;
};

let timer: ReturnType<typeof setInterval> | null = null;
let reader: ReadableStreamDefaultReader<VideoFrame> | null = null;

async function read(track: MediaStreamTrack, fps: number): Promise<void> {
  const P = scope.MediaStreamTrackProcessor;
  if (!P) return scope.postMessage({ unavailable: 'no MediaStreamTrackProcessor in a worker' });
  reader = new P({ track }).readable.getReader();
  const minGapUs = 1_000_000 / fps - 2000;
  let last = -Infinity;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (value.timestamp - last < minGapUs) {
      value.close();
      continue;
    }
    last = value.timestamp;
    scope.postMessage({ frame: value }, [value as unknown as Transferable]);
  }
}

scope.onmessage = (
  ev: MessageEvent<{ track?: MediaStreamTrack; fps?: number; tick?: number; stop?: true }>,
) => {
  const m = ev.data;
  if (m.stop) {
    if (timer) clearInterval(timer);
    void reader?.cancel().catch(() => undefined);
    m.track?.stop();
    return;
  }
  if (m.tick) timer = setInterval(() => scope.postMessage('tick'), 1000 / m.tick);
  if (m.track)
    read(m.track, m.fps ?? 15).catch((err: unknown) => scope.postMessage({ unavailable: String(err) }));
};
