/**
 * The publisher's side of flow control (docs/protocol.md §6, "Publishers"): watches what the own
 * link does with what this page sends, and says how much video to send.
 *
 * The rule, kept simple on purpose:
 * - Two signs that the uplink is short: bytes waiting in the socket (`bufferedAmount`), and the
 *   time the server takes to acknowledge layer-0 frames growing over the shortest time seen in
 *   the last minute (the ack follows the frame through the same queues; its minimum is the link's
 *   own round trip plus the server's write, so what is above it is queueing).
 * - Short (more than QUEUED_HIGH bytes waiting, or acks QUEUE_DELAY_HIGH_MS over their minimum):
 *   one step down, at most once a second, so each step is seen to work before the next.
 * - Drained (under QUEUED_LOW and ACK_DELAY_LOW_MS) for UP_AFTER_MS: one step back up.
 * - The steps only touch video: audio is never made worse for video's sake, and its sends keep
 *   their own, longer queue limit (live-room.ts). Layer 0's bitrate goes down first (it is most of
 *   the bytes; the server gives slow receivers the reduced layers anyway), then the frame rate,
 *   then the reduced layers stop, layer 1 before the cheap layer 2. Layer 0 never stops here: it
 *   is what is recorded, and at its lowest step it is about what layer 1 was.
 */

/** One step: each layer's share of its profile's bitrate (0: not sent) and the share of its frame rate. */
export interface UplinkStep {
  bitrate: readonly [number, number, number];
  fps: number;
}

/** From everything (0) to the least video worth sending (last); see the rule above. */
export const STEPS: readonly UplinkStep[] = [
  { bitrate: [1, 1, 1], fps: 1 },
  { bitrate: [0.6, 1, 1], fps: 1 },
  { bitrate: [0.35, 0.7, 1], fps: 1 },
  { bitrate: [0.25, 0, 1], fps: 2 / 3 },
  { bitrate: [0.15, 0, 0], fps: 1 / 2 },
];

/** Bytes waiting in the socket that count as a queue building up. */
const QUEUED_HIGH = 96 * 1024;
/** Bytes waiting in the socket that count as drained. */
const QUEUED_LOW = 16 * 1024;
/** Ack time over its minimum that counts as a queue building up. */
const ACK_DELAY_HIGH_MS = 300;
/** Ack time over its minimum that counts as drained. */
const ACK_DELAY_LOW_MS = 100;
/** At most one step down per this long. */
const DOWN_EVERY_MS = 1000;
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
  private drainedSince: number | null = null;
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
  sent(): (answered?: boolean) => void {
    const at = performance.now();
    // Why a distinct key: two sends in the same millisecond must not share one entry.
    let key = at;
    while (this.pending.has(key)) key += 1e-6;
    this.pending.add(key);
    return (answered = true) => {
      if (!this.pending.delete(key)) return;
      if (answered) this.fresh.push(performance.now() - at);
    };
  }

  /** Forgets what was measured (a new connection: another path, another minimum). */
  reset(): void {
    this.pending.clear();
    this.fresh = [];
    this.minima = [];
    this.drainedSince = null;
  }

  /** Looks at the link once and moves a step when the rule says so. */
  tick(now = performance.now()): void {
    // What the acks say: the slowest fresh one, or how long the oldest unanswered one has waited
    // (with no ack coming at all, the fresh ones alone would say nothing).
    let oldest = 0;
    for (const at of this.pending) oldest = Math.max(oldest, now - at);
    const ack = Math.max(oldest, ...this.fresh);
    if (this.fresh.length) this.minima.push({ at: now, ms: Math.min(...this.fresh) });
    this.fresh = [];
    this.minima = this.minima.filter((m) => now - m.at <= MIN_WINDOW_MS);
    const base = this.minima.length ? Math.min(...this.minima.map((m) => m.ms)) : 0;
    const over = this.minima.length ? ack - base : 0;
    const queued = this.queued();
    if (queued > QUEUED_HIGH || over > ACK_DELAY_HIGH_MS) {
      this.drainedSince = null;
      if (now - this.lastDown >= DOWN_EVERY_MS && this.step < STEPS.length - 1) {
        this.lastDown = now;
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
