/**
 * Why a receiver gets less than the full layer (src/modules/live/layers.ts), as the LayerChooser
 * tells its pacer: a link measured, when it was last full, to carry less than the track's full
 * layer is called short, whatever else is going on; a link that carried more is not. The server
 * says "the server is busy" only when the link is not known to be short, so that a receiver on a
 * slow link on a busy machine is still told its connection is slow. Unit specification: no
 * server, no sockets, no timers.
 */
import type { Layer, LayerState, TrackKind } from '@vss/protocol';
import { describe, expect, it } from 'vitest';
import { LayerChooser, LayerRates, type MediaInfo } from '../src/modules/live/layers.js';

const TRACK = 'alice/cam';

/** Alice's's three layers from `from` to `to`: 75, 19 and 6 KB/s, 15 pictures a second each. */
function sending(rates: LayerRates, from: number, to: number): void {
  const perPicture = [5000, 1250, 400];
  for (let t = from; t < to; t += 1000 / 15)
    for (const layer of [0, 1, 2] as Layer[]) rates.saw(TRACK, layer, perPicture[layer]!, t, false);
}

function chooser(rates: LayerRates) {
  const told: Array<{ layer: Layer; state: LayerState; linkShort: boolean }> = [];
  const c = new LayerChooser(rates, {
    askKeyFrame: () => {},
    tell: (_p: string, _k: TrackKind, layer: Layer, state: LayerState, linkShort: boolean) =>
      told.push({ layer, state, linkShort }),
    switched: () => {},
    skipped: () => {},
  });
  return { c, told };
}

const frame = (layer: Layer, ts: number, key = true): MediaInfo => ({
  track: TRACK,
  publisher: 'alice',
  kind: 'cam',
  layer,
  key,
  audio: false,
  ts,
});

/** Congests the chooser's link at `now`, the link measured to carry `capacityBps` when full. */
function congest(c: LayerChooser, now: number, capacityBps: number): void {
  c.update(400, now, { rateBps: capacityBps, usedBps: capacityBps, limitedBps: () => capacityBps });
}

describe('the cause a reduced layer is given', () => {
  it('is a short link when the link carried less than the full layer when it was full', () => {
    const rates = new LayerRates();
    sending(rates, 0, 3200);
    const { c, told } = chooser(rates);
    expect(c.admit(frame(0, 2000), 2000)).toBe(true);
    congest(c, 3100, 31_000); // 250 kbit/s, under the full layer's 75 KB/s
    expect(c.admit(frame(1, 3200), 3200)).toBe(true);
    expect(told.at(-1)).toEqual({ layer: 1, state: 'reduced', linkShort: true });
  });

  it('is not known to be the link when the link carried more than the full layer', () => {
    const rates = new LayerRates();
    sending(rates, 0, 3200);
    const { c, told } = chooser(rates);
    expect(c.admit(frame(0, 2000), 2000)).toBe(true);
    congest(c, 3100, 1_000_000); // a queue on a fast link: a busy server makes one too
    expect(c.admit(frame(1, 3200), 3200)).toBe(true);
    expect(told.at(-1)).toEqual({ layer: 1, state: 'reduced', linkShort: false });
  });
});
