/**
 * The bots' video: one ffmpeg process encodes each picture of a test pattern or a looped video file
 * in up to three VP8 encodings (what browsers send as simulcast layers) in real time, each as IVF
 * on its own pipe; every picture, all its encodings together, is handed to every bot. Encoding once
 * and fanning the same frames out is what lets `--count 50` cost one encoder, not 50.
 */
import {
  encodes,
  encodingsOf,
  endChild,
  exitText,
  ffmpegArgs,
  pipeOf,
  start,
  type Encoding,
  type VideoSpec,
} from './ffmpeg.js';
import { IvfReader, type IvfFrame } from './ivf.js';

/** One picture as the bots get it: its encodings, largest first, each absent if ffmpeg made none. */
export interface Picture {
  /** on ffmpeg's clock, the same for every encoding */
  ptsUs: number;
  durationUs: number;
  frames: Array<IvfFrame | undefined>;
  /** per encoding, whether it was to make a frame of this picture (the floor makes one in three) */
  expected: boolean[];
}

/** The running encoder: subscribe to its pictures; `stop()` ends the process. */
export class VideoEncoder {
  readonly pid: number | undefined;
  readonly args: string[];
  readonly encodings: Encoding[];
  private readonly proc: ReturnType<typeof start>;
  private readonly listeners = new Set<(picture: Picture) => void>();
  private readonly endListeners = new Set<(error: Error | null) => void>();
  private readonly durationUs: number;
  private readonly fps: number;
  /** pictures some of whose encodings are still on their way, by pts */
  private readonly partial = new Map<number, Picture>();
  private stopping = false;
  private ended = false;

  constructor(ffmpeg: string, spec: VideoSpec) {
    this.args = ffmpegArgs(spec, false);
    this.encodings = encodingsOf(spec);
    this.durationUs = Math.round(1e6 / spec.fps);
    this.fps = spec.fps;
    this.proc = start(ffmpeg, this.args, this.encodings.length);
    this.pid = this.proc.child.pid;
    this.encodings.forEach((_, i) => {
      const reader = new IvfReader();
      const pipe = this.proc.child.stdio[pipeOf(i)] as NodeJS.ReadableStream | null;
      pipe?.on('data', (chunk: Buffer) => {
        let frames: IvfFrame[];
        try {
          frames = reader.push(chunk);
        } catch (err) {
          this.end(err as Error);
          void this.stop();
          return;
        }
        for (const f of frames) this.add(i, f);
      });
    });
    void this.proc.exited.then(() => {
      const { child } = this.proc;
      const err = this.proc.spawnError();
      if (this.stopping) this.end(null);
      else if (err) this.end(new Error(`cannot run ${ffmpeg}: ${err.message}`));
      else
        this.end(
          new Error(
            `the video encoder stopped: ${exitText(child.exitCode, child.signalCode, this.proc.last())}`,
          ),
        );
    });
  }

  /** Calls `fn` with every encoded picture; returns the unsubscribe function. */
  onPicture(fn: (picture: Picture) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Calls `fn` once when the encoder ends: null when stopped, an Error when it failed on its own. */
  onEnd(fn: (error: Error | null) => void): void {
    this.endListeners.add(fn);
  }

  /** Ends ffmpeg (SIGTERM, then SIGKILL) and resolves once the process is gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.listeners.clear();
    await endChild(this.proc.child, this.proc.exited);
  }

  /** Files encoding `i` of a picture; hands on the pictures that are complete, in pts order. */
  private add(i: number, frame: IvfFrame): void {
    let picture = this.partial.get(frame.ptsUs);
    if (!picture) {
      picture = {
        ptsUs: frame.ptsUs,
        durationUs: this.durationUs,
        frames: this.encodings.map(() => undefined),
        expected: this.encodings.map((e) => encodes(e, frame.ptsUs, this.fps)),
      };
      this.partial.set(frame.ptsUs, picture);
    }
    picture.frames[i] = frame;
    if (picture.frames.some((f, j) => f === undefined && picture.expected[j])) return;
    // Each pipe carries its pictures in order, so once every encoding of this one has come, an
    // earlier picture still missing one will never get it (that encoder skipped the frame): it is
    // handed on without it rather than holding the others.
    const ready = [...this.partial.values()]
      .filter((p) => p.ptsUs <= picture.ptsUs)
      .sort((a, b) => a.ptsUs - b.ptsUs);
    for (const p of ready) {
      this.partial.delete(p.ptsUs);
      for (const fn of this.listeners) fn(p);
    }
  }

  private end(error: Error | null): void {
    if (this.ended) return;
    this.ended = true;
    for (const fn of this.endListeners) fn(error);
    this.endListeners.clear();
  }
}
