import type { StreamEvent, StreamStore } from './store.js';

/** How long events wait for company before their batch is written. */
const FLUSH_DELAY_MS = 4;
/** A batch this large is written at once. */
const FLUSH_BYTES = 4 * 1024 * 1024;

interface Pending {
  event: StreamEvent;
  done: () => void;
  fail: (err: Error) => void;
}

/**
 * Batches appends from every session of this process into one transaction every few
 * milliseconds. `append` resolves once the event's batch has committed: that is when a
 * publisher may be acked. Batches are written one after another, in the order they formed.
 */
export class StreamWriter {
  private pending: Pending[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** events written since start, and batches */
  readonly stats = { events: 0, batches: 0 };

  constructor(private readonly store: StreamStore) {}

  /** Queues an event for the next batch; resolves when it is durable. */
  append(event: StreamEvent): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ event, done, fail });
      this.bytes += event.body.length;
      if (this.bytes >= FLUSH_BYTES) this.flushSoon(0);
      else this.flushSoon(FLUSH_DELAY_MS);
    });
  }

  private flushSoon(delay: number): void {
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delay);
  }

  /** Writes everything queued so far; resolves when it is durable (used on shutdown too). */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.bytes = 0;
    if (batch.length === 0) return this.writing;
    // Chained, so that batches commit in the order their events were accepted.
    this.writing = this.writing.then(async () => {
      try {
        await this.store.appendBatch(batch.map((p) => p.event));
        this.stats.events += batch.length;
        this.stats.batches += 1;
        for (const p of batch) p.done();
      } catch (err) {
        for (const p of batch) p.fail(err as Error);
      }
    });
    return this.writing;
  }
}
