// The page's uplink (src/media/uplink.ts, over the shared rule in @vss/protocol) against a
// simulated link, in fake time: a page that sends what its step and its microphone send, acks on
// every layer-0 picture and on a sound chunk now and then, a link that carries `kbit` and queues
// the rest in order, and a server that answers each acked publish once it has read it (and,
// during a pause of its event loop, nothing until the pause ends). Seconds, no browser, no root:
// the network tests show the same page on a real shaped link.
import { describe, expect, it } from 'vitest';
import { START_STEP, STEPS, UPLINK_TICK_MS, Uplink } from '../src/engine/uplink.js';

const TICK_MS = 5;
const BASE_RTT_MS = 4;
/** The camera profile's layer bitrates (bit/s) and frame rate, as video-publisher.ts has them. */
const LAYER_BPS = [600_000, 150_000, 50_000];
const FPS = 15;
/** An Opus chunk every 20 ms: 32 kbit/s and about 40 bytes of framing each. */
const AUDIO_BYTES = 120;

interface Sim {
  /** what the link carries, kbit/s, at second s */
  kbit: (s: number) => number;
  /** the server reads nothing while this is true (a busy event loop) */
  paused?: (s: number) => boolean;
  /** the page's own device is busy (device-busy.ts says so) while this is true */
  busy?: (s: number) => boolean;
  /** what the page's busy main thread adds to when it reads each ack (ms), at second s */
  lateReads?: (s: number) => number;
}

/** Runs a page's uplink for `seconds`; returns its steps over time and the delays its sound saw. */
function run(seconds: number, sim: Sim) {
  const socket = { bufferedAmount: 0, bytesSent: 0 };
  const uplink = new Uplink(
    socket,
    () => undefined,
    0,
    (t) => sim.busy?.(t / 1000) ?? false,
  );
  /** sends not yet read by the server, in order: the bytes sent up to each, and its ack */
  const queue: { upTo: number; at: number; audio: boolean; ack?: (ok?: boolean, at?: number) => void }[] = [];
  const acks: { due: number; fire: () => void }[] = [];
  let read = 0;
  const steps: { s: number; step: number }[] = [{ s: 0, step: uplink.level }];
  const audioDelays: { s: number; ms: number }[] = [];
  let credit = 0;
  let sinceKey = Infinity;
  const send = (bytes: number, t: number, audio: boolean, acked: boolean) => {
    socket.bytesSent += bytes;
    const entry: (typeof queue)[number] = { upTo: socket.bytesSent, at: t, audio };
    if (acked) entry.ack = uplink.sent(t);
    queue.push(entry);
  };
  for (let t = 0; t < seconds * 1000; t += TICK_MS) {
    const s = t / 1000;
    // The microphone: a chunk every 20 ms, a probe when none went out for a while.
    if (t % 20 === 0) send(AUDIO_BYTES, t, true, uplink.probeDue(t));
    // The camera: the step's share of the pictures, each layer at its share of the bitrate, a key
    // frame (four pictures' worth) every 2 s.
    if (t % Math.round(1000 / FPS) < TICK_MS) {
      const step = uplink.current;
      credit = Math.min(1, credit) + step.fps;
      if (credit >= 1) {
        credit -= 1;
        const key = sinceKey >= 2000;
        if (key) sinceKey = 0;
        step.bitrate.forEach((share, layer) => {
          if (!share || !uplink.videoMay(layer)) return;
          const bytes = (LAYER_BPS[layer]! * share) / 8 / (FPS * step.fps);
          send(Math.round(key ? bytes * 4 : bytes), t, false, layer === 0);
        });
      }
    }
    sinceKey += TICK_MS;
    // The link and the server.
    if (!sim.paused?.(s)) {
      read = Math.min(socket.bytesSent, read + (sim.kbit(s) * 1000 * TICK_MS) / 8000);
      while (queue.length && queue[0]!.upTo <= read) {
        const q = queue.shift()!;
        if (q.audio) audioDelays.push({ s, ms: t - q.at });
        const ack = q.ack;
        const due = t + BASE_RTT_MS + (sim.lateReads?.(s) ?? 0);
        if (ack) acks.push({ due, fire: () => ack(true, due) });
      }
    }
    for (const a of acks.filter((a) => a.due <= t)) a.fire();
    acks.splice(0, acks.length, ...acks.filter((a) => a.due > t));
    if (t % UPLINK_TICK_MS === 0) uplink.tick(t);
    if (uplink.level !== steps.at(-1)!.step) steps.push({ s, step: uplink.level });
  }
  const at = (s: number) => [...steps].reverse().find((x) => x.s <= s)!.step;
  const worst = (from: number, to: number) =>
    Math.max(0, ...audioDelays.filter((d) => d.s >= from && d.s < to).map((d) => d.ms));
  return { steps, at, worst };
}

describe("the page's uplink", () => {
  it('never stops the recorded layer, and keeps it at a picture a second or more', () => {
    for (const step of STEPS) {
      expect(step.bitrate[0]).toBeGreaterThan(0);
      // The slowest profile (screen) runs at 8 fps.
      expect(8 * step.fps).toBeGreaterThanOrEqual(1);
    }
  });

  it('starts low, and on a fast link is at full rate within 12 s without ever stepping down', () => {
    const r = run(20, { kbit: () => 10_000 });
    expect(r.steps[0]!.step).toBe(START_STEP);
    expect(START_STEP).toBeGreaterThan(0);
    expect(
      r.steps.map((x) => x.step),
      JSON.stringify(r.steps),
    ).toEqual([4, 3, 2, 1, 0]);
    expect(r.steps.at(-1)!.s).toBeLessThanOrEqual(12);
    expect(r.worst(0, 20)).toBeLessThan(50);
  });

  it('behind 300 kbit/s from its first second, its sound never waits 500 ms', () => {
    const r = run(30, { kbit: () => 300 });
    expect(r.worst(0, 30), JSON.stringify(r.steps)).toBeLessThan(500);
    // It sends what fits: it does not sit at the floor either.
    expect(r.at(30)).toBeLessThanOrEqual(START_STEP);
  });

  it('a busy server that reads nothing for a second in every ten is no full link: no step down', () => {
    const r = run(60, { kbit: () => 10_000, paused: (s) => s >= 15 && s % 10 < 1 });
    expect(r.at(14.9), JSON.stringify(r.steps)).toBe(0);
    expect(
      r.steps.filter((x) => x.s >= 15),
      JSON.stringify(r.steps),
    ).toEqual([]);
  });

  it('on a busy device that reads its acks 300 ms late, the fast link is not called full: no step down', () => {
    const busy = (s: number) => s >= 15;
    const r = run(40, { kbit: () => 10_000, busy, lateReads: (s) => (busy(s) ? 300 : 0) });
    expect(r.at(14.9)).toBe(0);
    expect(
      r.steps.filter((x) => x.s >= 15),
      JSON.stringify(r.steps),
    ).toEqual([]);
  });

  it('a link that slows to 300 kbit/s: steps down until its sound waits under 500 ms again within 5 s', () => {
    const r = run(40, { kbit: (s) => (s < 15 ? 10_000 : 300) });
    expect(r.at(14.9)).toBe(0);
    expect(r.at(40)).toBeGreaterThanOrEqual(2);
    expect(r.worst(20, 40), JSON.stringify(r.steps)).toBeLessThan(500);
  });
});
