/**
 * A bot's watch on its own uplink: the shared rule (`UplinkRule` in @vss/protocol, which says how
 * the delay and the link's capacity are measured and when to step) fed with WebSocket pings.
 *
 * Every UPLINK_CHECK_MS the bot pings the server on its socket when no ping is out, and right
 * after a picture's key frames (`pingNow`): the server answers a ping only after reading
 * everything sent before it, so a ping is the rule's probe. Steps: 0 sends every layer at full
 * rate; 1 sends layer 0 (the one recorded) at its floor rate beside both reduced layers; 2 the
 * floor and the smallest layer (layers.ts). A bot starts at the highest step.
 */
import { UPLINK_CHECK_MS, UplinkRule, type ProbeAnswer } from '@vss/protocol';
import type { WebSocket } from 'ws';

export const PING_EVERY_MS = UPLINK_CHECK_MS;

/** A forced step from `afterS` after joining on, instead of measuring (tests, demos). */
export interface ForcedStep {
  afterS: number;
  step: number;
}

export class Uplink {
  private rule: UplinkRule;
  private sock: WebSocket | null = null;
  private ping: { id: number; answer: ProbeAnswer } | null = null;
  private nextId = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private t0 = 0;
  private forcedStep = 0;

  constructor(
    /** the highest step: the number of encodings less one */
    private readonly maxStep: number,
    private readonly forced: ForcedStep[] | undefined,
    /** bytes the bot has handed its socket so far */
    private readonly sentBytes: () => number = () => 0,
    /** bytes per second a step is planned to send, until measured; undefined: not known */
    private readonly plannedBps: (step: number) => number | undefined = () => undefined,
  ) {
    this.rule = this.newRule(performance.now());
  }

  /** the step the link calls for now; the video switches to it at its next key frame */
  get want(): number {
    // Measured, a bot starts at the least it can send; forced, at the full picture until told.
    return this.forced ? this.forcedStep : this.rule.want;
  }

  /** the latest queue delay, ms */
  get delayMs(): number {
    return this.rule.delayMs;
  }

  /** bytes per second the link was seen to deliver lately */
  get rateBps(): number {
    return this.rule.rateBps;
  }

  /** Watches a new socket of the bot (each reconnect makes one): a new path, so a new minimum. */
  attach(sock: WebSocket): void {
    this.sock = sock;
    this.ping = null;
    this.rule.reset();
    sock.on('pong', (data: Buffer) => {
      const ping = this.ping;
      if (sock !== this.sock || !ping || data.length !== 4 || data.readUInt32BE(0) !== ping.id) return;
      this.ping = null;
      ping.answer(performance.now());
    });
  }

  start(): void {
    this.t0 = performance.now();
    this.rule = this.newRule(this.t0);
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

  private newRule(now: number): UplinkRule {
    return new UplinkRule({ maxStep: this.maxStep, plannedBps: this.plannedBps, now });
  }

  private sendPing(sock: WebSocket, now: number): void {
    const id = (this.nextId = (this.nextId + 1) >>> 0);
    const data = Buffer.alloc(4);
    data.writeUInt32BE(id);
    this.ping = { id, answer: this.rule.probe(now, this.sentBytes()) };
    sock.ping(data);
  }

  private tick(): void {
    const now = performance.now();
    const sock = this.sock;
    if (!sock || sock.readyState !== sock.OPEN) return;
    if (this.forced) {
      const elapsedS = (now - this.t0) / 1000;
      const due = this.forced.filter((f) => f.afterS <= elapsedS).at(-1);
      this.forcedStep = Math.min(this.maxStep, Math.max(0, due?.step ?? 0));
    } else this.rule.check(now, { buffered: sock.bufferedAmount, sentBytes: this.sentBytes() });
    if (!this.ping) this.sendPing(sock, now);
  }
}
