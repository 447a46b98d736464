import type { Layer, LayerState, TrackKind } from '@vss/protocol';
import { LayerChooser, type LayerRates, type MediaInfo } from './layers.js';
import { LinkEstimate, PROBE_IDLE_MS, PROBE_MS } from './link.js';

/** A receiver's video that would wait longer than this is dropped, and the track waits for a key frame. */
export const VIDEO_BUDGET_MS = 250;
/** Audio the link could not carry for this long is stale: hearing it now would only add delay. */
const AUDIO_STALE_MS = 2000;
/** Sent more than this share of what the link carries when full, a receiver's layers step down. */
const OVERLOAD = 0.9;

/** The socket under a pacer. */
export interface Wire {
  readonly open: boolean;
  /**
   * false while the socket is not read (its publisher waits for storage, see
   * pauseWhileStorageBehind): its pongs cannot be read either, so the link cannot be measured
   */
  readonly reading: boolean;
  write(data: Buffer | string, text: boolean): void;
  ping(payload: Buffer): void;
}

/** What a pacer counts, for the hub's statistics and the metrics. */
export interface PacerStats {
  /** media messages not delivered: stale audio, and video skipped to a key frame */
  dropped: number;
  layerSwitches: number;
  keyframeSkips: number;
}

interface Item {
  data: Buffer | string;
  text: boolean;
  bytes: number;
  at: number;
  track?: string;
  key?: boolean;
}

/** What the pacer asks of the session around it. */
export interface PacerHooks {
  askKeyFrame(publisher: string, kind: TrackKind, layer: Layer): void;
  /** a `layer` control for this receiver, as its wire form (`linkShort`: see ChooserHooks.tell) */
  layerControl(
    publisher: string,
    kind: TrackKind,
    layer: Layer,
    state: LayerState,
    linkShort: boolean,
  ): string;
}

/**
 * One receiver's delivery (docs/protocol.md §6): a queue per lane, control and chat before audio
 * before video, written out only while what is in flight fits the link (LinkEstimate), and the
 * layer of each publisher's video chosen for this receiver (LayerChooser). A fast receiver never
 * queues here: what arrives is written at once.
 */
export class ReceiverPacer {
  readonly link = new LinkEstimate();
  readonly chooser: LayerChooser;
  private readonly control: Item[] = [];
  private readonly audio: Item[] = [];
  private readonly video: Item[] = [];
  private queuedBytes = 0;
  private probeTimer: NodeJS.Timeout | null = null;
  private writtenSinceProbe = false;
  /** media admitted for this receiver, per second (its demand on the link) */
  private offeredBytes = 0;
  private offeredSince = Date.now();
  private offeredBps = 0;

  constructor(
    private readonly wire: Wire,
    rates: LayerRates,
    private readonly stats: PacerStats,
    private readonly hooks: PacerHooks,
  ) {
    this.chooser = new LayerChooser(rates, {
      askKeyFrame: (p, k, l) => hooks.askKeyFrame(p, k, l),
      tell: (p, k, l, s, short) => this.sendControl(hooks.layerControl(p, k, l, s, short)),
      switched: () => (stats.layerSwitches += 1),
      skipped: () => (stats.keyframeSkips += 1),
    });
  }

  /** Bytes waiting here, not yet written (control and audio: what is never dropped for video). */
  get backlog(): number {
    return this.queuedBytes;
  }

  /** A control or chat message (or a replay's message): never dropped, first in line. */
  sendControl(data: Buffer | string, text = true): void {
    const now = Date.now();
    if (this.queuedBytes === 0 && this.hasRoom(0, now)) return this.write(data, text, now);
    this.push(this.control, { data, text, bytes: data.length, at: now });
  }

  /** A media message; `build` makes its wire form, called only when it is to be sent. */
  sendMedia(m: MediaInfo, text: boolean, build: () => Buffer): void {
    const now = Date.now();
    if (!m.audio && !this.chooser.admit(m, now)) return;
    const data = build();
    this.offeredBytes += data.length;
    // The fast path: nothing waiting and room in flight, as for every receiver on a fast link (no
    // queue entry is made: this runs once per receiver for every frame).
    if (this.queuedBytes === 0 && this.hasRoom(m.audio ? 0 : data.length, now))
      return this.write(data, text, now);
    const item: Item = {
      data,
      text,
      bytes: data.length,
      at: now,
      ...(m.audio ? {} : { track: m.track, key: m.key }),
    };
    // A key frame makes what waits of its track before it useless: the receiver decodes from it.
    if (m.key && !m.audio) this.dropVideo(m.track);
    this.push(m.audio ? this.audio : this.video, item);
  }

  /** Drops the queued video of `track` that stands before index `before` (all of it by default). */
  private dropVideo(track: string, before = this.video.length): void {
    for (let i = before - 1; i >= 0; i--) {
      if (this.video[i]!.track !== track) continue;
      this.queuedBytes -= this.video[i]!.bytes;
      this.video.splice(i, 1);
      this.stats.dropped += 1;
    }
  }

  /** A pong: what the link took in. Writes what now fits. */
  onPong(payload: Buffer): void {
    const now = Date.now();
    if (!this.link.onPong(payload, now)) return;
    this.chooser.update(
      Math.max(this.link.queueMs, this.oldestVideoMs(now)),
      now,
      this.link,
      this.overloaded(now),
    );
    this.flush();
  }

  /**
   * Whether this receiver is sent more than its link was measured to carry while full
   * (LinkEstimate.limitedBps). The pacer keeps the link's own queue short, so a layer that does
   * not fit shows as video waiting and skipped here more than as queueing on the link.
   */
  private overloaded(now: number): boolean {
    if (now - this.offeredSince >= 1000) {
      this.offeredBps = (this.offeredBytes * 1000) / (now - this.offeredSince);
      this.offeredBytes = 0;
      this.offeredSince = now;
    }
    const capacity = this.link.limitedBps(now);
    return capacity > 0 && this.offeredBps > capacity * OVERLOAD;
  }

  /** Stops the probe timer (the socket closed). */
  stop(): void {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  /**
   * Writes every control message still waiting, whatever is in flight: the connection is about
   * to close, and what it was told last (`reconnect`, `replaced`, an error) must reach it before
   * the close frame. Media still waiting is dropped.
   */
  flushControl(): void {
    for (const item of this.control.splice(0)) {
      this.queuedBytes -= item.bytes;
      this.write(item.data, item.text, Date.now());
    }
  }

  private push(lane: Item[], item: Item): void {
    lane.push(item);
    this.queuedBytes += item.bytes;
    // Video that went stale while the link was full is dropped now, not when the link has room:
    // what waits here stays within the video budget however long the receiver stalls.
    if (item.track) this.pruneVideo(item.at);
    this.flush();
  }

  private flush(): void {
    const now = Date.now();
    while (this.wire.open && this.hasRoom(0, now)) {
      let item = this.control.shift() ?? this.freshAudio(now);
      if (!item) {
        this.pruneVideo(now);
        if (this.video.length === 0 || !this.hasRoom(this.video[0]!.bytes, now)) break;
        item = this.video.shift()!;
      }
      this.queuedBytes -= item.bytes;
      this.write(item.data, item.text, now);
    }
    // Something waits for room: ask at once what the receiver has taken in, rather than up to
    // PROBE_MS later, so that it goes as soon as it fits.
    if (this.queuedBytes > 0) this.probeNow();
  }

  /**
   * Whether what is in flight leaves room for more. A video message of `video` bytes needs room
   * for all of it: audio written after it waits behind every byte of it. One larger than the window
   * (a key frame on a slow link) goes once what is in flight is down to a quarter of the window,
   * not nothing: audio written meanwhile keeps some in flight all the time. While the socket is
   * not read, its pongs wait unread and would hold its deliveries for as long as storage is behind: it is written to as if the link kept up (what it then takes in
   * is measured once reading resumes). A fast link (LinkEstimate.fast) always has room.
   */
  private hasRoom(video: number, now: number): boolean {
    const inFlight = this.link.inFlight;
    const window = this.link.window;
    const room = video === 0 ? inFlight < window : inFlight + video <= window || inFlight <= window / 4;
    return room || !this.wire.reading || this.link.fast(now);
  }

  private write(data: Buffer | string, text: boolean, now: number): void {
    if (!this.wire.open) return;
    this.wire.write(data, text);
    this.link.sent += data.length;
    this.writtenSinceProbe = true;
    this.scheduleProbe(now);
  }

  /**
   * Pings after what was written, at most every PROBE_MS: at once when the last probe is old
   * enough, else when it will be, so that the last bytes written are always covered by a probe.
   * When what is in flight fills the window, at once: what waits goes as soon as the receiver has
   * taken in what is before it, not up to PROBE_MS later (on a fast link that would be the delay).
   */
  private scheduleProbe(now: number): void {
    const fast = this.link.fast(now);
    const full = !fast && this.link.inFlight >= this.link.window;
    if (full && this.probeTimer) {
      clearTimeout(this.probeTimer);
      this.probeTimer = null;
    }
    if (this.probeTimer) return;
    // Probes come often only while the link is at least half full: a receiver far from its
    // window needs no close watch, and each probe is a write and a read more per receiver.
    const every = !fast && this.link.inFlight * 2 >= this.link.window ? PROBE_MS : PROBE_IDLE_MS;
    const wait = this.link.lastProbeAt + every - now;
    if (wait <= 0 || full) return this.probeNow();
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probeNow();
    }, wait);
    this.probeTimer.unref();
  }

  private probeNow(): void {
    if (!this.writtenSinceProbe || !this.wire.open) return;
    this.writtenSinceProbe = false;
    const limited = this.queuedBytes > 0 || this.link.inFlight >= this.link.window;
    this.wire.ping(this.link.probe(Date.now(), !this.wire.reading, limited));
  }

  private freshAudio(now: number): Item | undefined {
    while (this.audio.length > 0 && now - this.audio[0]!.at > AUDIO_STALE_MS) {
      this.queuedBytes -= this.audio.shift()!.bytes;
      this.stats.dropped += 1;
    }
    return this.audio.shift();
  }

  /**
   * Drops video that waited too long. A track whose queued video is too old skips to its newest
   * key frame still fresh in the queue; without one, its queue is dropped and it waits for the
   * next key frame (`stalled`).
   */
  private pruneVideo(now: number): void {
    while (this.video.length > 0 && now - this.video[0]!.at > VIDEO_BUDGET_MS) {
      const track = this.video[0]!.track!;
      const from = this.video.findLastIndex(
        (v) => v.track === track && v.key && now - v.at <= VIDEO_BUDGET_MS,
      );
      this.dropVideo(track, from < 0 ? this.video.length : from);
      if (from < 0) this.chooser.stall(track, now);
      else this.stats.keyframeSkips += 1;
    }
  }

  /** How long the oldest video waiting here has waited (0: none waits). */
  oldestVideoMs(now: number): number {
    return this.video.length > 0 ? now - this.video[0]!.at : 0;
  }
}
