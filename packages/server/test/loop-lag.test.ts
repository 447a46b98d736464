import { describe, expect, it } from 'vitest';
import { LoopLag } from '../src/lib/loop-lag.js';

/** Whether the server was busy: what a `layer` control's `cause` is read from. */
describe('the event loop monitor', () => {
  it('is not busy on a free loop, and is at once while the loop is held up 350 ms (its tick overdue)', () => {
    const lag = new LoopLag();
    try {
      const start = performance.now();
      expect(lag.busy(start)).toBe(false);
      // Held up: the tick due every 50 ms has not come for 350 ms.
      while (performance.now() < start + 350);
      const held = performance.now();
      expect(lag.busy(held)).toBe(true);
    } finally {
      lag.stop();
    }
  });
});
