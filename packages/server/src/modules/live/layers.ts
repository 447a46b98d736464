import { LAYER_COUNT, pictureSize, type Layer, type LayerState, type TrackKind } from '@vss/protocol';

/** A media message as the receivers' side sees it, worked out once per message. */
export interface MediaInfo {
  /** `<publisher>/<kind>` */
  track: string;
  publisher: string;
  kind: TrackKind;
  layer: Layer;
  /** a key frame (JPEG pictures are all key frames), or audio */
  key: boolean;
  audio: boolean;
  /** the message's timestamp_ms: the picture it belongs to (the same in every layer) */
  ts: number;
}

/** A layer not seen for this long is no longer offered. */
const LAYER_GONE_MS = 2000;

/** Which layers of each video track a session's publishers are sending, and at what rate. */
export class LayerRates {
  /** each video track's last recorded (layer 0) picture size, where its header tells it */
  private readonly baseSizes = new Map<string, { width: number; height: number }>();
  private readonly tracks = new Map<
    string,
    { bytes: number; since: number; bps: number; seen: number; keyBytes: number }[]
  >();

  /**
   * Checks a video picture's size against its track's recorded layer: layer 0 sets the size; a
   * reduced layer (1, 2) larger than it in either dimension is refused, with the reason, since it
   * would be shown live and never recorded. Null when it passes (or a size is not known).
   */
  sizeProblem(stream: string, layer: number, payload: Uint8Array): string | null {
    const size = pictureSize(payload);
    if (!size) return null;
    if (layer === 0) {
      this.baseSizes.set(stream, size);
      return null;
    }
    const base = this.baseSizes.get(stream);
    if (!base || (size.width <= base.width && size.height <= base.height)) return null;
    return `layer ${layer} is ${size.width}x${size.height}, larger than the recorded layer 0 (${base.width}x${base.height}): a reduced layer must not be larger than layer 0`;
  }

  /** Counts a message of `track`'s `layer`. */
  saw(track: string, layer: Layer, bytes: number, now: number, key = false): void {
    let layers = this.tracks.get(track);
    if (!layers) {
      layers = Array.from({ length: LAYER_COUNT }, () => ({
        bytes: 0,
        since: now,
        bps: 0,
        seen: 0,
        keyBytes: 0,
      }));
      this.tracks.set(track, layers);
    }
    const l = layers[layer]!;
    if (now - l.seen > LAYER_GONE_MS) Object.assign(l, { bytes: 0, since: now, bps: 0, keyBytes: 0 });
    l.seen = now;
    l.bytes += bytes;
    if (key) l.keyBytes = bytes;
    // A rate over the last second or so: start a new count each second, keep the last figure.
    if (now - l.since >= 1000) {
      l.bps = (l.bytes * 1000) / (now - l.since);
      l.bytes = 0;
      l.since = now;
    }
  }

  /** The layers of `track` being sent now, best first. */
  offered(track: string, now: number): Layer[] {
    const layers = this.tracks.get(track);
    if (!layers) return [];
    const out: Layer[] = [];
    layers.forEach((l, i) => {
      if (l.seen > 0 && now - l.seen <= LAYER_GONE_MS) out.push(i as Layer);
    });
    return out;
  }

  /** Bytes per second of `track`'s `layer` lately (0 when unknown). */
  bps(track: string, layer: Layer): number {
    return this.tracks.get(track)?.[layer]?.bps ?? 0;
  }

  /** The size of the latest key frame of `track`'s `layer` (0 when none was seen). */
  keyBytes(track: string, layer: Layer): number {
    return this.tracks.get(track)?.[layer]?.keyBytes ?? 0;
  }

  /** Whether `track` has been sent recently at all. */
  has(track: string, now: number): boolean {
    return this.offered(track, now).length > 0;
  }

  forget(publisher: string): void {
    for (const key of this.tracks.keys()) if (key.startsWith(`${publisher}/`)) this.tracks.delete(key);
  }
}

/** Queueing (ms) over which a receiver's layers step down, and under which they may step up. */
const CONGESTED_MS = 150;
const CLEAR_MS = 50;
/** Layers change at most this often, so that one measurement is not acted on twice. */
const HOLD_MS = 1000;
/** A step up is tried after the link has been clear this long; doubled after each failed try. */
const PROBE_FIRST_MS = 2000;
const PROBE_MAX_MS = 8000;
/** A step down this soon after a step up means the step up failed. */
const PROBE_FAIL_MS = 3000;
/**
 * A link never measured full (LinkEstimate.limitedBps) that queued this recently: a step up is
 * tried there only when its best short burst has room for the better layer.
 */
const FULL_MEMORY_MS = 10_000;
/**
 * Of a link's capacity (or best short burst), the share a step up may plan to use: trying a layer
 * that does not fit sends a key frame, the largest picture, into a full link, and the receiver's
 * audio waits behind it.
 */
const HEADROOM = 0.85;
/**
 * A link measured full steps up only to a layer whose key frame crosses it in this long: a
 * WebSocket message cannot be interleaved with others, so the receiver's audio waits behind the
 * whole key frame the switch needs (9 KB of a 640x360 picture is 290 ms at 250 kbit/s); half of
 * the 300 ms audio may wait at most leaves room for what is in flight with it.
 */
const KEY_FRAME_MAX_MS = 150;
/**
 * A link's capacity, measured when it was last full, is taken to grow by this factor a second
 * since (8%: as WebRTC's congestion control raises its estimate): a link that got faster is
 * stepped up within seconds, one that did not is measured full again by the layer that overloads
 * it. Its short bursts are no guide: a link's burst allowance (a token bucket) lets kilobytes
 * through at once, then only its rate.
 */
const CAPACITY_GROWTH = 1.08;
/**
 * A worse layer with a picture this many pictures (and at least GONE_MS) past the current layer's
 * last means the current layer stopped. Not one or two: a publisher's layers of one picture may
 * arrive in any order, and an encoder short of bitrate drops a picture now and then.
 */
const GONE_PICTURES = 4;
const GONE_MS = 300;
/** A key frame of a layer is asked for again if the switch has not happened after this long. */
const ASK_AGAIN_MS = 1000;

interface TrackState {
  publisher: string;
  kind: TrackKind;
  /** the layer forwarded now; null until its first key frame */
  current: Layer | null;
  target: Layer;
  /** nothing of this track is forwarded until a key frame of `target` */
  needKey: boolean;
  told: { layer: Layer; state: LayerState };
  /** the picture (timestamp_ms) of the last frame forwarded, and the usual time between two */
  currentTs: number;
  intervalMs: number;
  changedAt: number;
  upAt: number;
  clearSince: number;
  probeMs: number;
  askedAt: number;
}

/** What a receiver's chooser needs from around it. */
export interface ChooserHooks {
  /** ask the publisher for a key frame on a layer (rate limited where the publisher is) */
  askKeyFrame(publisher: string, kind: TrackKind, layer: Layer): void;
  /**
   * tell this receiver what it gets of a publisher's track now; `linkShort`: its link, measured
   * when it was last full, carries less than that track's full layer
   */
  tell(publisher: string, kind: TrackKind, layer: Layer, state: LayerState, linkShort: boolean): void;
  /** counts, for the metrics */
  switched(): void;
  skipped(): void;
}

/**
 * For one receiver: which layer of each publisher's video track it gets. It starts at the best
 * layer, steps down one layer when its link queues, and tries one step up after the link has been
 * clear for a while (backing off when the try fails). A change takes effect at a key frame of the
 * new layer, which it asks the publisher for; until then the old layer goes on. When the receiver's
 * queued video grew too old (`stall`), nothing of that track goes until a key frame of the target
 * layer, so that no frame reaches a decoder without its references.
 */
export class LayerChooser {
  private readonly tracks = new Map<string, TrackState>();
  private congestedAt = -Infinity;
  /** what the link carried when it was last full (bytes per second), and when that was */
  private capacityBps = 0;
  private capacityAt = 0;

  constructor(
    private readonly rates: LayerRates,
    private readonly hooks: ChooserHooks,
  ) {}

  /** Whether to forward this video message to the receiver. */
  admit(m: MediaInfo, now: number): boolean {
    let st = this.tracks.get(m.track);
    if (!st) {
      st = {
        publisher: m.publisher,
        kind: m.kind,
        current: null,
        target: this.rates.offered(m.track, now)[0] ?? m.layer,
        needKey: true,
        told: { layer: 0, state: 'full' },
        currentTs: m.ts,
        intervalMs: 66,
        changedAt: now,
        upAt: 0,
        clearSince: now,
        probeMs: PROBE_FIRST_MS,
        askedAt: 0,
      };
      this.tracks.set(m.track, st);
    }
    // A worse layer has pictures the current one no longer has: the publisher stopped it (its
    // uplink stepped down). Go to the layer that goes on, at its next key frame (asked for below).
    if (
      !st.needKey &&
      st.current !== null &&
      m.layer > st.current &&
      st.target <= st.current &&
      m.ts - st.currentTs > Math.max(GONE_MS, GONE_PICTURES * st.intervalMs)
    ) {
      st.target = m.layer;
      st.changedAt = now;
    }
    if (m.layer === st.target && m.key) {
      if (st.current !== m.layer || st.needKey) this.hooks.switched();
      st.current = m.layer;
      st.needKey = false;
      this.forwarded(st, m.ts);
      this.report(st);
      return true;
    }
    if (!st.needKey && m.layer === st.current) {
      this.forwarded(st, m.ts);
      return true;
    }
    if (st.target !== st.current || st.needKey) this.ask(st, now);
    return false;
  }

  /** The receiver's queued video of `track` was dropped: wait for a key frame. */
  stall(track: string, now: number): void {
    const st = this.tracks.get(track);
    if (!st) return;
    this.hooks.skipped();
    st.needKey = true;
    this.stepDown(st, now);
    this.ask(st, now);
    this.report(st);
  }

  /**
   * Re-weighs every track against the link's queueing (ms), after each measurement; `link` is
   * the link's measured rates and what this receiver is sent now (bytes per second);
   * `overloaded`: the receiver is sent more than its link carries when full.
   */
  update(
    queueMs: number,
    now: number,
    link: {
      rateBps: number;
      usedBps: number;
      limitedBps(now: number): number;
    },
    overloaded = false,
  ): void {
    const measured = link.limitedBps(now);
    if (measured > 0) {
      this.capacityBps = measured;
      this.capacityAt = now;
    }
    // What the link carried when it was last full, allowed to grow CAPACITY_GROWTH a second since
    // (the link may have got faster; a layer that then does not fit is measured again).
    const capacity = this.capacityBps * CAPACITY_GROWTH ** ((now - this.capacityAt) / 1000);
    const congested = queueMs > CONGESTED_MS;
    if (congested || overloaded) this.congestedAt = now;
    for (const [track, st] of this.tracks) {
      const offered = this.rates.offered(track, now);
      if (offered.length === 0) continue;
      // A layer no longer sent (the publisher stepped down) is replaced by the nearest one sent.
      if (!offered.includes(st.target)) st.target = offered.find((l) => l > st.target) ?? offered.at(-1)!;
      // Overload is measured over a second: the rate sent after a step down shows a second later.
      if (congested || (overloaded && now - st.changedAt >= 2 * HOLD_MS)) {
        st.clearSince = now;
        if (now - st.changedAt >= HOLD_MS) this.stepDown(st, now);
      } else if (queueMs < CLEAR_MS && !overloaded) {
        const better = offered.filter((l) => l < st.target).at(-1);
        const extra =
          better === undefined ? 0 : this.rates.bps(track, better) - this.rates.bps(track, st.target);
        const fits =
          capacity > 0
            ? link.usedBps + extra <= capacity * HEADROOM &&
              this.rates.keyBytes(track, better ?? st.target) * 1000 <= capacity * KEY_FRAME_MAX_MS
            : now - this.congestedAt > FULL_MEMORY_MS || link.usedBps + extra <= link.rateBps * HEADROOM;
        if (
          better !== undefined &&
          fits &&
          now - st.clearSince >= st.probeMs &&
          now - st.changedAt >= HOLD_MS
        ) {
          st.target = better;
          st.changedAt = now;
          st.upAt = now;
          st.clearSince = now;
          this.ask(st, now);
        }
      } else st.clearSince = now;
      if (st.target !== st.current && now - st.askedAt >= ASK_AGAIN_MS) this.ask(st, now);
    }
  }

  /** The layer each track is forwarded at now (for the metrics): a layer, or null when stalled. */
  *layers(): Iterable<Layer | null> {
    for (const st of this.tracks.values()) yield st.needKey ? null : st.current;
  }

  /** The layer this receiver gets of `track` now (0 when it gets none yet). */
  layerOf(track: string): Layer {
    const st = this.tracks.get(track);
    return st ? (st.current ?? st.target) : 0;
  }

  /** A publisher left or stopped a track: forget what was chosen for it. */
  forget(track: string): void {
    this.tracks.delete(track);
  }

  private forwarded(st: TrackState, ts: number): void {
    const gap = ts - st.currentTs;
    if (gap > 0 && gap < 1000) st.intervalMs += (gap - st.intervalMs) / 8;
    st.currentTs = ts;
  }

  private stepDown(st: TrackState, now: number): void {
    const offered = this.rates.offered(`${st.publisher}/${st.kind}`, now);
    const worse = offered.find((l) => l > (st.current ?? st.target));
    if (worse === undefined || worse <= st.target) return;
    if (now - st.upAt < PROBE_FAIL_MS) st.probeMs = Math.min(PROBE_MAX_MS, st.probeMs * 2);
    else st.probeMs = PROBE_FIRST_MS;
    st.target = worse;
    st.changedAt = now;
    st.clearSince = now;
    this.ask(st, now);
  }

  private ask(st: TrackState, now: number): void {
    if (now - st.askedAt < ASK_AGAIN_MS / 2) return;
    st.askedAt = now;
    this.hooks.askKeyFrame(st.publisher, st.kind, st.target);
  }

  private report(st: TrackState): void {
    const layer = st.needKey ? st.target : (st.current ?? st.target);
    const state: LayerState = st.needKey ? 'stalled' : layer === 0 ? 'full' : 'reduced';
    if (st.told.layer === layer && st.told.state === state) return;
    st.told = { layer, state };
    // Evidence that the link is short: what it carried when full is less than the full layer.
    const full = this.rates.bps(`${st.publisher}/${st.kind}`, 0);
    const linkShort = this.capacityBps > 0 && full > 0 && this.capacityBps < full;
    this.hooks.tell(st.publisher, st.kind, layer, state, linkShort);
  }
}
