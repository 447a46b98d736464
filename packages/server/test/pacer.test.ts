// Unit specification of one receiver's delivery (ReceiverPacer) on a simulated slow link, on a fake
// clock: a publisher's sound every 20 ms and camera pictures every 66 ms go through the pacer, whose
// socket writes into a bottleneck that serves bytes in order at its rate and answers each ping
// once the bytes before it are through. What the receiver would notice: its sound is never held
// behind video, control messages overtake waiting media, video that would arrive late is dropped
// and the track picks up at a key frame, and the publisher is not flooded with key-frame requests.
// No server, no socket, no root.
import type { Layer } from '@vss/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LayerRates } from '../src/modules/live/layers.js';
import { ReceiverPacer, VIDEO_BUDGET_MS, type PacerStats, type Wire } from '../src/modules/live/pacer.js';

const STEP_MS = 2;
const TRACK = 'alice/cam';

/** What reached the receiver: kind, when it was handed to the pacer, when it arrived, and more. */
interface Arrival {
  kind: 'audio' | 'video' | 'control';
  sentAt: number;
  at: number;
  seq: number;
  key: boolean;
}

/** A message's wire form: its kind, sequence number, key flag and sending time, padded to `bytes`. */
function message(kind: Arrival['kind'], seq: number, key: boolean, bytes: number): Buffer {
  const b = Buffer.alloc(Math.max(bytes, 16));
  b[0] = { audio: 1, video: 2, control: 3 }[kind];
  b[1] = key ? 1 : 0;
  b.writeUInt32BE(seq, 2);
  b.writeDoubleBE(Date.now(), 6);
  return b;
}

class Sim {
  readonly arrivals: Arrival[] = [];
  readonly keyAsks: number[] = [];
  readonly stats: PacerStats = { dropped: 0, layerSwitches: 0, keyframeSkips: 0 };
  readonly rates = new LayerRates();
  readonly pacer: ReceiverPacer;
  pings = 0;
  private readonly queue: { data: Buffer; left: number; ping?: boolean }[] = [];
  private readonly inTransit: { at: number; data: Buffer; ping?: boolean }[] = [];
  private audioSeq = 0;
  private videoSeq = 0;
  private nextAudio = 0;
  private nextVideo = 0;
  /** the publisher sends a key frame on request, or every 2 s */
  private keyOwed = true;
  private lastKeyAt = -Infinity;

  /** bytes of one picture of each layer the publisher sends; a key frame is three times that */
  constructor(
    private readonly rateBps: number,
    private readonly layers: number[] = [3000, 900, 300],
    private readonly delayMs = 20,
  ) {
    const wire: Wire = {
      open: true,
      reading: true,
      write: (data) => this.queue.push({ data: Buffer.from(data), left: data.length }),
      ping: (payload) => {
        this.pings += 1;
        this.queue.push({ data: payload, left: 0, ping: true });
      },
    };
    this.pacer = new ReceiverPacer(wire, this.rates, this.stats, {
      askKeyFrame: () => {
        this.keyAsks.push(Date.now());
        this.keyOwed = true;
      },
      layerControl: () => 'layer',
    });
    this.nextAudio = this.nextVideo = Date.now();
  }

  /** Runs `ms` of the call on the fake clock. */
  run(ms: number): void {
    for (let t = 0; t < ms; t += STEP_MS) {
      vi.advanceTimersByTime(STEP_MS);
      const now = Date.now();
      if (now >= this.nextAudio) {
        this.nextAudio += 20;
        const seq = ++this.audioSeq;
        this.media(true, false, () => message('audio', seq, true, 80));
      }
      if (now >= this.nextVideo) {
        this.nextVideo += 66;
        const key = this.keyOwed || now - this.lastKeyAt >= 2000;
        if (key) [this.keyOwed, this.lastKeyAt] = [false, now];
        const seq = ++this.videoSeq;
        this.layers.forEach((size, layer) => {
          const bytes = size * (key ? 3 : 1);
          this.rates.saw(TRACK, layer as Layer, bytes, now, key);
          this.media(false, key, () => message('video', seq, key, bytes), layer as Layer);
        });
      }
      this.serve(now);
    }
  }

  private media(audio: boolean, key: boolean, build: () => Buffer, layer: Layer = 0): void {
    const info = {
      track: audio ? 'alice/mic' : TRACK,
      publisher: 'alice',
      kind: audio ? 'mic' : 'cam',
    } as const;
    this.pacer.sendMedia({ ...info, layer, key, audio, ts: Date.now() }, false, build);
  }

  /** The bottleneck, the delay after it, and the receiver's pongs coming back. */
  private serve(now: number): void {
    let budget = (this.rateBps * STEP_MS) / 1000;
    while (this.queue.length && budget > 0) {
      const head = this.queue[0]!;
      const used = Math.min(budget, head.left);
      head.left -= used;
      budget -= used;
      if (head.left > 0) break;
      this.queue.shift();
      this.inTransit.push({ at: now + this.delayMs, data: head.data, ping: head.ping });
    }
    while (this.inTransit.length && this.inTransit[0]!.at <= now) {
      const { data, ping } = this.inTransit.shift()!;
      // A pong travels back; it is read after the delay back.
      if (ping) setTimeout(() => this.pacer.onPong(data), this.delayMs);
      else if (data[0] === 1 || data[0] === 2 || data[0] === 3)
        this.arrivals.push({
          kind: (['', 'audio', 'video', 'control'] as const)[data[0]] as Arrival['kind'],
          key: data[1] === 1,
          seq: data.readUInt32BE(2),
          sentAt: data.readDoubleBE(6),
          at: now,
        });
    }
  }

  of(kind: Arrival['kind'], from = 0): Arrival[] {
    return this.arrivals.filter((a) => a.kind === kind && a.at >= from);
  }
}

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)]!;

describe("one receiver's delivery (ReceiverPacer)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('once the link is measured, keeps the sound within 300 ms and loses none of it, the video stepped down to fit', () => {
    // 100 kbit/s; the camera's best layer alone wants 360 kbit/s, its smallest 36.
    const sim = new Sim(12_500);
    sim.run(12_000);
    const from = 1_006_000;
    const audio = sim.arrivals.filter((a) => a.kind === 'audio' && a.sentAt >= from);
    expect(audio.length).toBeGreaterThan(290);
    expect(p95(audio.map((a) => a.at - a.sentAt))).toBeLessThan(300);
    const seqs = audio.map((a) => a.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    // The video goes on, within its budget.
    const video = sim.arrivals.filter((a) => a.kind === 'video' && a.sentAt >= from);
    expect(video.length).toBeGreaterThan(60);
    expect(Math.max(...video.map((v) => v.at - v.sentAt))).toBeLessThan(VIDEO_BUDGET_MS + 300);
  });

  it('delivers only pictures a decoder can use: after a gap, a key frame first', () => {
    // One layer only, which the link cannot carry: pictures must be dropped.
    const sim = new Sim(12_500, [3000]);
    sim.run(10_000);
    expect(sim.stats.dropped).toBeGreaterThan(20);
    const video = sim.of('video');
    expect(video.length).toBeGreaterThan(5);
    let last: Arrival | null = null;
    for (const v of video) {
      if (!last || v.seq !== last.seq + 1)
        expect(v, `picture ${v.seq} after ${last?.seq}`).toMatchObject({ key: true });
      last = v;
    }
  });

  it('sends a control message ahead of the media waiting here: it waits only for what is already on the wire', () => {
    const sim = new Sim(12_500, [3000]);
    sim.run(6000);
    // A moment when media waits here (a picture the link has no room for yet).
    for (let i = 0; i < 1000 && sim.pacer.backlog < 2000; i++) sim.run(STEP_MS);
    const at = Date.now();
    const waiting = sim.pacer.backlog;
    const onTheWire = sim.pacer.link.inFlight;
    expect(waiting).toBeGreaterThanOrEqual(2000);
    sim.pacer.sendControl(message('control', 1, false, 100));
    sim.run(2000);
    const took = sim.of('control')[0]!.at - at;
    // The bytes already written, then its own, at 12.5 bytes a millisecond, plus the link's delay.
    expect(took).toBeLessThanOrEqual((onTheWire + 100) / 12.5 + 20 + 2 * STEP_MS);
    expect(took).toBeLessThan((onTheWire + waiting) / 12.5);
  });

  it('asks the publisher for a key frame at most twice a second, however often the track stalls', () => {
    const sim = new Sim(6_000);
    sim.run(10_000);
    expect(sim.keyAsks.length).toBeGreaterThan(0);
    for (let i = 2; i < sim.keyAsks.length; i++)
      expect(sim.keyAsks[i]! - sim.keyAsks[i - 2]!).toBeGreaterThanOrEqual(1000);
  });

  it('pings at most every 50 ms while the link is busy', () => {
    const sim = new Sim(12_500);
    sim.run(2000);
    const before = sim.pings;
    sim.run(5000);
    expect(sim.pings - before).toBeLessThanOrEqual(5000 / 50 + 1);
    expect(sim.pings - before).toBeGreaterThan(20);
  });
});
