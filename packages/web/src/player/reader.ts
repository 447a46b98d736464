/**
 * Reads a recording's playback windows ahead of the playhead, a bounded amount at a time.
 */
import { errorMessage } from '../api';
import type { PlaybackSource } from './source';
import type { WireEvent } from './types';

/** What the reader hands on: one answer's events, in timestamp order. */
export type EventsSink = (events: WireEvent[]) => void;

/**
 * Follows the paging rule of the playback API: the first read gives `from_ts`, every later one
 * the previous answer's `next_base_seq` with the same `from_ts`, until it is null. It reads
 * only while less than `aheadMs` of recording lies buffered beyond the playhead, so memory stays
 * bounded (about two windows plus the one playing) however long the recording is.
 */
export class WindowReader {
  private gen = 0;
  private fromTs = 0;
  private nextSeq: number | undefined;
  private busy = false;
  private ctl: AbortController | null = null;
  /** set by close(): the reader never reads again */
  private closed = false;
  /** the newest timestamp read so far: everything from `from` up to it has arrived */
  bufferedUntil = 0;
  /** true once the recording has nothing further */
  done = false;
  error: string | null = null;

  constructor(
    private readonly source: PlaybackSource,
    private readonly windowSize: number,
    private readonly aheadMs: number,
    private readonly sink: EventsSink,
    /** called after every answer or failure, so the page can redraw */
    private readonly changed: () => void,
  ) {}

  /** Where the current read started (the last restart). */
  get from(): number {
    return this.fromTs;
  }

  /** Starts over at `fromTs` (the start of a window), dropping whatever is being read. */
  restart(fromTs: number): void {
    if (this.closed) return;
    this.gen++;
    this.ctl?.abort();
    this.ctl = null;
    this.busy = false;
    this.fromTs = fromTs;
    this.nextSeq = undefined;
    this.bufferedUntil = fromTs;
    this.done = false;
    this.error = null;
  }

  /** Reads the next answer when the buffer ahead of `position` is short; one request at a time. */
  fill(position: number): void {
    if (this.closed || this.busy || this.done || this.error || this.bufferedUntil >= position + this.aheadMs)
      return;
    const gen = this.gen;
    const ctl = new AbortController();
    this.ctl = ctl;
    this.busy = true;
    this.source
      .window({ fromTs: this.fromTs, windowSize: this.windowSize, baseSeq: this.nextSeq }, ctl.signal)
      .then((w) => {
        if (gen !== this.gen) return;
        // Within an answer events come in seq (arrival) order; the player needs them by time.
        const events = [...w.events].sort((a, b) => a.timestamp_ms - b.timestamp_ms || a.seq - b.seq);
        const last = events.at(-1)?.timestamp_ms;
        if (w.next_base_seq === null) {
          this.done = true;
          this.bufferedUntil = Number.POSITIVE_INFINITY;
        } else {
          this.nextSeq = w.next_base_seq;
          if (last !== undefined) this.bufferedUntil = Math.max(this.bufferedUntil, last);
          // An empty answer that is not the end can only be an empty first window: move past it.
          else this.bufferedUntil = Math.max(this.bufferedUntil, this.fromTs + this.windowSize);
        }
        this.sink(events);
      })
      .catch((err) => {
        if (gen !== this.gen || ctl.signal.aborted) return;
        this.error = errorMessage(err);
      })
      .finally(() => {
        if (gen !== this.gen) return;
        this.busy = false;
        this.ctl = null;
        this.changed();
      });
  }

  /** Stops reading for good. */
  close(): void {
    this.closed = true;
    this.gen++;
    this.ctl?.abort();
  }
}
