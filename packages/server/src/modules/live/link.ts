/**
 * What a receiver's link carries, measured from the server's side with WebSocket pings: a ping is
 * written after the bytes it follows and every client answers it (browsers and `ws` do so without
 * being asked), so its pong says that the receiver has taken in every byte before it, and when.
 * From that come the bytes still in flight (written, not yet taken in: in the kernel's buffers and
 * on the wire), the round trip, its minimum (the link without a queue), and the throughput.
 *
 * Why pings and not the socket's own state: once written, bytes sit in the kernel's send buffer,
 * which grows to megabytes on its own (seconds of media on a slow link) and which Node does not
 * let us bound or read; `bufferedAmount` sees none of it. Why not receiver reports: they would
 * need every client to send them, and could be forged; a pong is answered by the protocol itself.
 */

/** At most one probe this often while bytes are written and the link is at least half full. */
export const PROBE_MS = 50;
/** At most one probe this often while the link is far from full. */
export const PROBE_IDLE_MS = 200;
/** Queueing the sender aims for, on top of the link's own round trip. */
export const QUEUE_TARGET_MS = 100;
/**
 * The least ever allowed in flight: on a slow link, what audio may wait behind (4 KB is 130 ms
 * at 250 kbit/s); one message larger than this still goes, alone.
 */
const MIN_WINDOW = 4 * 1024;
/**
 * In flight before the first throughput is measured: a join's first burst (the welcome, the
 * first key frames) goes out at once and in order on any link; a slow one is known within a few
 * round trips.
 */
const FIRST_WINDOW = 64 * 1024;
/** Throughput samples kept for the windowed maximum. */
const RATE_WINDOW_MS = 2000;
/** The minimum round trip is forgotten after this long (the route may have changed). */
const MIN_RTT_WINDOW_MS = 10_000;
/** Throughput measured while the sender waited for room is kept this long (see limitedBps). */
const LIMITED_WINDOW_MS = 5000;
const LIMITED_MIN_SAMPLES = 3;
const PROBE_MARK = 0x50; // 'P'
/** 1 MB/s (8 Mbit/s): a link this fast is not paced (see `fast`). */
const FAST_BPS = 1_000_000;
const STALL_MS = 500;

interface Probe {
  id: number;
  offset: number;
  at: number;
  /** sent while the socket was not read: its pong waited unread, so its round trip says nothing */
  blind: boolean;
  /** sent while something waited for room: what it measures is the link's pace, not the sender's */
  limited: boolean;
}

export class LinkEstimate {
  /** bytes written, and bytes the receiver has confirmed taking in */
  sent = 0;
  acked = 0;
  /** latest round trip, and the smallest recently (ms) */
  rttMs = 0;
  minRttMs = Infinity;
  private minRttAt = 0;
  private readonly probes: Probe[] = [];
  private nextId = 1;
  lastProbeAt = 0;
  private lastAck: { offset: number; at: number; limited: boolean } | null = null;
  private readonly samples: { at: number; bps: number }[] = [];
  /** bytes per second the link has been seen to deliver (windowed maximum) */
  rateBps = 0;
  /** bytes per second delivered over the last RATE_WINDOW_MS (what the receiver is sent now) */
  usedBps = 0;
  /** see `window`: worked out once per pong, read for every message */
  private windowBytes = FIRST_WINDOW;
  private readonly limitedSamples: { at: number; bps: number }[] = [];

  get inFlight(): number {
    return this.sent - this.acked;
  }

  /**
   * A link measured to carry at least FAST_BPS, whose pongs keep coming: no media rate builds
   * delay on it, so nothing is held back for it (and a server short of CPU, whose pongs are read
   * late, does not mistake its own lag for the link's). A link that stops answering for STALL_MS
   * is not fast, whatever it carried before.
   */
  fast(now: number): boolean {
    if (this.rateBps < FAST_BPS) return false;
    const oldest = this.probes[0];
    return !oldest || now - oldest.at < STALL_MS;
  }

  /** Queueing on the link now: the round trip over its minimum (ms). */
  get queueMs(): number {
    return this.minRttMs === Infinity ? 0 : Math.max(0, this.rttMs - this.minRttMs);
  }

  /**
   * What may be in flight: what the link delivers in its round trip plus the target queue. Each
   * round trip the measured rate can exceed the last (the window is larger than the link's
   * round trip needs), so it grows until the link is full and queueing appears.
   */
  get window(): number {
    return this.windowBytes;
  }

  /**
   * What the link carries for long (bytes per second): the median of the throughput measured
   * while something waited for room over the last LIMITED_WINDOW_MS, 0 when there are too few.
   * `rateBps` is the best of short spans, which a link's burst allowance (a token bucket lets a
   * few kilobytes through at once, then only its rate) can make two or three times what it
   * carries for long; while the sender waits for room, the burst allowance is spent.
   */
  limitedBps(now: number): number {
    while (this.limitedSamples.length > 0 && now - this.limitedSamples[0]!.at > LIMITED_WINDOW_MS)
      this.limitedSamples.shift();
    if (this.limitedSamples.length < LIMITED_MIN_SAMPLES) return 0;
    const sorted = this.limitedSamples.map((s) => s.bps).sort((a, b) => a - b);
    return sorted[sorted.length >> 1]!;
  }

  /**
   * A probe to ping with, covering everything written so far; `limited` when something waits for
   * room (the link sets the pace).
   */
  probe(now: number, blind = false, limited = false): Buffer {
    const id = this.nextId++ >>> 0;
    this.probes.push({ id, offset: this.sent, at: now, blind, limited });
    // Pongs that never come (a client that drops them) must not keep probes for ever.
    if (this.probes.length > 256) this.probes.shift();
    this.lastProbeAt = now;
    const payload = Buffer.alloc(5);
    payload[0] = PROBE_MARK;
    payload.writeUInt32BE(id, 1);
    return payload;
  }

  /** Takes a pong in; false when it answers no probe of ours (the heartbeat's, or forged). */
  onPong(payload: Buffer, now: number): boolean {
    if (payload.length !== 5 || payload[0] !== PROBE_MARK) return false;
    const id = payload.readUInt32BE(1);
    let probe: Probe | undefined;
    while (this.probes.length > 0 && this.probes[0]!.id <= id) probe = this.probes.shift();
    if (!probe || probe.id !== id) return false;
    this.acked = Math.max(this.acked, probe.offset);
    if (probe.blind) {
      this.lastAck = null;
      return true;
    }
    this.rttMs = now - probe.at;
    if (this.rttMs <= this.minRttMs || now - this.minRttAt > MIN_RTT_WINDOW_MS) {
      this.minRttMs = this.rttMs;
      this.minRttAt = now;
    }
    const last = this.lastAck;
    if (last && now - last.at >= 20) {
      const bps = ((probe.offset - last.offset) * 1000) / (now - last.at);
      this.samples.push({ at: now, bps });
      // Limited by the link throughout: the probes at both ends were sent while something waited
      // for room, and the link queued (a window too small for a fast link limits the sender too).
      if (probe.limited && last.limited && this.queueMs >= QUEUE_TARGET_MS / 2)
        this.limitedSamples.push({ at: now, bps });
      this.lastAck = { offset: probe.offset, at: now, limited: probe.limited };
    } else if (!last) this.lastAck = { offset: probe.offset, at: now, limited: probe.limited };
    while (this.samples.length > 0 && now - this.samples[0]!.at > RATE_WINDOW_MS) this.samples.shift();
    this.rateBps = this.samples.reduce((m, s) => Math.max(m, s.bps), 0);
    if (this.rateBps > 0) {
      const rtt = this.minRttMs === Infinity ? 0 : this.minRttMs;
      this.windowBytes = Math.max(MIN_WINDOW, (this.rateBps * (rtt + QUEUE_TARGET_MS)) / 1000);
    }
    this.usedBps =
      this.samples.length > 0 ? this.samples.reduce((n, s) => n + s.bps, 0) / this.samples.length : 0;
    return true;
  }
}
