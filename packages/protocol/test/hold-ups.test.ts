import { describe, expect, it } from 'vitest';
import { HoldUps } from '../src/index.js';

const TICK = 50;
/** The server's rule: a fifth of 3 s, or 300 ms overdue now. */
const serverRule = () => new HoldUps({ windowMs: 3000, share: 0.2, overdueMs: 300, minMs: 50 });

/** Ticks every TICK ms from `from` to `to`, each `late(t)` ms late, skipping those `stopped(t)`. */
function run(h: HoldUps, from: number, to: number, stopped: (t: number) => boolean = () => false): number {
  let last = from;
  for (let t = from + TICK; t <= to; t += TICK) {
    if (stopped(t)) continue;
    h.late(t - last - TICK, t);
    last = t;
  }
  return last;
}

describe('whether a thread is busy, from how late its ticks come', () => {
  it('one pause of 400 ms on a loaded machine is not busy once it is over', () => {
    const h = serverRule();
    const last = run(h, 0, 5000, (t) => t > 2000 && t < 2400);
    expect(h.busy(5000, last, TICK)).toBe(false);
    // …while it lasts, the overdue tick says busy at once.
    const h2 = serverRule();
    const before = run(h2, 0, 2000);
    expect(h2.busy(2350, before, TICK)).toBe(true);
  });

  it('a process stopped 600 ms of every second is busy, between the stops too', () => {
    const h = serverRule();
    const last = run(h, 0, 5000, (t) => t % 1000 > 0 && t % 1000 <= 600);
    expect(h.busy(last + 10, last, TICK)).toBe(true);
    expect(h.busy(last + 300, last, TICK)).toBe(true);
  });

  it('timer jitter below the minimum never adds up to busy', () => {
    const h = serverRule();
    let last = 0;
    for (let t = 0; t < 10_000; t += TICK + 40) {
      h.late(40, t);
      last = t;
    }
    expect(h.busy(last, last, TICK)).toBe(false);
  });

  it('forgets hold-ups older than its window: busy, then not', () => {
    const h = serverRule();
    h.late(700, 1000);
    expect(h.busy(1000, 1000, TICK)).toBe(true);
    // Only the part of the hold-up (300–1000 ms) inside the last 3 s counts: all of it at 3200,
    // 500 ms of it at 3500.
    expect(h.busy(3200, 3200, TICK)).toBe(true);
    expect(h.busy(3500, 3500, TICK)).toBe(false);
    expect(h.busy(4500, 4500, TICK)).toBe(false);
  });
});
