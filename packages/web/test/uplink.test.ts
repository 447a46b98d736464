// The publisher's uplink rule (src/media/uplink.ts), driven tick by tick with the times a real
// link or a busy server would give its acknowledgements: seconds, no browser.
import { describe, expect, it } from 'vitest';
import { STEPS, UPLINK_TICK_MS, Uplink, type UplinkStep } from '../src/media/uplink.js';

/** Runs `seconds` of ticks; `ackMs(t)` is how long the acks sent at t take, `queued(t)` the bytes waiting. */
function drive(seconds: number, ackMs: (t: number) => number, queued: (t: number) => number = () => 0) {
  let t = 0;
  const seen: UplinkStep[] = [];
  const uplink = new Uplink(
    () => queued(t),
    (step) => seen.push(step),
  );
  const inFlight: { due: number; done: (answered?: boolean, at?: number) => void }[] = [];
  for (; t < seconds * 1000; t += UPLINK_TICK_MS) {
    // Two layer-0 publishes per tick (a camera at its lowest rate sends at least that).
    for (const offset of [0, UPLINK_TICK_MS / 2]) {
      const at = t + offset;
      inFlight.push({ due: at + ackMs(at), done: uplink.sent(at) });
    }
    for (const f of inFlight.filter((f) => f.due <= t)) f.done(true, f.due);
    inFlight.splice(0, inFlight.length, ...inFlight.filter((f) => f.due > t));
    uplink.tick(t);
  }
  return { uplink, seen };
}

describe('uplink steps', () => {
  it('never stop the recorded layer, and keep it at a frame a second or more', () => {
    for (const step of STEPS) {
      expect(step.bitrate[0]).toBeGreaterThan(0);
      // The slowest profile (screen) runs at 8 fps.
      expect(8 * step.fps).toBeGreaterThanOrEqual(1);
    }
  });

  it('a link that stays full goes down to the floor and no further: the recorded layer goes on', () => {
    const { uplink, seen } = drive(
      60,
      () => 2500,
      () => 512 * 1024,
    );
    expect(uplink.level).toBe(STEPS.length - 1);
    for (const step of seen) expect(step.bitrate[0]).toBeGreaterThan(0);
  });

  it('a busy server answering late now and then, with nothing queued, is no full link: no step down', () => {
    // The pattern measured with three publishers on two cores: acks ~30 ms, and for a second in
    // every ten, 1.5 s late while the server's event loop is busy; the socket stays drained.
    const { seen } = drive(60, (t) => (t % 10_000 < 1000 ? 1500 : 30));
    expect(seen).toEqual([]);
  });

  it('acks that grow and stay late step down even with nothing in the page’s buffer (the kernel holds the queue)', () => {
    const { uplink } = drive(20, (t) => 30 + t / 10);
    expect(uplink.level).toBeGreaterThan(0);
  });
});
