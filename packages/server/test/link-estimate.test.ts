// Unit specification of what the server learns of a receiver's link from its pongs (LinkEstimate),
// against a simulated link on a clock of its own: a sender offering media at a given rate and
// holding back what the estimate's window does not allow (as the pacer does), a
// bottleneck that serves bytes in order at its rate (optionally through a token bucket, as shaped
// links and many access links are), a fixed delay each way, and a receiver that answers every
// ping once the bytes before it have arrived. No server, no socket, no root.
import { describe, expect, it } from 'vitest';
import { LinkEstimate, PROBE_MS, QUEUE_TARGET_MS } from '../src/modules/live/link.js';

interface LinkShape {
  /** bytes per second the bottleneck carries */
  rateBps: number;
  /** one-way delay (ms) */
  delayMs: number;
  /** a token bucket's depth (bytes) that passes at once when full; 0: none */
  burst?: number;
}

const STEP_MS = 2;
const CHUNK = 1000;

/** A sender offering media over a simulated link, within the estimate's window. */
class Sim {
  now = 1_000_000;
  /** bytes per second of media offered; what the window does not allow waits at the sender */
  offerBps = 0;
  private backlog = 0;
  readonly est = new LinkEstimate();
  /** bytes written and not yet through the bottleneck; a probe waits behind them */
  private queue: { bytes: number; probe?: Buffer }[] = [];
  private readonly pongs: { at: number; payload: Buffer }[] = [];
  private tokens: number;
  /** the queueing seen by each pong, as the estimate worked it out */
  readonly queueSeen: number[] = [];

  constructor(public link: LinkShape) {
    this.tokens = link.burst ?? 0;
  }

  run(ms: number, offerBps = this.offerBps): void {
    this.offerBps = offerBps;
    const end = this.now + ms;
    for (; this.now < end; this.now += STEP_MS) {
      // The receiver's pongs that arrive now.
      while (this.pongs.length && this.pongs[0]!.at <= this.now) {
        this.est.onPong(this.pongs.shift()!.payload, this.now);
        this.queueSeen.push(this.est.queueMs);
      }
      // The sender: media as the window allows, a probe every PROBE_MS.
      this.backlog += (this.offerBps * STEP_MS) / 1000;
      while (this.backlog >= CHUNK && this.est.inFlight + CHUNK <= this.est.window) {
        this.backlog -= CHUNK;
        this.est.sent += CHUNK;
        this.queue.push({ bytes: CHUNK });
      }
      const limited = this.backlog >= CHUNK;
      if (this.now - this.est.lastProbeAt >= PROBE_MS)
        this.queue.push({ bytes: 0, probe: this.est.probe(this.now, false, limited) });
      // The bottleneck: its rate, plus what its token bucket holds.
      let budget = (this.link.rateBps * STEP_MS) / 1000;
      if (this.link.burst) {
        this.tokens = Math.min(this.link.burst, this.tokens + budget);
        budget = this.tokens;
      }
      while (this.queue.length && budget >= this.queue[0]!.bytes) {
        const head = this.queue.shift()!;
        budget -= head.bytes;
        if (this.link.burst) this.tokens -= head.bytes;
        if (head.probe) this.pongs.push({ at: this.now + 2 * this.link.delayMs, payload: head.probe });
      }
      if (this.queue.length && budget > 0) {
        this.queue[0]!.bytes -= budget;
        if (this.link.burst) this.tokens -= budget;
      }
    }
  }
}

/** `value` is within `share` (0.1: 10%) of `expected`. */
function within(value: number, expected: number, share: number): void {
  expect(value).toBeGreaterThan(expected * (1 - share));
  expect(value).toBeLessThan(expected * (1 + share));
}

describe("what a receiver's link carries (LinkEstimate)", () => {
  it('measures a 250 kbit/s link within 10% once more is offered than it carries, and keeps its queue near the 100 ms it aims for', () => {
    const sim = new Sim({ rateBps: 31_250, delayMs: 20 });
    sim.run(2000, 20_000);
    // Less than one 1000-byte message's time on the wire (32 ms): no queue.
    expect(sim.est.queueMs).toBeLessThan(40);
    expect(sim.est.limitedBps(sim.now)).toBe(0);
    sim.run(3000, 50_000);
    within(sim.est.rateBps, 31_250, 0.1);
    within(sim.est.limitedBps(sim.now), 31_250, 0.1);
    within(sim.est.minRttMs, 40, 0.25);
    within(sim.est.window, (31_250 * (40 + QUEUE_TARGET_MS)) / 1000, 0.2);
    expect(Math.max(...sim.queueSeen.slice(-50))).toBeLessThan(QUEUE_TARGET_MS * 1.5);
    expect(sim.est.fast(sim.now)).toBe(false);
  });

  it('keeps the queue near its target through 30 s of a link that never has room enough', () => {
    const sim = new Sim({ rateBps: 31_250, delayMs: 20 });
    sim.run(2000, 20_000);
    sim.run(30_000, 50_000);
    expect(Math.max(...sim.queueSeen.slice(-100))).toBeLessThan(QUEUE_TARGET_MS * 1.5);
  });

  it('follows a link that gets faster within seconds', () => {
    const sim = new Sim({ rateBps: 31_250, delayMs: 20 });
    sim.run(2000, 20_000);
    sim.run(2000, 200_000);
    sim.link = { rateBps: 125_000, delayMs: 20 };
    sim.run(4000);
    within(sim.est.rateBps, 125_000, 0.15);
  });

  it("does not take a token bucket's burst for what the link carries for long", () => {
    // 8 KB pass at once whenever the bucket is full; the link carries 40 KB/s for long.
    const sim = new Sim({ rateBps: 40_000, delayMs: 15, burst: 8_000 });
    sim.run(2000, 20_000);
    sim.run(5000, 80_000);
    within(sim.est.limitedBps(sim.now), 40_000, 0.15);
  });

  it('calls a 10 Mbit/s link fast, and not once its pongs stop coming for 500 ms', () => {
    const sim = new Sim({ rateBps: 1_250_000, delayMs: 5 });
    sim.run(3000, 1_500_000);
    expect(sim.est.fast(sim.now)).toBe(true);
    // The receiver stops answering: the probes in flight now go unanswered.
    expect(sim.est.fast(sim.now + 300)).toBe(true);
    expect(sim.est.fast(sim.now + 500)).toBe(false);
  });

  it('ignores a pong that answers no probe of its own (a heartbeat, or forged)', () => {
    const sim = new Sim({ rateBps: 31_250, delayMs: 20 });
    sim.run(1000, 20_000);
    const acked = sim.est.acked;
    sim.est.sent += 50_000;
    expect(sim.est.onPong(Buffer.from('heartbeat'), sim.now)).toBe(false);
    const forged = Buffer.alloc(5);
    forged[0] = 0x50;
    forged.writeUInt32BE(0xfffffff0, 1);
    expect(sim.est.onPong(forged, sim.now)).toBe(false);
    expect(sim.est.acked).toBe(acked);
  });
});
