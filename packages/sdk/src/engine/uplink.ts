/**
 * The page's side of flow control (docs/protocol.md §6, "Publishers"): the shared uplink rule
 * (`UplinkRule` in @vss/protocol: how the queue's delay and the link's capacity are measured, and
 * when to step) fed with this page's acknowledged publishes, and the video each of its steps sends.
 *
 * Probes: a publish with an `id` is answered once the server has read it (and everything sent
 * before it) and written it, so its ack times the queue in front of it. Every layer-0 picture asks
 * for one (it is recorded); a sound chunk asks for one when nothing else has for PROBE_EVERY_MS,
 * so that the link is measured ten times a second even while the camera sends two pictures a
 * second or is off. A refused publish was read all the same: its error answers the probe.
 *
 * Steps: only video changes. Audio is never made worse for video's sake, and its sends keep their
 * own, longer queue limit (publishing.ts). Layer 0's bitrate goes down first (it is most of the
 * bytes; the server gives slow receivers the reduced layers anyway) and the frame rate with it (an
 * encoder given an easy picture sends less than its bitrate, and then only fewer pictures send
 * less), then the reduced layers stop, layer 1 before the cheap layer 2. Layer 0, the one
 * recorded, is never stopped: its last step is an eighth of the profile's frame rate (a picture a
 * second for a screen, two for a camera) at a small bitrate, so a recording never gets a hole from
 * adaptation.
 *
 * A page on a busy device (three people in a call on one two-core machine) reads its acks late
 * whatever its link does: while device-busy.ts says so, late acks neither step down nor hold
 * pictures back; the socket's bytes decide (piling up, a step down; drained, a step up).
 *
 * A page starts at START_STEP, not at everything: on a link it does not know yet, a camera's three
 * layers (up to 800 kbit/s) would queue seconds of its sound behind them before the first ack
 * said so. It steps up as the acks show room, one step per 2.5 s while nothing has queued.
 */
import { UPLINK_CHECK_MS, UplinkRule } from '@vss/protocol';
import { deviceBusy } from './device-busy';

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

/**
 * The step a page starts at: a camera's layer 0 at 90 kbit/s and 5 fps, which fits a 300 kbit/s
 * uplink beside its sound (about 50 kbit/s on the wire); a fast link is at step 0 within about
 * 10 s (four steps up).
 */
export const START_STEP = 4;

/** How often the link is looked at. */
export const UPLINK_TICK_MS = UPLINK_CHECK_MS;

/** A sound chunk is made a probe when no publish has been one for this long. */
const PROBE_EVERY_MS = 100;

/**
 * Queue delay (ms) past which layer 1's pictures wait (are not encoded) until it drains: the sound
 * behind them must not wait for pictures that would arrive late anyway. Layer 0 (the recorded one)
 * and layer 2 (the smallest, which keeps the picture moving) wait only past the second figure.
 */
const VIDEO_DELAY_MS = 400;
const LASTING_DELAY_MS = 1000;

/** What the uplink reads of the connection. */
export interface UplinkSocket {
  /** bytes queued in the page and not yet passed to the network */
  readonly bufferedAmount: number;
  /** bytes handed to the socket so far */
  readonly bytesSent: number;
}

/** Watches one page's uplink; `tick()` every UPLINK_TICK_MS, `sent()` for each acked publish. */
export class Uplink {
  private readonly rule: UplinkRule;
  private lastProbe = -Infinity;

  constructor(
    private readonly socket: UplinkSocket,
    /** told each new step */
    private readonly onStep: (step: UplinkStep) => void,
    now = performance.now(),
    /** whether this page's device is busy now (device-busy.ts; a test gives its own) */
    private readonly busy: (now: number) => boolean = deviceBusy,
  ) {
    this.rule = new UplinkRule({ maxStep: STEPS.length - 1, start: START_STEP, now });
  }

  /** The step in force. */
  get current(): UplinkStep {
    return STEPS[this.rule.want]!;
  }

  /** Index of the step in force (0: everything). */
  get level(): number {
    return this.rule.want;
  }

  /** The latest queue delay measured (ms). */
  get delayMs(): number {
    return this.rule.delayMs;
  }

  /**
   * True when a picture of `layer` may be encoded now: the queue is short enough for it (on a
   * busy device the delay says nothing of the queue: the socket's own limit decides then).
   */
  videoMay(layer: number, now = performance.now()): boolean {
    return this.busy(now) || this.rule.delayMs <= (layer === 1 ? VIDEO_DELAY_MS : LASTING_DELAY_MS);
  }

  /** True when the next sound chunk should ask for an ack, to time the link. */
  probeDue(now = performance.now()): boolean {
    return now - this.lastProbe >= PROBE_EVERY_MS;
  }

  /**
   * Call right after handing an acked publish to the socket; call the function it returns when
   * the ack or a refusal arrives, or with `false` when none will (the connection dropped).
   */
  sent(now = performance.now()): (answered?: boolean, at?: number) => void {
    this.lastProbe = now;
    const answer = this.rule.probe(now, this.socket.bytesSent);
    return (answered = true, at = performance.now()) => answer(answered ? at : null);
  }

  /** A new connection: another path, another minimum; the acks out will not come. */
  reset(): void {
    this.rule.reset();
  }

  /** Looks at the link once and moves a step when the rule says so. */
  tick(now = performance.now()): void {
    const was = this.rule.want;
    this.rule.check(now, {
      buffered: this.socket.bufferedAmount,
      sentBytes: this.socket.bytesSent,
      busy: this.busy(now),
    });
    if (this.rule.want !== was) this.onStep(STEPS[this.rule.want]!);
  }
}
