/**
 * A publisher's watch on its own uplink (docs/protocol.md §6, Publishers): how long what it sends
 * waits before the server reads it, what the link carries, and which step of video to send for
 * that. Pure: the caller sends the probes and calls `check` every UPLINK_CHECK_MS, so that the
 * same rule runs in `vss bot` (WebSocket pings) and in the browser (acknowledged publishes), and
 * is specified in fake time (test/uplink-rule.test.ts).
 *
 * Probes: a message the server answers only after reading everything sent before it (a WebSocket
 * ping, or a publish with an `id`). Its round trip includes the time the publisher's data waited
 * in its own socket and on the way; the smallest round trip seen is the link without a queue, and
 * the round trip minus it is the queue's delay. A probe not answered yet counts with its age.
 * `bufferedAmount` (what has not even reached the kernel) growing says the same, sooner.
 *
 * Steps: 0 sends everything, each step above less video, `maxStep` the least that is still
 * recorded (what each step sends is the caller's). A publisher starts low, by default at the
 * highest step, and steps up as the link proves it can carry more, as a WebRTC sender starts low
 * and probes up: pushing everything into an unknown link at once would queue seconds of audio
 * behind video before the first measurement said so. Down when a second of checks all find the
 * delay past 150 ms (at most one step a second, so the queue built before a step can drain), or
 * two checks in a row past 80 ms in the 3 s after a step up (a trial that failed falls back
 * before its queue is heard); up one step after 3 s under 40 ms (2.5 s while the link has never
 * queued), unless what the link was measured to carry lately has no room for what that step sends
 * (trying it would only queue again, and the audio with it), or that step failed its trial within
 * the link's memory (10 s, doubled by each failed trial up to a minute).
 *
 * A busy server, or machine, answers late too, but not for long: one pause of its event loop
 * makes some checks late, while a queue keeps every round trip long; so a step down needs a
 * second of late checks in a row (a pause shorter than about 1.1 s never steps down) and a
 * capacity sample needs two late answers in a row.
 *
 * The same answers measure the link: the bytes sent up to a probe were all read when its answer
 * came, so the bytes between two answered probes over the time between their answers is what the
 * link delivered. Measured while a queue stood in it (two answers in a row 40 ms or more late),
 * that is what the link carries: on a slow link the first key frames queue, so its capacity is
 * known from the first seconds, and a step it has no room for is never tried.
 */

/** How often the caller runs `check` (ms). */
export const UPLINK_CHECK_MS = 125;
const CONGESTED_MS = 150;
const QUIET_MS = 40;
const QUIET_FOR_MS = 3000;
/**
 * While the link has never queued, a step up needs this long under QUIET_MS: the first ramp. Longer
 * than the longest key-frame interval of our publishers (2 s), so that a slow link has shown its
 * capacity under a key frame's queue before the first step up is weighed.
 */
const FIRST_QUIET_FOR_MS = 2500;
/** After a step up, the link is on trial this long (ms): two congested checks in a row step back down. */
const TRIAL_MS = 3000;
const TRIAL_CONGESTED_CHECKS = 2;
/** On trial, the queue that counts: a step that does not fit fails before its queue is heard. */
const TRIAL_DELAY_MS = 80;
/**
 * An answer this far over the link's own round trip found a queue: what the link delivered up to
 * it is what the link carries (its capacity), not merely what was sent.
 */
const LIMITED_MS = 40;
/**
 * Checks in a row (a second) that must all find the delay past CONGESTED_MS before a step down: a
 * queue keeps every round trip long, while a busy server or machine (a pause of its event loop)
 * makes only some of them long.
 */
const CONGESTED_CHECKS = 8;
/** After a step, the queue built before it needs time to drain: no second step down sooner. */
const HOLD_MS = 1000;
/** `bufferedAmount` above this, and growing, is a queue even before an answer says so. */
const BUFFERED_BOUND = 64 * 1024;
/**
 * A link that queued this recently is known to be full: a step up must fit its measured rate.
 * Doubled (up to a minute) each time a step up failed its trial (stepped back down within
 * TRIAL_MS); back to this when a step down came later (the link slowed, not the step).
 */
const FULL_MEMORY_MS = 10_000;
const FULL_MEMORY_MAX_MS = 60_000;
/** Of a full link's measured rate, the share a step up may plan to use. */
const HEADROOM = 0.85;
/** Delivery-rate samples kept for the windowed maximum. */
const RATE_WINDOW_MS = 3000;
/**
 * A delivery-rate sample spans at least this long: answers that come in a burst (everything queued
 * behind one key frame is read at once) are counted together, not as a rate of many megabytes a
 * second.
 */
const RATE_SPAN_MS = 50;
/** A step's own send rate is measured once it has been sent this long. */
const STEP_SETTLE_MS = 2000;

/** What the rule is told about the publisher's link at each check. */
export interface UplinkLook {
  /** bytes handed to the socket that it has not yet passed to the network */
  buffered: number;
  /** bytes handed to the socket so far (one counter across the publisher's connections) */
  sentBytes: number;
  /**
   * the publisher's own device is busy now (its event loop held up): its answers are read late
   * whatever the link does, so their delay says nothing of the link. Only the socket's bytes then
   * count: piling up, they step down; drained for the usual quiet time, they step up.
   */
  busy?: boolean;
}

/**
 * Called with the answer's time when a probe is answered, or with null when none will come (the
 * connection dropped before it): then the probe is forgotten, unmeasured.
 */
export type ProbeAnswer = (now: number | null) => void;

export class UplinkRule {
  /** the step the link calls for now */
  want: number;
  /** the latest queue delay, ms */
  delayMs = 0;
  /** bytes per second the link was seen to deliver lately (windowed maximum) */
  rateBps = 0;
  private minRttMs = Infinity;
  /** probes not answered yet, oldest first */
  private readonly pending: { at: number; bytes: number }[] = [];
  private lastAnswer: { at: number; bytes: number } | null = null;
  private readonly samples: { at: number; bps: number }[] = [];
  /** bytes per second the link delivered while a queue stood in it, and when that was last seen */
  private capacity = { bps: 0, at: -Infinity };
  private lastLimited = false;
  /** bytes per second the publisher sent at each step, once measured */
  private readonly stepBps: number[] = [];
  private sentAt: { at: number; bytes: number } | null = null;
  private congestedAt = -Infinity;
  private memoryMs = FULL_MEMORY_MS;
  /** the last step up that failed its trial, and when it fell back */
  private failed: { step: number; at: number } | null = null;
  /** when the last step up was taken */
  private upAt = -Infinity;
  /** when the step last changed, either way */
  private stepAt: number;
  private lastBuffered = 0;
  /** when the last step down was taken (or the start) */
  private changedAt: number;
  private quietSince: number | null = null;
  private congestedChecks = 0;

  constructor(
    private readonly opts: {
      /** the highest step: the least video that is still worth sending */
      maxStep: number;
      /** where to start (default: maxStep) */
      start?: number;
      /** bytes per second a step is planned to send, until measured; undefined: not known */
      plannedBps?: (step: number) => number | undefined;
      /** the time the publisher starts sending (ms, the clock of every other call) */
      now: number;
    },
  ) {
    this.want = Math.min(opts.maxStep, Math.max(0, opts.start ?? opts.maxStep));
    this.stepAt = opts.now;
    this.changedAt = opts.now;
  }

  /** Probes sent and not answered yet. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * A probe was handed to the socket at `now`, after `sentBytes` bytes in all (itself included).
   * Call what it returns when the answer comes (or with null when none will).
   */
  probe(now: number, sentBytes: number): ProbeAnswer {
    const p = { at: now, bytes: sentBytes };
    this.pending.push(p);
    return (at) => this.answered(p, at);
  }

  /** A new connection: another path, so a new minimum; the probes out will not be answered. */
  reset(): void {
    this.pending.length = 0;
    this.minRttMs = Infinity;
    this.lastAnswer = null;
    this.lastLimited = false;
  }

  /** Looks at the link once and moves a step when the rule says so. */
  check(now: number, look: UplinkLook): void {
    const oldest = this.pending[0];
    if (oldest) {
      // Unanswered: its age is a lower bound of the delay now. (Answered, the delay is its
      // answer's: each check weighs a new measurement.)
      this.delayMs = now - oldest.at - (Number.isFinite(this.minRttMs) ? this.minRttMs : 0);
    }
    const growing = look.buffered > BUFFERED_BOUND && look.buffered > this.lastBuffered;
    this.lastBuffered = look.buffered;
    this.measureStep(now, look.sentBytes);
    const onTrial = now - this.upAt < TRIAL_MS;
    const late = this.delayMs > (onTrial ? TRIAL_DELAY_MS : CONGESTED_MS) && !look.busy;
    if (late || growing) {
      this.congestedAt = now;
      this.quietSince = null;
      this.congestedChecks++;
      const needed = onTrial ? TRIAL_CONGESTED_CHECKS : CONGESTED_CHECKS;
      if (this.congestedChecks >= needed && this.want < this.opts.maxStep && now - this.changedAt >= HOLD_MS)
        this.change(this.want + 1, now);
      return;
    }
    this.congestedChecks = 0;
    if ((look.busy || this.delayMs < QUIET_MS) && look.buffered < BUFFERED_BOUND) {
      this.quietSince ??= now;
      const quietFor = this.congestedAt === -Infinity ? FIRST_QUIET_FOR_MS : QUIET_FOR_MS;
      if (this.want > 0 && now - this.quietSince >= quietFor && this.fits(this.want - 1, now)) {
        this.change(this.want - 1, now);
        this.quietSince = now;
      }
    } else this.quietSince = null;
  }

  private answered(p: { at: number; bytes: number }, now: number | null): void {
    const i = this.pending.indexOf(p);
    if (i < 0) return;
    this.pending.splice(i, 1);
    if (now === null) return;
    const rtt = now - p.at;
    this.minRttMs = Math.min(this.minRttMs, rtt);
    this.delayMs = rtt - this.minRttMs;
    const delivered = this.measureRate(now, p.bytes);
    if (delivered === undefined) return;
    // Two late answers in a row: a queue that stood, not one pause of the server or this process.
    const limited = this.delayMs > LIMITED_MS;
    if (delivered !== null && limited && this.lastLimited) {
      const recent = now - this.capacity.at <= RATE_WINDOW_MS;
      this.capacity = { bps: recent ? Math.max(this.capacity.bps, delivered) : delivered, at: now };
    }
    this.lastLimited = limited;
  }

  /**
   * Whether `step` may be tried: it did not just fail a trial, and the link has not queued lately
   * or what it carries leaves room.
   */
  private fits(step: number, now: number): boolean {
    // Whatever is known of its rate: a step that failed its trial waits out the link's memory
    // (a page does not know a step's rate before it has sent it for a few seconds).
    if (this.failed?.step === step && now - this.failed.at < this.memoryMs) return false;
    const need = this.stepBps[step] ?? this.opts.plannedBps?.(step);
    if (need === undefined) return true;
    if (now - this.capacity.at <= this.memoryMs) return need <= this.capacity.bps * HEADROOM;
    if (now - this.congestedAt > this.memoryMs) return true;
    return need <= this.rateBps * HEADROOM;
  }

  /**
   * Counts what was delivered since the last answer; returns its rate, null for the first answer,
   * undefined when this answer came within RATE_SPAN_MS of the last counted one (it is counted
   * with the next).
   */
  private measureRate(now: number, bytes: number): number | null | undefined {
    const last = this.lastAnswer;
    if (last && now - last.at < RATE_SPAN_MS) return undefined;
    this.lastAnswer = { at: now, bytes };
    let bps: number | null = null;
    if (last) {
      bps = ((bytes - last.bytes) * 1000) / (now - last.at);
      this.samples.push({ at: now, bps });
    }
    while (this.samples.length > 0 && now - this.samples[0]!.at > RATE_WINDOW_MS) this.samples.shift();
    this.rateBps = this.samples.reduce((m, x) => Math.max(m, x.bps), 0);
    return bps;
  }

  /** What the publisher sends at its current step, once it has been at it long enough. */
  private measureStep(now: number, bytes: number): void {
    if (!this.sentAt || now - this.stepAt < STEP_SETTLE_MS) {
      this.sentAt = { at: now, bytes };
      return;
    }
    if (now - this.sentAt.at < 1000) return;
    this.stepBps[this.want] = ((bytes - this.sentAt.bytes) * 1000) / (now - this.sentAt.at);
    this.sentAt = { at: now, bytes };
  }

  private change(step: number, now: number): void {
    // Only a step down holds the next one back: a step up that was too much falls back at once.
    if (step > this.want) {
      this.changedAt = now;
      const trialFailed = now - this.upAt < TRIAL_MS;
      if (trialFailed) this.failed = { step: this.want, at: now };
      this.memoryMs = trialFailed ? Math.min(FULL_MEMORY_MAX_MS, this.memoryMs * 2) : FULL_MEMORY_MS;
      // One failed trial doubles the memory once, however many steps down follow it.
      this.upAt = -Infinity;
    } else this.upAt = now;
    this.want = step;
    this.stepAt = now;
    this.sentAt = null;
  }
}
