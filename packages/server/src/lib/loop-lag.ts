import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HoldUps } from '@vss/protocol';

/** The event loop overdue this long now says the process is busy at once. */
const BUSY_LAG_MS = 300;
const TICK_MS = 50;

/**
 * Whether this process is busy: its event loop held up for a fifth of the last 3 s (600 ms), or
 * overdue by BUSY_LAG_MS now (a CPU-starved machine, a long synchronous task, a stopped process).
 * A receiver whose video the server reduces at such a time is not told its connection is slow:
 * the queue it saw grow may be the server's own doing. One pause of a few hundred milliseconds (a
 * garbage collection on a loaded machine) is not busy: a slow link must still be called slow.
 * Two measures, as either can come late: a tick every TICK_MS whose gap is read at once, and
 * Node's event-loop delay histogram, read every tick.
 */
export class LoopLag {
  private lastTick = performance.now();
  private readonly holdUps = new HoldUps({ windowMs: 3000, share: 0.2, overdueMs: BUSY_LAG_MS, minMs: 50 });
  private readonly histogram = monitorEventLoopDelay({ resolution: 20 });
  private readonly timer: ReturnType<typeof setInterval>;

  constructor() {
    this.histogram.enable();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** True when the loop was held up lately, or is being now (the last tick is overdue). */
  busy(now = performance.now()): boolean {
    return this.holdUps.busy(now, this.lastTick, TICK_MS);
  }

  private tick(): void {
    const now = performance.now();
    const gap = now - this.lastTick - TICK_MS;
    // the histogram is in nanoseconds
    const worst = Math.max(gap, this.histogram.max / 1e6);
    this.histogram.reset();
    this.lastTick = now;
    this.holdUps.late(worst, now);
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

let shared: LoopLag | null = null;

/** The process's one monitor, started on first use. */
export function loopLag(): LoopLag {
  shared ??= new LoopLag();
  return shared;
}
