/**
 * The bot's uplink rules (src/bot/uplink.ts) against a simulated link, in fake time: a sender that
 * sends what its step is planned to, a link that carries `rateBps` and queues the rest, and a
 * socket that answers each ping once everything sent before it went through. Seconds, no root:
 * the network tests (test/network) show the same rules on a real shaped link.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { Uplink } from '../src/bot/uplink.js';

/** Bytes per second each step sends: full, floor with both reduced layers, floor with the smallest. */
const PLANNED = [85_000, 42_000, 26_000];
const TICK_MS = 10;
const BASE_RTT_MS = 2;

class SimLink extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent = 0;
  delivered = 0;
  /** the longest queue delay seen, ms */
  maxDelayMs = 0;
  private readonly pings: Array<{ data: Buffer; bytes: number }> = [];

  constructor(public rateBps: number) {
    super();
  }

  ping(data: Buffer): void {
    this.pings.push({ data, bytes: this.sent });
  }

  /** One tick: the sender sends `sendBps`' worth, the link carries what it can, pongs come back. */
  advance(sendBps: number): void {
    this.sent += (sendBps * TICK_MS) / 1000;
    this.delivered = Math.min(this.sent, this.delivered + (this.rateBps * TICK_MS) / 1000);
    this.maxDelayMs = Math.max(this.maxDelayMs, ((this.sent - this.delivered) * 1000) / this.rateBps);
    while (this.pings.length > 0 && this.pings[0]!.bytes <= this.delivered) {
      const { data } = this.pings.shift()!;
      setTimeout(() => this.emit('pong', data), BASE_RTT_MS);
    }
  }
}

/**
 * Runs an uplink over `link` for `seconds`; returns the steps it took, with their times. With
 * `keyBytes`, a key frame of that size is sent every 2 s from the start, as the bot's encoders do,
 * and timed with a ping right after it, as the bot does.
 */
function run(link: SimLink, seconds: number, rateAt?: (s: number) => number, keyBytes = 0) {
  const uplink = new Uplink(
    2,
    undefined,
    () => link.sent,
    (step) => PLANNED[step],
  );
  uplink.attach(link as unknown as WebSocket);
  const steps: Array<{ s: number; step: number }> = [{ s: 0, step: uplink.want }];
  uplink.start();
  for (let t = 0; t < seconds * 1000; t += TICK_MS) {
    if (rateAt) link.rateBps = rateAt(t / 1000);
    if (keyBytes && t % 2000 === 0) {
      link.sent += keyBytes;
      uplink.pingNow();
    }
    link.advance(PLANNED[uplink.want]!);
    vi.advanceTimersByTime(TICK_MS);
    if (uplink.want !== steps.at(-1)!.step) steps.push({ s: (t + TICK_MS) / 1000, step: uplink.want });
  }
  uplink.stop();
  return steps;
}

describe("the bot's uplink", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearInterval', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts at the least it can send and is at full rate within 6 s on a fast link, never stepping down', () => {
    const link = new SimLink(1_250_000); // 10 Mbit/s
    const steps = run(link, 10);
    expect(steps[0]).toEqual({ s: 0, step: 2 });
    expect(steps.map((x) => x.step)).toEqual([2, 1, 0]);
    expect(steps.at(-1)!.s).toBeLessThanOrEqual(6);
    expect(link.maxDelayMs).toBeLessThan(50);
  });

  it('behind 300 kbit/s, tries one step up, falls back within 3 s before the queue reaches 500 ms, and does not retry for 10 s', () => {
    const link = new SimLink(37_500);
    const steps = run(link, 25);
    expect(steps[0]!.step).toBe(2);
    // Every step up is followed by a step down within 3 s (the trial failed fast).
    for (let i = 1; i < steps.length; i++)
      if (steps[i]!.step < steps[i - 1]!.step && steps[i]!.s < 22) {
        const back = steps[i + 1];
        expect(back, JSON.stringify(steps)).toBeDefined();
        expect(back!.step).toBe(steps[i - 1]!.step);
        expect(back!.s - steps[i]!.s).toBeLessThanOrEqual(3);
      }
    const ups = steps.filter((x, i) => i > 0 && x.step < steps[i - 1]!.step);
    expect(ups.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < ups.length; i++) expect(ups[i]!.s - ups[i - 1]!.s).toBeGreaterThanOrEqual(10);
    expect(link.maxDelayMs).toBeLessThan(500);
  });

  it("behind 300 kbit/s, knows from its key frames' queue that no step up fits, and never tries one", () => {
    const link = new SimLink(37_500);
    const steps = run(link, 25, undefined, 8000);
    expect(steps, JSON.stringify(steps)).toEqual([{ s: 0, step: 2 }]);
    expect(link.maxDelayMs).toBeLessThan(300);
  });

  it('on a fast link the same key frames queue nothing, and it steps up as before', () => {
    const link = new SimLink(1_250_000);
    const steps = run(link, 10, undefined, 8000);
    expect(steps.map((x) => x.step)).toEqual([2, 1, 0]);
  });

  it('steps down when a fast link slows, and up again when it is fast once more', () => {
    const link = new SimLink(1_250_000);
    const steps = run(link, 40, (s) => (s >= 8 && s < 20 ? 37_500 : 1_250_000));
    const at = (s: number) => [...steps].reverse().find((x) => x.s <= s)!.step;
    expect(at(7.9)).toBe(0);
    expect(at(12)).toBe(2);
    expect(at(40)).toBe(0);
  });

  it('a link that slows just after a step up is remembered as full once, not once per step down', () => {
    const link = new SimLink(1_250_000);
    const steps = run(link, 40, (s) => (s >= 5.6 && s < 10 ? 37_500 : 1_250_000));
    const at = (s: number) => [...steps].reverse().find((x) => x.s <= s)!.step;
    expect(at(5.6), JSON.stringify(steps)).toBe(0);
    expect(at(10)).toBeGreaterThan(0);
    expect(at(40), JSON.stringify(steps)).toBe(0);
  });

  it('with forced steps starts at the full picture and takes them when due', () => {
    const link = new SimLink(1_250_000);
    const uplink = new Uplink(
      2,
      [{ afterS: 1, step: 2 }],
      () => link.sent,
      (step) => PLANNED[step],
    );
    expect(uplink.want).toBe(0);
    uplink.attach(link as unknown as WebSocket);
    uplink.start();
    vi.advanceTimersByTime(1500);
    uplink.stop();
    expect(uplink.want).toBe(2);
  });
});
