/**
 * A bot's watch on its own uplink (docs/protocol.md §6, Publishers): how long what it sends waits
 * before the server reads it, and which step of video it should send for that.
 *
 * Every 125 ms the bot pings the server on its socket. The server answers a ping only after
 * reading everything sent before it, so the round trip includes the time the bot's data waited in
 * its own socket and the network on the way; the smallest round trip seen is the link without a
 * queue, and the round trip minus it is the queue's delay. A ping not answered yet counts with its
 * age. `bufferedAmount` (what has not even reached the kernel) growing says the same, sooner.
 *
 * Steps: 0 sends every layer at full rate; 1 sends layer 0 (the one recorded) at its floor rate
 * beside both reduced layers; 2 the floor and the smallest layer (layers.ts). A bot starts at the
 * highest step, the least it can send and still be recorded, and steps up as the link proves it
 * can carry more, as a WebRTC sender starts low and probes up: pushing everything into an unknown
 * link at once would queue seconds of audio behind video before the first measurement said so.
 * Down when a second of checks all find the delay past 150 ms (at most one step a second, so the
 * queue built before a step can drain), or two checks in a row past 80 ms in the 3 s after a step
 * up (a trial that failed falls back before its queue is heard); up one step after 3 s under 40 ms (2.5 s while the
 * link has never queued), unless what the link was measured to carry lately has no room for what
 * that step sends (trying it would only queue again, and the audio with it).
 *
 * The same pongs measure the link: the bytes the bot had sent when it pinged were all read when
 * the pong came, so the bytes between two pings over the time between their pongs is what the
 * link delivered. Measured while a queue stood in it (two pongs in a row 40 ms or more late), that is
 * what the link carries: on a slow link the bot's first key frames queue, so its capacity is known
 * from the first seconds, and a step it has no room for is never tried.
 */
import type { WebSocket } from 'ws';

export const PING_EVERY_MS = 125;
const CONGESTED_MS = 150;
const QUIET_MS = 40;
const QUIET_FOR_MS = 3000;
/**
 * While the link has never queued, a step up needs this long under QUIET_MS: the first ramp. Longer
 * than the bot's longest key-frame interval (2 s), so that a slow link has shown its capacity under
 * a key frame's queue before the first step up is weighed.
 */
const FIRST_QUIET_FOR_MS = 2500;
/** After a step up, the link is on trial this long (ms): two congested checks in a row step back down. */
const TRIAL_MS = 3000;
const TRIAL_CONGESTED_CHECKS = 2;
/** On trial, the queue that counts: a step that does not fit fails before its queue is heard. */
const TRIAL_DELAY_MS = 80;
/**
 * A pong this far over the link's own round trip found a queue: what the link delivered up to it
 * is what the link carries (its capacity), not merely what was sent. The bot's key frames make such
 * a queue on a slow link from its first seconds, so a step that cannot fit is known before it is
 * tried.
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
/** `bufferedAmount` above this, and growing, is a queue even before a pong says so. */
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
/** A step's own send rate is measured once it has been sent this long. */
const STEP_SETTLE_MS = 2000;

/** A forced step from `afterS` after joining on, instead of measuring (tests, demos). */
export interface ForcedStep {
  afterS: number;
  step: number;
}

export class Uplink {
  /** the step the link calls for now; the video switches to it at its next key frame */
  want: number;
  /** the latest queue delay, ms */
  delayMs = 0;
  private sock: WebSocket | null = null;
  private minRttMs = Infinity;
  private ping: { id: number; at: number; bytes: number } | null = null;
  private lastPong: { at: number; bytes: number } | null = null;
  private readonly samples: { at: number; bps: number }[] = [];
  /** bytes per second the link was seen to deliver (windowed maximum) */
  rateBps = 0;
  /** bytes per second the link delivered while a queue stood in it, and when that was last seen */
  private capacity = { bps: 0, at: -Infinity };
  private lastLimited = false;
  /** bytes per second the bot sent at each step, once measured */
  private readonly stepBps: number[] = [];
  private sentAt: { at: number; bytes: number } | null = null;
  private congestedAt = -Infinity;
  private memoryMs = FULL_MEMORY_MS;
  /** when the last step up was taken */
  private upAt = -Infinity;
  /** when the step last changed, either way */
  private stepAt = 0;
  private nextId = 0;
  private lastBuffered = 0;
  /** when the last step down was taken */
  private changedAt = 0;
  private quietSince: number | null = null;
  private congestedChecks = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private t0 = 0;

  constructor(
    /** the highest step: the number of encodings less one */
    private readonly maxStep: number,
    private readonly forced: ForcedStep[] | undefined,
    /** bytes the bot has handed its socket so far */
    private readonly sentBytes: () => number = () => 0,
    /** bytes per second a step is planned to send, until measured; undefined: not known */
    private readonly plannedBps: (step: number) => number | undefined = () => undefined,
  ) {
    // Measured, a bot starts at the least it can send; forced, at the full picture until told.
    this.want = forced ? 0 : maxStep;
  }

  /** Watches a new socket of the bot (each reconnect makes one): a new path, so a new minimum. */
  attach(sock: WebSocket): void {
    this.sock = sock;
    this.minRttMs = Infinity;
    this.ping = null;
    this.lastPong = null;
    sock.on('pong', (data: Buffer) => {
      if (sock !== this.sock || !this.ping || data.length !== 4 || data.readUInt32BE(0) !== this.ping.id)
        return;
      const now = performance.now();
      const rtt = now - this.ping.at;
      this.minRttMs = Math.min(this.minRttMs, rtt);
      this.delayMs = rtt - this.minRttMs;
      const delivered = this.measureRate(now, this.ping.bytes);
      // Two late pongs in a row: a queue that stood, not one pause of the server or this process.
      const limited = this.delayMs > LIMITED_MS;
      if (delivered !== null && limited && this.lastLimited) {
        const recent = now - this.capacity.at <= RATE_WINDOW_MS;
        this.capacity = { bps: recent ? Math.max(this.capacity.bps, delivered) : delivered, at: now };
      }
      this.lastLimited = limited;
      this.ping = null;
    });
  }

  start(): void {
    this.t0 = performance.now();
    this.changedAt = this.t0;
    this.stepAt = this.t0;
    if (this.maxStep > 0) this.timer = setInterval(() => this.tick(), PING_EVERY_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Pings at once, when no ping is out: called right after a burst (a picture's key frames), so
   * that its pong times how long the link takes to drain it. On a slow link that is the queue
   * that measures its capacity; on a fast one nothing queues.
   */
  pingNow(): void {
    const sock = this.sock;
    if (this.timer && sock && sock.readyState === sock.OPEN && !this.ping)
      this.sendPing(sock, performance.now());
  }

  private sendPing(sock: WebSocket, now: number): void {
    const id = (this.nextId = (this.nextId + 1) >>> 0);
    const data = Buffer.alloc(4);
    data.writeUInt32BE(id);
    this.ping = { id, at: now, bytes: this.sentBytes() };
    sock.ping(data);
  }

  private tick(): void {
    const now = performance.now();
    const sock = this.sock;
    if (!sock || sock.readyState !== sock.OPEN) return;
    if (this.ping) {
      // Unanswered since the last check: its age is a lower bound of the delay now. (Answered,
      // the delay is its pong's: each check weighs a new measurement.)
      this.delayMs = now - this.ping.at - (Number.isFinite(this.minRttMs) ? this.minRttMs : 0);
    } else this.sendPing(sock, now);
    const buffered = sock.bufferedAmount;
    const growing = buffered > BUFFERED_BOUND && buffered > this.lastBuffered;
    this.lastBuffered = buffered;
    if (this.forced) {
      const elapsedS = (now - this.t0) / 1000;
      const due = this.forced.filter((f) => f.afterS <= elapsedS).at(-1);
      this.want = Math.min(this.maxStep, Math.max(0, due?.step ?? 0));
      return;
    }
    this.measureStep(now);
    const onTrial = now - this.upAt < TRIAL_MS;
    if (this.delayMs > (onTrial ? TRIAL_DELAY_MS : CONGESTED_MS) || growing) {
      this.congestedAt = now;
      this.quietSince = null;
      this.congestedChecks++;
      const needed = onTrial ? TRIAL_CONGESTED_CHECKS : CONGESTED_CHECKS;
      if (this.congestedChecks >= needed && this.want < this.maxStep && now - this.changedAt >= HOLD_MS)
        this.change(this.want + 1, now);
      return;
    }
    this.congestedChecks = 0;
    if (this.delayMs < QUIET_MS && buffered < BUFFERED_BOUND) {
      this.quietSince ??= now;
      const quietFor = this.congestedAt === -Infinity ? FIRST_QUIET_FOR_MS : QUIET_FOR_MS;
      if (this.want > 0 && now - this.quietSince >= quietFor && this.fits(this.want - 1, now)) {
        this.change(this.want - 1, now);
        this.quietSince = now;
      }
    } else this.quietSince = null;
  }

  /** Whether `step` may be tried: the link has not queued lately, or what it carries leaves room. */
  private fits(step: number, now: number): boolean {
    const need = this.stepBps[step] ?? this.plannedBps(step);
    if (need === undefined) return true;
    if (now - this.capacity.at <= this.memoryMs) return need <= this.capacity.bps * HEADROOM;
    if (now - this.congestedAt > this.memoryMs) return true;
    return need <= this.rateBps * HEADROOM;
  }

  /** Counts what was delivered since the last pong; returns its rate (null for the first pong). */
  private measureRate(now: number, bytes: number): number | null {
    const last = this.lastPong;
    this.lastPong = { at: now, bytes };
    let bps: number | null = null;
    if (last && now > last.at) {
      bps = ((bytes - last.bytes) * 1000) / (now - last.at);
      this.samples.push({ at: now, bps });
    }
    while (this.samples.length > 0 && now - this.samples[0]!.at > RATE_WINDOW_MS) this.samples.shift();
    this.rateBps = this.samples.reduce((m, x) => Math.max(m, x.bps), 0);
    return bps;
  }

  /** What the bot sends at its current step, once it has been at it long enough. */
  private measureStep(now: number): void {
    const bytes = this.sentBytes();
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
      this.memoryMs =
        now - this.upAt < TRIAL_MS ? Math.min(FULL_MEMORY_MAX_MS, this.memoryMs * 2) : FULL_MEMORY_MS;
      // One failed trial doubles the memory once, however many steps down follow it.
      this.upAt = -Infinity;
    } else this.upAt = now;
    this.want = step;
    this.stepAt = now;
    this.sentAt = null;
  }
}
