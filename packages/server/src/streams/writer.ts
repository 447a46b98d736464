import type { Metrics } from '../lib/metrics.js';
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
 * publisher may be acked. One batch is written at a time, in the order batches formed; while one
 * is in flight, whatever arrives joins the next, which leaves when it commits. A store that falls
 * behind (a busy write thread, a slow disk) thus gets fewer, larger transactions instead of a
 * growing queue of small ones, each paying its own commit and hand-off.
 */
export class StreamWriter {
  private pending: Pending[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** the batch being written, if any */
  private inFlight: Promise<void> | null = null;
  /** the batch after it, which takes whatever is pending when the one in flight commits */
  private next: Promise<void> | null = null;
  /** events written since start, and batches */
  readonly stats = { events: 0, batches: 0 };

  /**
   * @param beforeCommit throws when a batch must not be written (storage that cannot be trusted):
   * its publishers then get an error, never an acknowledgement.
   */
  constructor(
    private readonly store: StreamStore,
    private readonly beforeCommit: () => void = () => {},
    private readonly metrics: Metrics | null = null,
  ) {}

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
    if (this.pending.length === 0) return this.next ?? this.inFlight ?? Promise.resolve();
    if (!this.inFlight) return this.write();
    // Everything pending now (and until the batch in flight commits) goes in the next batch.
    this.next ??= this.inFlight.then(() => {
      this.next = null;
      return this.write();
    });
    return this.next;
  }

  /**
   * Writes what is queued, then seals the session's open segment: its session ended, so nothing
   * more is appended to it.
   */
  async seal(sessionId: string): Promise<void> {
    await this.flush();
    await this.store.seal(sessionId);
  }

  private write(): Promise<void> {
    // Another flush may have taken the events between the last commit and this call.
    if (this.pending.length === 0) return this.inFlight ?? Promise.resolve();
    const batch = this.pending;
    const bytes = this.bytes;
    this.pending = [];
    this.bytes = 0;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const written: Promise<void> = this.commit(batch, bytes).finally(() => {
      if (this.inFlight === written) this.inFlight = null;
    });
    this.inFlight = written;
    return written;
  }

  /** Writes one batch of `bytes` bytes of bodies (counted as they were queued). */
  private async commit(batch: Pending[], bytes: number): Promise<void> {
    try {
      this.beforeCommit();
      const started = performance.now();
      await this.store.appendBatch(batch.map((p) => p.event));
      this.stats.events += batch.length;
      this.stats.batches += 1;
      if (this.metrics) {
        this.metrics.appendLatency.observe((performance.now() - started) / 1000);
        this.metrics.appendBatchEvents.observe(batch.length);
        this.metrics.appendBatchBytes.observe(bytes);
        this.metrics.recordedBytes.inc(bytes);
      }
      for (const p of batch) p.done();
    } catch (err) {
      for (const p of batch) p.fail(err as Error);
    }
  }
}
