import {
  KEYFRAME_REQUEST_INTERVAL_MS,
  LIVE_ERRORS,
  RECEIVER_KEYFRAME_INTERVAL_MS,
  TRACK_KINDS,
  type Layer,
  type TrackKind,
} from '@vss/protocol';
import type { Fanout, FanoutControl } from '../../bus/fanout.js';
import type { LiveConnection, LiveSession } from './connection.js';
import { sendControl } from './delivery.js';
import { controlText } from './frames.js';
import { LayerRates } from './layers.js';
import type { PacerHooks } from './pacer.js';
import { loopLag } from '../../lib/loop-lag.js';
import type { SessionRegistry } from './registry.js';

/** Key-frame requests, counted as they happen (the metrics read them when scraped). */
export interface KeyframeCounts {
  /** asked of publishers */
  sent: number;
  /** not passed on: one had been asked of that track and layer within the interval */
  limited: number;
  /** asked by receivers themselves, and of those refused (unknown track, or too often) */
  fromReceivers: number;
  refused: number;
}

/** The limiter maps are pruned past this many entries (entries older than this are dead). */
const PRUNE_AT = 1024;
const STALE_MS = 10_000;

/**
 * Routes key-frame requests to publishers: the server's own (a receiver switched layers or
 * stalled) and receivers' (`{"type":"keyframe"}`). A publisher is asked at most once per track and
 * layer every KEYFRAME_REQUEST_INTERVAL_MS, however many receivers need one, by the process that
 * holds its connection; requests for a publisher connected elsewhere cross through the session's
 * fan-out channel.
 */
export class KeyframeRouter {
  readonly counts: KeyframeCounts = { sent: 0, limited: 0, fromReceivers: 0, refused: 0 };
  private readonly asked = new Map<string, number>();
  private readonly receivers = new Map<string, number>();

  constructor(private readonly fanout: Fanout) {
    // Watched from the start: the hold-up that makes a receiver's queue grow comes before the
    // `layer` control that says why it gets less.
    loopLag();
  }

  /** Asks `publisher` for a key frame of its `kind` track on `layer`, wherever it is connected. */
  ask(live: LiveSession, publisher: string, kind: TrackKind, layer: Layer): void {
    const conn = this.localPublisher(live, publisher);
    if (conn) return this.pass(live.session.id, conn, kind, layer);
    const m: FanoutControl = {
      kind: 'control',
      fromConn: '',
      event: 'keyframe',
      userId: publisher,
      data: { track: kind, layer },
      timestampMs: Date.now(),
    };
    this.fanout.publish(live.session.id, m);
  }

  /** A request from another process: passed on if the publisher is connected here. */
  onRemote(live: LiveSession, m: FanoutControl): void {
    const conn = this.localPublisher(live, m.userId);
    const { track, layer } = m.data as { track?: TrackKind; layer?: Layer };
    if (conn && track && layer !== undefined) this.pass(live.session.id, conn, track, layer);
  }

  /**
   * A receiver's own request; the refusal (code, message) when it names no video track being
   * published in the session, or comes within RECEIVER_KEYFRAME_INTERVAL_MS of its last one for
   * that track. `layer` is the layer the receiver gets of that track.
   */
  fromReceiver(
    live: LiveSession,
    receiver: LiveConnection,
    publisher: string,
    track: string,
    layer: Layer,
  ): { code: string; message: string } | null {
    this.counts.fromReceivers += 1;
    const kind = TRACK_KINDS.find((k) => k === track);
    if (!kind || kind === 'mic' || !live.rates.has(`${publisher}/${kind}`, Date.now())) {
      this.counts.refused += 1;
      return {
        code: LIVE_ERRORS.BAD_MESSAGE,
        message: `keyframe: ${publisher} publishes no ${track === 'mic' ? 'video on mic' : track} in this session`,
      };
    }
    const now = Date.now();
    const key = `${receiver.id}/${publisher}/${kind}`;
    if (now - (this.receivers.get(key) ?? 0) < RECEIVER_KEYFRAME_INTERVAL_MS) {
      this.counts.refused += 1;
      return {
        code: LIVE_ERRORS.RATE_LIMITED,
        message: `keyframe: at most one request per track every ${RECEIVER_KEYFRAME_INTERVAL_MS} ms`,
      };
    }
    this.remember(this.receivers, key, now);
    this.ask(live, publisher, kind, layer);
    return null;
  }

  private pass(sessionId: string, conn: LiveConnection, kind: TrackKind, layer: Layer): void {
    const now = Date.now();
    const key = `${sessionId}/${conn.id}/${kind}/${layer}`;
    if (now - (this.asked.get(key) ?? 0) < KEYFRAME_REQUEST_INTERVAL_MS) {
      this.counts.limited += 1;
      return;
    }
    this.remember(this.asked, key, now);
    this.counts.sent += 1;
    sendControl(conn, 'keyframe', conn.userId, { track: kind, layer });
  }

  private localPublisher(live: LiveSession, userId: string): LiveConnection | undefined {
    for (const { conn } of live.members.values()) if (conn.userId === userId) return conn;
    return undefined;
  }

  private remember(map: Map<string, number>, key: string, now: number): void {
    map.set(key, now);
    if (map.size > PRUNE_AT) for (const [k, at] of map) if (now - at > STALE_MS) map.delete(k);
  }
}

/**
 * What a receiver's pacer needs of its session, before the join is recorded: the layers its
 * publishers send, a way to ask them for key frames, and the form of a `layer` control.
 */
export function receiverHooks(
  sessionId: string,
  registry: SessionRegistry,
  keyframes: KeyframeRouter,
): { rates: LayerRates; hooks: PacerHooks } {
  return {
    rates: registry.ratesOf(sessionId),
    hooks: {
      askKeyFrame: (publisher, kind, layer) => {
        const live = registry.sessions.get(sessionId);
        if (live) keyframes.ask(live, publisher, kind, layer);
      },
      layerControl: (publisher, kind, layer, state, linkShort) =>
        controlText('layer', publisher, Date.now(), {
          track: kind,
          layer,
          state,
          // Why less than full: what the server knows. A link measured to carry less than the full
          // layer is the cause, busy or not; otherwise a busy server (on a busy machine), which
          // also makes a receiver's queue grow, and the receiver must not blame its connection.
          ...(state === 'full' ? {} : { cause: !linkShort && loopLag().busy() ? 'server' : 'link' }),
        }),
    },
  };
}

/** A replay connection's pacer: no layers to choose, no publisher to ask. */
export function replayReceiving(): { rates: LayerRates; hooks: PacerHooks } {
  return { rates: new LayerRates(), hooks: { askKeyFrame: () => {}, layerControl: () => '' } };
}
