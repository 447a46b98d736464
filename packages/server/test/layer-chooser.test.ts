// Unit specification of the receiver's layer choice (LayerChooser), against a simulated publisher
// and link on a clock of its own: no server, no socket, no root. What a receiver would notice: it
// never gets a frame its decoder cannot use (a delta frame of a layer before that layer's key
// frame), it steps down when its link queues and back up when the link is clear, it backs off from
// a step up that failed, and on a link measured full it steps up only where the switch's key frame
// does not hold its sound up.
import type { Layer, LayerState } from '@vss/protocol';
import { describe, expect, it } from 'vitest';
import { LayerChooser, LayerRates } from '../src/modules/live/layers.js';

const TRACK = 'alice/cam';
/** Bytes of one picture of each layer; a key frame is three times that. */
const SIZE: Record<Layer, number> = { 0: 4000, 1: 1200, 2: 400 };
const FRAME_MS = 66;

interface Sent {
  at: number;
  layer: Layer;
  key: boolean;
}

interface Link {
  rateBps: number;
  /** what the link carried when last measured full; 0: never */
  fullBps: number;
}

/** A publisher sending `layers` at 15 fps to one receiver whose chooser decides what it gets. */
class Sim {
  /** the clock starts where a server's would be, far from 0 */
  now = 1_000_000;
  private ts = 0;
  layers: Layer[] = [0, 1, 2];
  readonly rates = new LayerRates();
  readonly forwarded: Sent[] = [];
  readonly asked: { at: number; layer: Layer }[] = [];
  readonly told: { at: number; layer: Layer; state: LayerState }[] = [];
  /** key frames the publisher owes, by layer, and when it sends them (it answers after 200 ms) */
  private readonly keyDue = new Map<Layer, number>();
  readonly chooser = new LayerChooser(this.rates, {
    askKeyFrame: (_p, _k, layer) => {
      this.asked.push({ at: this.now, layer });
      if (!this.keyDue.has(layer)) this.keyDue.set(layer, this.now + 200);
    },
    tell: (_p, _k, layer, state) => this.told.push({ at: this.now, layer, state }),
    switched: () => undefined,
    skipped: () => undefined,
  });

  constructor(startWithKeys = true) {
    if (startWithKeys) for (const l of this.layers) this.keyDue.set(l, this.now);
  }

  /** Runs `ms` of the call: a picture of every layer each 66 ms, the link weighed every 100 ms. */
  run(ms: number, queueMs = 0, link: Link = { rateBps: 1_000_000, fullBps: 0 }): void {
    const end = this.now + ms;
    let nextUpdate = this.now;
    for (; this.now < end; this.now += FRAME_MS) {
      this.ts += FRAME_MS;
      for (const layer of this.layers) {
        const due = this.keyDue.get(layer);
        const key = due !== undefined && due <= this.now;
        if (key) this.keyDue.delete(layer);
        this.rates.saw(TRACK, layer, SIZE[layer] * (key ? 3 : 1), this.now, key);
        const info = { track: TRACK, publisher: 'alice', kind: 'cam' as const, layer, key, audio: false };
        if (this.chooser.admit({ ...info, ts: this.ts }, this.now))
          this.forwarded.push({ at: this.now, layer, key });
      }
      if (this.now >= nextUpdate) {
        nextUpdate = this.now + 100;
        this.chooser.update(queueMs, this.now, {
          rateBps: link.rateBps,
          usedBps: this.usedBps(),
          limitedBps: () => link.fullBps,
        });
      }
    }
  }

  /** Bytes per second forwarded over the last second. */
  usedBps(): number {
    return this.forwarded
      .filter((f) => f.at > this.now - 1000)
      .reduce((sum, f) => sum + SIZE[f.layer] * (f.key ? 3 : 1), 0);
  }

  /** The layers forwarded from `from` on, in order, with repeats folded. */
  layersSince(from: number): Layer[] {
    const out: Layer[] = [];
    for (const f of this.forwarded) if (f.at >= from && out.at(-1) !== f.layer) out.push(f.layer);
    return out;
  }

  /** Every forwarded frame is decodable: each run of one layer begins with that layer's key frame. */
  expectDecodable(): void {
    let layer: Layer | null = null;
    for (const f of this.forwarded) {
      if (f.layer !== layer)
        expect(f, `the first frame of layer ${f.layer} at ${f.at} ms`).toMatchObject({ key: true });
      layer = f.layer;
    }
  }
}

describe('the layer a receiver gets (LayerChooser)', () => {
  it('forwards nothing of a track before a key frame of its best layer, then that layer alone', () => {
    const sim = new Sim(false);
    sim.run(150);
    expect(sim.forwarded).toEqual([]);
    expect(sim.asked.map((a) => a.layer)).toContain(0);
    sim.run(1000);
    expect(sim.forwarded[0]).toMatchObject({ layer: 0, key: true });
    expect(sim.layersSince(-Infinity)).toEqual([0]);
    sim.expectDecodable();
  });

  it('steps down one layer when its link queues, at the worse layer’s key frame, the better layer going on until then', () => {
    const sim = new Sim();
    sim.run(3000);
    expect(sim.layersSince(-Infinity)).toEqual([0]);
    const from = sim.now;
    sim.run(1200, 300);
    // Asked for layer 1's key frame; layer 0 went on until it came (200 ms later), then layer 1.
    expect(sim.asked.filter((a) => a.at >= from).map((a) => a.layer)).toContain(1);
    expect(sim.layersSince(from)).toEqual([0, 1]);
    const switchedAt = sim.forwarded.find((f) => f.at >= from && f.layer === 1)!.at;
    expect(switchedAt - from).toBeLessThan(500);
    expect(sim.told.at(-1)).toMatchObject({ layer: 1, state: 'reduced' });
    // Still queued a second later: one more step, never two at once.
    sim.run(1200, 300);
    expect(sim.layersSince(from)).toEqual([0, 1, 2]);
    sim.expectDecodable();
  });

  it('steps back up once the link has been clear for 2 s, never forwarding the better layer before its key frame', () => {
    const sim = new Sim();
    sim.run(2000);
    sim.run(800, 300);
    expect(sim.layersSince(-Infinity)).toEqual([0, 1]);
    // Clear again: no step up within the first 2 s, one after.
    const clearFrom = sim.now;
    sim.run(1800);
    expect(sim.layersSince(clearFrom)).toEqual([1]);
    sim.run(11_000);
    expect(sim.layersSince(clearFrom)).toEqual([1, 0]);
    expect(sim.told.at(-1)).toMatchObject({ layer: 0, state: 'full' });
    sim.expectDecodable();
  });

  it('waits twice as long before trying again after a step up that failed', () => {
    const sim = new Sim();
    sim.run(2000);
    sim.run(800, 300); // down to layer 1
    const clearFrom = sim.now;
    sim.run(2500); // clear: layer 0 is tried after 2 s
    expect(sim.layersSince(clearFrom)).toEqual([1, 0]);
    // The link queues again within 3 s of the step up: the try failed, back to layer 1.
    sim.run(800, 300);
    const downAt = sim.now;
    expect(sim.layersSince(clearFrom)).toEqual([1, 0, 1]);
    // Clear again: a first try would come after 2 s; after a failed one it waits 4 s.
    sim.run(3000);
    expect(sim.layersSince(downAt)).toEqual([1]);
    sim.run(2000);
    expect(sim.layersSince(downAt)).toEqual([1, 0]);
    sim.expectDecodable();
  });

  it('after a stall (queued video dropped) forwards nothing until a key frame, and says it is stalled', () => {
    const sim = new Sim();
    sim.run(2000);
    const at = sim.now;
    sim.chooser.stall(TRACK, sim.now);
    expect(sim.told.at(-1)).toMatchObject({ state: 'stalled' });
    sim.run(1000);
    const after = sim.forwarded.filter((f) => f.at >= at);
    expect(after[0]).toMatchObject({ key: true });
    expect(sim.told.at(-1)!.state).not.toBe('stalled');
    sim.expectDecodable();
  });

  it('moves to the layer that goes on when the publisher stops sending the current one', () => {
    const sim = new Sim();
    sim.run(2000);
    const at = sim.now;
    sim.layers = [1, 2]; // the publisher's uplink stepped down
    sim.run(1500);
    expect(sim.layersSince(at)).toEqual([1]);
    sim.expectDecodable();
  });

  it('on a link measured full, steps up only to a layer whose key frame crosses it within 150 ms', () => {
    // Measured full at 40 KB/s (320 kbit/s): layer 0's 12 KB key frame would take 300 ms.
    const narrow = new Sim();
    narrow.run(2000);
    narrow.run(800, 300, { rateBps: 40_000, fullBps: 40_000 });
    expect(narrow.layersSince(-Infinity)).toEqual([0, 1]);
    narrow.run(20_000, 0, { rateBps: 40_000, fullBps: 40_000 });
    expect(narrow.layersSince(-Infinity)).toEqual([0, 1]);
    // Measured full at 200 KB/s: the key frame takes 60 ms, and layer 0 fits: it steps up.
    const wide = new Sim();
    wide.run(2000);
    wide.run(800, 300, { rateBps: 200_000, fullBps: 200_000 });
    wide.run(20_000, 0, { rateBps: 200_000, fullBps: 200_000 });
    expect(wide.layersSince(-Infinity)).toEqual([0, 1, 0]);
    wide.expectDecodable();
  });
});
