/**
 * The publisher's side of flow control (docs/protocol.md §6, "Publishers"): watches what the own
 * link does with what this page sends, and says how much video to send.
 *
 * The rule, kept simple on purpose:
 * - Two signs that the uplink is short: bytes waiting in the socket (`bufferedAmount`), and the
 *   time the server takes to acknowledge layer-0 frames growing over the shortest time seen in
 *   the last minute (the ack follows the frame through the same queues; its minimum is the link's
 *   own round trip plus the server's write, so what is above it is queueing).
 * - Short (more than QUEUED_HIGH bytes waiting, or acks ACK_DELAY_HIGH_MS over their minimum):
 *   one step down, at most every 1.5 s and only while the queue is not shrinking since the last
 *   step (or is still over the line 5 s later), so each step is seen to work before the next.
 * - Drained (under QUEUED_LOW and ACK_DELAY_LOW_MS) for UP_AFTER_MS: one step back up.
 * - The steps only touch video: audio is never made worse for video's sake, and its sends keep
 *   their own, longer queue limit (publishing.ts). Layer 0's bitrate goes down first (it is most
 *   of the bytes; the server gives slow receivers the reduced layers anyway) and the frame rate
 *   with it (an encoder given an easy picture sends less than its bitrate, and then only fewer
 *   pictures send less), then the reduced layers stop, layer 1 before the cheap layer 2. Layer 0,
 *   the one recorded, is never stopped: its last step is an eighth of the profile's frame rate
 *   (a picture a second for a screen, two for a camera) at a small bitrate, so a recording never
 *   gets a hole from adaptation.
 * - A busy server (or machine) answers late too, but in bursts, with the socket drained; a full
 *   link keeps every ack late. So late acks with nothing waiting in the socket count only once
 *   they have stayed over the line for ACK_SUSTAIN_MS; bytes waiting count at once.
 */

/** One step: each layer's share of its profile's bitrate (0: not sent) and the share of its frame rate. */
export interface UplinkStep {
  bitrate: readonly [number, number, number];
  fps: number;
}

/** From everything (0) to the least video worth sending (last); see the rule above. */
export const STEPS: readonly UplinkStep[] = [
  { bitrate: [1, 1, 1], fps: 1 },
  { bitrate: [0.6, 1, 1], fps: 3 / 4 },
  { bitrate: [0.4, 0.7, 1], fps: 2 / 3 },
  { bitrate: [0.25, 0, 1], fps: 1 / 2 },
  { bitrate: [0.15, 0, 0], fps: 1 / 3 },
  { bitrate: [0.1, 0, 0], fps: 1 / 4 },
  { bitrate: [0.06, 0, 0], fps: 1 / 8 },
];

/** Bytes waiting in the socket that count as a queue building up. */
const QUEUED_HIGH = 96 * 1024;
/** Bytes waiting in the socket that count as drained. */
const QUEUED_LOW = 16 * 1024;
/** Ack time over its minimum that counts as a queue building up. */
const ACK_DELAY_HIGH_MS = 300;
/** Ack time over its minimum that counts as drained. */
const ACK_DELAY_LOW_MS = 100;
/**
 * At most one step down per this long: what was queued before a step must drain before the step
 * shows, and stepping again meanwhile would go lower than the link needs.
 */
const DOWN_EVERY_MS = 1500;
/** Over the line this long after a step down: another step, even while the queue shrinks. */
const STILL_OVER_MS = 5000;
/** An ack unanswered this long counts as a queue even when no other ack has come. */
const STUCK_MS = 1000;
/** Acks over the line with the socket drained must stay so this long to count (a busy server's pause is shorter). */
const ACK_SUSTAIN_MS = 3000;
/** Drained this long before one step up. */
const UP_AFTER_MS = 5000;
/** How far back the minimum ack time reaches. */
const MIN_WINDOW_MS = 60_000;
/** How often the link is looked at. */
export const UPLINK_TICK_MS = 500;

/** Watches one connection's uplink; `tick()` every UPLINK_TICK_MS, `sent()` for each acked publish. */
export class Uplink {
  private step = 0;
  private lastDown = -Infinity;
  /** the pressure (see tick) when the last step down was taken */
  private pressureAtDown = 0;
  private drainedSince: number | null = null;
  /** since when the acks alone have been over the line */
  private ackOverSince: number | null = null;
  /** send times of layer-0 publishes whose ack has not come yet */
  private readonly pending = new Set<number>();
  /** ack times measured since the last tick */
  private fresh: number[] = [];
  /** (time, smallest ack time of a tick) over MIN_WINDOW_MS */
  private minima: { at: number; ms: number }[] = [];

  constructor(
    /** bytes waiting in the socket */
    private readonly queued: () => number,
    /** told each new step */
    private readonly onStep: (step: UplinkStep) => void,
  ) {}

  /** The step in force. */
  get current(): UplinkStep {
    return STEPS[this.step]!;
  }

  /** Index of the step in force (0: everything). */
  get level(): number {
    return this.step;
  }

  /**
   * Call when a layer-0 publish with an ack is sent; call the function it returns when the ack
   * (or the refusal) arrives, or with `false` when none will (the connection dropped).
   */
  sent(at = performance.now()): (answered?: boolean, now?: number) => void {
    // Why a distinct key: two sends in the same millisecond must not share one entry.
    let key = at;
    while (this.pending.has(key)) key += 1e-6;
    this.pending.add(key);
    return (answered = true, now = performance.now()) => {
      if (!this.pending.delete(key)) return;
      if (answered) this.fresh.push(now - at);
    };
  }

  /** Forgets what was measured (a new connection: another path, another minimum). */
  reset(): void {
    this.pending.clear();
    this.fresh = [];
    this.minima = [];
    this.drainedSince = null;
    this.ackOverSince = null;
  }

  /** Looks at the link once and moves a step when the rule says so. */
  tick(now = performance.now()): void {
    // What the acks say: the middle one of those that came since the last look (one late ack,
    // e.g. a TCP retransmission, is no queue), or how long the oldest unanswered one has waited
    // when that is long (with no ack coming at all, the fresh ones alone would say nothing).
    let oldest = 0;
    for (const at of this.pending) oldest = Math.max(oldest, now - at);
    const sorted = [...this.fresh].sort((x, y) => x - y);
    const middle = sorted.length ? sorted[sorted.length >> 1]! : 0;
    const ack = Math.max(middle, oldest > STUCK_MS ? oldest : 0);
    if (this.fresh.length) this.minima.push({ at: now, ms: Math.min(...this.fresh) });
    this.fresh = [];
    this.minima = this.minima.filter((m) => now - m.at <= MIN_WINDOW_MS);
    const base = this.minima.length ? Math.min(...this.minima.map((m) => m.ms)) : 0;
    const over = this.minima.length ? ack - base : 0;
    const queued = this.queued();
    // How far over the line the link is: 1 at either threshold; the acks' share only once they
    // have stayed over it for ACK_SUSTAIN_MS (a busy server's pause is no full link).
    const ackPressure = over / ACK_DELAY_HIGH_MS;
    if (ackPressure > 1) this.ackOverSince ??= now;
    else this.ackOverSince = null;
    const ackCounts = this.ackOverSince !== null && now - this.ackOverSince >= ACK_SUSTAIN_MS;
    const pressure = Math.max(queued / QUEUED_HIGH, ackCounts ? ackPressure : 0);
    if (pressure > 1) {
      this.drainedSince = null;
      // Another step only while the queue is not shrinking since the last one (what was queued
      // before a step takes a while to drain), or when it stays long over the line all the same.
      const since = now - this.lastDown;
      const shrinking = pressure < this.pressureAtDown * 0.9;
      if (since >= DOWN_EVERY_MS && (!shrinking || since >= STILL_OVER_MS) && this.step < STEPS.length - 1) {
        this.lastDown = now;
        this.pressureAtDown = pressure;
        this.move(this.step + 1);
      }
      return;
    }
    if (queued >= QUEUED_LOW || over >= ACK_DELAY_LOW_MS) {
      this.drainedSince = null;
      return;
    }
    this.drainedSince ??= now;
    if (this.step > 0 && now - this.drainedSince >= UP_AFTER_MS) {
      this.drainedSince = now;
      this.move(this.step - 1);
    }
  }

  private move(step: number): void {
    this.step = step;
    this.onStep(STEPS[step]!);
  }
}
