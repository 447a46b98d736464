import { HoldUps } from '@vss/protocol';

/** This page's main thread overdue this long now says the device is busy at once. */
const BUSY_MS = 400;
const TICK_MS = 100;

let lastTick = 0;
let timer: ReturnType<typeof setInterval> | null = null;
/** A fifth of the last 5 s held up (1 s) is busy; one pause of a few hundred ms is not. */
const holdUps = new HoldUps({ windowMs: 5000, share: 0.2, overdueMs: BUSY_MS, minMs: 50 });

/**
 * Whether this page's main thread is held up (a busy machine, long tasks): the page then reads
 * its connection late, and what the server sees queue up for it is not the network's doing. A
 * tick every TICK_MS; how late each comes is what is measured. One pause (a garbage collection on
 * a loaded machine) does not make the device busy: a slow link must still be called slow.
 * A hidden tab's timers are slowed on purpose, so late ticks there say nothing.
 */
export function deviceBusy(now = performance.now()): boolean {
  if (timer === null) {
    lastTick = now;
    timer = setInterval(() => {
      const t = performance.now();
      if (!document.hidden) holdUps.late(t - lastTick - TICK_MS, t);
      lastTick = t;
    }, TICK_MS);
  }
  return !document.hidden && holdUps.busy(now, lastTick, TICK_MS);
}
