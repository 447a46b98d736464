/**
 * A lean load generator for live fan-out: WebSocket clients (bench/lib/ws-link.ts: a minimal
 * streaming client by default, or the `ws` package's) that publish fake JPEG frames at a fixed
 * rate and count what they receive. It works against the real gateway (binary or JSON
 * media frames) and against a bare relay (which relays the same bytes), and measures, over a
 * window, frames sent, frames a perfect relay would deliver, frames delivered and their
 * publish-to-receive latency.
 *
 * Each frame carries its send time (performance.now() of this process, so publishers and
 * receivers share one clock) inside the JPEG bytes, at a fixed payload offset.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { openLink, type Link, type Transport } from './ws-link.ts';

/** Payload offsets of the stamp: `VSSB`, float64 send time (ms), uint32 frame number, uint16 publisher. */
const STAMP_AT = 24;
const TIME_AT = STAMP_AT + 4;
const MAGIC = 0x56; // the vss binary frame's first byte
const BINARY_PUBLISH = 1;
const BINARY_MESSAGE = 2;
/** Base64 characters that cover the payload up to and past the stamp (48 bytes). */
const STAMP_B64_CHARS = 64;
const BODY_KEY = Buffer.from('"body":"');
const MESSAGE_PREFIX = Buffer.from('{"type":"message"');
const ERROR_PREFIX = Buffer.from('{"type":"control","event":"error"');

/**
 * A fake baseline JPEG of `bytes` bytes: SOI, a JFIF APP0 segment, an APP15 segment holding the
 * stamp, filler, EOI (FF D9). Only the markers are real; the server checks the first three bytes.
 */
export function jpegTemplate(bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) b[i] = (i * 131 + 7) & 0x7f; // filler without 0xFF markers
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]).copy(b, 0);
  Buffer.from('JFIF\0', 'latin1').copy(b, 6);
  Buffer.from([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]).copy(b, 11);
  Buffer.from([0xff, 0xef, 0x00, 0x14]).copy(b, 20); // APP15, length 20: VSSB + stamp + padding
  Buffer.from('VSSB', 'latin1').copy(b, STAMP_AT);
  b[bytes - 2] = 0xff;
  b[bytes - 1] = 0xd9;
  return b;
}

/** One participant: where it connects and whether it publishes. */
export interface ParticipantPlan {
  userId: string;
  /** the full ws:// URL (token and format included) */
  url: string;
  publishes: boolean;
}

/** The connections of one room (a session, or a relay room). */
export interface RoomPlan {
  name: string;
  participants: ParticipantPlan[];
}

export interface LoadPlan {
  rooms: RoomPlan[];
  /** frames per second of each publisher */
  fps: number;
  frameBytes: number;
  /** publish JSON `publish` frames with base64 bodies, and expect JSON `message` frames */
  json: boolean;
  /** wait for the server's first text frame (the `welcome`) before counting a connection joined */
  waitWelcome: boolean;
  /** the client implementation (bench/lib/ws-link.ts); default 'raw' */
  transport?: Transport;
}

/** What the window measured. */
export interface WindowResult {
  durationS: number;
  /** frames published with a send time inside the window */
  sent: number;
  /** deliveries a perfect relay would make of those frames (one per other member of the room) */
  expected: number;
  /** deliveries of those frames that arrived (before the grace period ended) */
  delivered: number;
  /** publish-to-receive latency of each delivery, ms, ascending */
  latencies: Float64Array;
  /** `control`/`error` frames received (e.g. RATE_LIMITED), and the first of them */
  errors: number;
  firstError: string | null;
  /** frames the publishers' schedule could not send in time (generator overloaded) */
  skipped: number;
  /** the generator's event-loop delay during the window, ms */
  loopDelayP99: number;
}

interface Conn {
  link: Link | null;
  room: number;
  publisher: number; // -1 for receivers
  header: Buffer | null; // binary publish header of a publisher
  streamType: string;
  next: number; // next scheduled send, performance.now() ms
  frames: number;
}

/** Runs the clients of one plan: connect(), start(), openWindow(), closeWindow(), settle(), close(). */
export class FanoutLoad {
  private readonly conns: Conn[] = [];
  private readonly publishers: Conn[] = [];
  private readonly roomSizes: number[];
  private readonly template: Buffer;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private windowStart = Infinity;
  private windowEnd = Infinity;
  private counting = false;
  private sent = 0;
  private expected = 0;
  private delivered = 0;
  private latencies = new Float64Array(1 << 16);
  private errors = 0;
  private firstError: string | null = null;
  private skipped = 0;
  private readonly loop = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly plan: LoadPlan) {
    this.roomSizes = plan.rooms.map((r) => r.participants.length);
    this.template = jpegTemplate(plan.frameBytes);
  }

  /** Number of connections. */
  get size(): number {
    return this.roomSizes.reduce((a, b) => a + b, 0);
  }

  /** Frames per second a perfect relay delivers at this plan's rate. */
  get nominalDeliveriesPerS(): number {
    let n = 0;
    for (const room of this.plan.rooms) {
      const pubs = room.participants.filter((p) => p.publishes).length;
      n += pubs * (room.participants.length - 1) * this.plan.fps;
    }
    return n;
  }

  /** Opens every connection, `concurrency` at a time: receivers first, then publishers. */
  async connect(concurrency = 50): Promise<void> {
    const all: Array<{ room: number; p: ParticipantPlan }> = [];
    this.plan.rooms.forEach((room, i) => {
      for (const p of room.participants) if (!p.publishes) all.push({ room: i, p });
    });
    this.plan.rooms.forEach((room, i) => {
      for (const p of room.participants) if (p.publishes) all.push({ room: i, p });
    });
    let cursor = 0;
    const worker = async () => {
      while (cursor < all.length) {
        const { room, p } = all[cursor++]!;
        this.conns.push(await this.open(room, p));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, all.length) }, worker));
  }

  private async open(room: number, p: ParticipantPlan): Promise<Conn> {
    const streamType = `media/${p.userId}/cam`;
    const conn: Conn = {
      link: null,
      room,
      publisher: -1,
      header: p.publishes && !this.plan.json ? publishHeader(streamType) : null,
      streamType,
      next: 0,
      frames: 0,
    };
    let welcomed: () => void = () => {};
    const welcome = new Promise<void>((r) => (welcomed = r));
    let joined = !this.plan.waitWelcome;
    const link = await openLink(this.plan.transport ?? 'raw', p.url, (head, isBinary, lastByte) => {
      if (!joined) {
        joined = true;
        return welcomed();
      }
      this.receive(head, isBinary, lastByte);
    }).catch((err: Error) => {
      throw new Error(`${p.userId}: ${err.message}`);
    });
    conn.link = link;
    if (!joined) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${p.userId}: no welcome within 15 s`)), 15_000);
      });
      try {
        await Promise.race([welcome, timeout]);
      } catch (err) {
        await link.close(1000);
        throw err;
      } finally {
        clearTimeout(timer);
      }
    }
    if (p.publishes) {
      conn.publisher = this.publishers.length;
      this.publishers.push(conn);
    }
    return conn;
  }

  /**
   * Counts one received message (its first HEAD_BYTES bytes and its last byte): media frames
   * stamped inside the window, and error controls.
   */
  private receive(data: Buffer, isBinary: boolean, lastByte: number): void {
    const now = performance.now();
    let sentAt: number;
    if (isBinary) {
      if (data[0] !== MAGIC) return;
      const o = 3 + data[2]! + 8;
      const payload = data[1] === BINARY_PUBLISH ? o + 1 + data[o]! : data[1] === BINARY_MESSAGE ? o + 8 : -1;
      if (payload < 0 || payload + TIME_AT + 8 > data.length) return;
      if (data[payload] !== 0xff || data[payload + 1] !== 0xd8 || lastByte !== 0xd9) return;
      sentAt = data.readDoubleLE(payload + TIME_AT);
    } else {
      if (data.compare(MESSAGE_PREFIX, 0, MESSAGE_PREFIX.length, 0, MESSAGE_PREFIX.length) !== 0) {
        if (data.compare(ERROR_PREFIX, 0, ERROR_PREFIX.length, 0, ERROR_PREFIX.length) === 0) {
          this.errors += 1;
          this.firstError ??= data.toString('utf8', 0, Math.min(data.length, 300));
        }
        return;
      }
      const at = data.indexOf(BODY_KEY);
      if (at < 0 || at + BODY_KEY.length + STAMP_B64_CHARS > data.length) return;
      const start = at + BODY_KEY.length;
      const head = Buffer.from(data.toString('latin1', start, start + STAMP_B64_CHARS), 'base64');
      if (head[0] !== 0xff || head[1] !== 0xd8) return;
      sentAt = head.readDoubleLE(TIME_AT);
    }
    if (!this.counting || sentAt < this.windowStart || sentAt >= this.windowEnd) return;
    if (this.delivered === this.latencies.length) {
      const grown = new Float64Array(this.latencies.length * 2);
      grown.set(this.latencies);
      this.latencies = grown;
    }
    this.latencies[this.delivered++] = now - sentAt;
  }

  /** Starts publishing: every publisher at `fps`, their phases spread evenly over one period. */
  start(): void {
    const period = 1000 / this.plan.fps;
    const t0 = performance.now();
    this.publishers.forEach((c, i) => (c.next = t0 + (period * i) / this.publishers.length));
    this.running = true;
    this.tick();
  }

  private tick = (): void => {
    this.timer = null;
    if (!this.running) return;
    const period = 1000 / this.plan.fps;
    let now = performance.now();
    let due = Infinity;
    for (const c of this.publishers) {
      // More than a second behind: the generator cannot keep up; skip rather than burst.
      if (now - c.next > 1000) {
        const missed = Math.floor((now - c.next) / period);
        this.skipped += missed;
        c.next += missed * period;
      }
      while (c.next <= now) {
        this.publish(c);
        c.next += period;
        now = performance.now();
      }
      if (c.next < due) due = c.next;
    }
    this.timer = setTimeout(this.tick, Math.max(0, due - performance.now()));
  };

  private publish(c: Conn): void {
    const link = c.link;
    if (!link || !link.isOpen) return;
    const size = this.plan.frameBytes;
    const frameNo = c.frames++;
    const sentAt = performance.now();
    if (c.header) {
      const h = c.header.length;
      const buf = Buffer.allocUnsafe(h + size);
      c.header.copy(buf, 0);
      this.template.copy(buf, h);
      buf.writeBigUInt64BE(BigInt(Date.now()), h - 9);
      buf.writeDoubleLE(sentAt, h + TIME_AT);
      buf.writeUInt32LE(frameNo, h + TIME_AT + 8);
      buf.writeUInt16LE(c.publisher, h + TIME_AT + 12);
      link.send(buf, true);
    } else {
      const payload = Buffer.from(this.template);
      payload.writeDoubleLE(sentAt, TIME_AT);
      payload.writeUInt32LE(frameNo, TIME_AT + 8);
      payload.writeUInt16LE(c.publisher, TIME_AT + 12);
      const text = `{"type":"publish","stream_type":${JSON.stringify(c.streamType)},"timestamp_ms":${Date.now()},"body":"${payload.toString('base64')}"}`;
      link.send(Buffer.from(text, 'latin1'), false);
    }
    if (this.counting && sentAt >= this.windowStart && sentAt < this.windowEnd) {
      this.sent += 1;
      this.expected += this.roomSizes[c.room]! - 1;
    }
  }

  /** Starts counting: frames sent from now on are measured. */
  openWindow(): void {
    this.sent = this.expected = this.delivered = this.errors = this.skipped = 0;
    this.firstError = null;
    this.windowStart = performance.now();
    this.windowEnd = Infinity;
    this.counting = true;
    this.loop.reset();
    this.loop.enable();
  }

  /** Ends the window: frames sent from now on are not measured (those in flight still are). */
  closeWindow(): void {
    this.windowEnd = performance.now();
    this.loop.disable();
  }

  /** Waits until every measured frame has arrived or `graceMs` passed, then stops counting. */
  async settle(graceMs: number): Promise<WindowResult> {
    const deadline = performance.now() + graceMs;
    while (this.delivered < this.expected && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    this.counting = false;
    const latencies = this.latencies.slice(0, this.delivered).sort();
    return {
      durationS: (this.windowEnd - this.windowStart) / 1000,
      sent: this.sent,
      expected: this.expected,
      delivered: this.delivered,
      latencies,
      errors: this.errors,
      firstError: this.firstError,
      skipped: this.skipped,
      loopDelayP99: this.loop.percentile(99) / 1e6,
    };
  }

  /** Stops publishing. */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Stops publishing and closes every connection (terminating those that do not close in time). */
  async close(timeoutMs = 3000): Promise<void> {
    this.stop();
    await Promise.all(this.conns.map((c) => c.link?.close(timeoutMs)));
  }
}

/** The binary publish header (protocol §4) up to the payload, no ack id; timestamp_ms is its last 9..2 bytes. */
function publishHeader(streamType: string): Buffer {
  const st = Buffer.from(streamType, 'utf8');
  const h = Buffer.alloc(3 + st.length + 8 + 1);
  h[0] = MAGIC;
  h[1] = BINARY_PUBLISH;
  h[2] = st.length;
  st.copy(h, 3);
  h[h.length - 1] = 0; // id length 0: no ack
  return h;
}
