/**
 * Reads what a seek forward skipped, for the chat and the director's layout. The window reader
 * reads only around the playhead (from one window before it), so after a jump forward the
 * recording between what was read and the new position has never been read, and the chat
 * messages and director commands in it would be missing until playback passed them again.
 */
import { parseMediaStream } from '@vss/protocol';
import type { EventsSink } from './reader';
import { WindowReader } from './reader';
import type { PlaybackSource } from './source';

/**
 * Windows of the gap are this long: few requests; the playback API caps each answer's size anyway
 * (5000 events or 8 MiB), so a busy stretch comes in several answers of one window.
 */
const GAP_WINDOW_MS = 10_000;

/**
 * Keeps track of how far from the start the recording has been read without a hole (by the
 * playback reader, or by this one), and reads the hole before where the playback reader now reads
 * from. Its answers carry the media too (the playback API reads every stream of a window); only
 * the other streams are handed on, and nothing of them is kept but what the sink keeps.
 */
export class Backfill {
  private readonly reader: WindowReader;
  /** everything stamped from the recording's start up to here has been read */
  private complete: number;

  constructor(source: PlaybackSource, start: number, sink: EventsSink, changed: () => void) {
    this.complete = start;
    this.reader = new WindowReader(
      source,
      GAP_WINDOW_MS,
      0,
      (events) => sink(events.filter((e) => parseMediaStream(e.stream_id) === null)),
      changed,
    );
    this.reader.restart(start);
  }

  /** True while something stamped up to `ts` may not have been read yet. */
  pending(ts: number): boolean {
    return this.complete < ts;
  }

  get error(): string | null {
    return this.reader.error;
  }

  /**
   * Notes what `playback` has read, and reads on when there is a hole between what was read from
   * the start and where `playback` reads from (it then reads from the hole on, up to there).
   */
  update(playback: WindowReader): void {
    // This reader always starts inside what is complete, so its progress extends it; the playback
    // reader's does too when it started inside.
    for (const r of [this.reader, playback])
      if (r.from <= this.complete) this.complete = Math.max(this.complete, r.bufferedUntil);
    const until = playback.from;
    if (this.complete >= until || this.reader.error) return;
    // Behind what is complete (the playback reader overtook it): go on from there instead.
    if (this.reader.bufferedUntil < this.complete) this.reader.restart(this.complete);
    this.reader.fill(until);
  }

  /** After a failed read: tries again from where the hole starts. */
  retry(): void {
    if (this.reader.error) this.reader.restart(this.complete);
  }

  close(): void {
    this.reader.close();
  }
}
