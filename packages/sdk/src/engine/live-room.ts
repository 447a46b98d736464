/**
 * One participant's live room over LiveClient: who is present and what they publish, their
 * video into canvases and their sound into one mix, chat, director state, and the local
 * camera, microphone and screen published as `media/<self>/<kind>`.
 */
import { LiveClient, type LiveMessage } from '@vss/client';
import {
  CLOSE,
  LIVE_ERRORS,
  RECEIVER_KEYFRAME_INTERVAL_MS,
  parseMediaStream,
  TRACK_KINDS,
  type ControlFrame,
  type TrackKind,
} from '@vss/protocol';
import { readRecordingStatus } from '../recording';
import { AudioOut, SOUND_UNSUPPORTED, watchSound } from './audio-out';
import { capture } from './local-media';
import { sdkBase, type RoomOptions } from './room-options';
import { startPublishing, type Publishing } from './publishing';
import { RateBudget } from './rate-budget';
import { readEnvelope } from './envelope';
import {
  afterEnvelope,
  afterLayer,
  afterLeave,
  afterWelcome,
  initialState,
  sharingOrder,
  withChat,
  withTrack,
  withVideoState,
  type Layout,
  type RoomState,
} from './room-state';
import { Uplink, UPLINK_TICK_MS } from './uplink';
import { VideoTrackDecoder } from './video-track';

/**
 * A decoder that lost the picture asks for a key frame at most this often: the server passes on
 * one a second per track from each receiver and refuses more (docs/protocol.md §6); the margin
 * keeps timer jitter from making one too early.
 */
const KEYFRAME_ASK_EVERY_MS = RECEIVER_KEYFRAME_INTERVAL_MS + 100;
const OPEN = 1;
const DEVICE: Record<TrackKind, string> = { cam: 'camera', mic: 'microphone', screen: 'screen share' };

const NO_SOUND = `You cannot hear the others: ${SOUND_UNSUPPORTED ?? 'this browser has not started sound (no speakers, or sound is blocked until you click the page)'}`;
const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
/** A live room; subscribe() and snapshot() make it a store for React's useSyncExternalStore. */
export class LiveRoom {
  private readonly client: LiveClient;
  private readonly out: AudioOut | null;
  private readonly budget = new RateBudget();
  private readonly decoders = new Map<string, VideoTrackDecoder>();
  private readonly pubs = new Map<TrackKind, Publishing>();
  /** how much video this connection's uplink carries (uplink.ts) */
  private readonly uplink: Uplink;
  private uplinkTimer: ReturnType<typeof setInterval> | null = null;
  private readonly listeners = new Set<() => void>();
  private state: RoomState;
  private left = false;
  /** who left (and has not joined again): their media still on its way is dropped, not a new tile */
  private readonly departed = new Set<string>();

  constructor(private readonly opts: RoomOptions) {
    this.state = initialState(opts.userId, opts.displayName, opts.canPublish);
    const unavailable = (why: string) =>
      !this.left && this.set({ notice: `You cannot hear the others: ${why}` });
    this.out = opts.audio ? new AudioOut(opts.audio, { sdkBase: sdkBase(opts), unavailable }) : null;
    watchSound(
      opts.audio,
      () => !this.left && this.set({ notice: NO_SOUND }),
      () => this.state.notice === NO_SOUND && this.set({ notice: null }),
    );
    const origin = (opts.url ?? location.origin).replace(/^http/, 'ws');
    this.client = new LiveClient({
      url: origin,
      session: opts.sessionId,
      userId: opts.userId,
      token: opts.token,
      // Why binary: media arrives as raw bytes, without base64's third more and its decoding.
      format: 'binary',
      WebSocket,
    });
    this.uplink = new Uplink(this.client, (step) => {
      for (const p of this.pubs.values()) p.setStep(step);
    });
    this.client.on('control', (c) => this.onControl(c));
    this.client.on('message', (m) => this.onMessage(m));
    this.client.on('reconnecting', ({ attempt }) =>
      this.set({ status: 'reconnecting', detail: `attempt ${attempt}` }),
    );
    this.client.on('reconnect', () => {
      this.set({ status: 'live', detail: null, error: null });
      this.uplink.reset();
      this.keyFrames();
    });
    this.client.on('close', (ev) => {
      if (this.left || ev.willReconnect) return;
      // This person opened the session again elsewhere (another tab, another device): that one
      // is now the live one. Or the host removed them. Either is final, and this page lets go of
      // the camera and microphone as well.
      if (ev.code === CLOSE.REPLACED) return this.ended('replaced', ev.code);
      if (ev.code === CLOSE.REMOVED) return this.ended('removed', ev.code);
      this.set({
        status: 'closed',
        detail: `closed (code ${ev.code}${ev.reason ? `: ${ev.reason}` : ''})`,
        closeCode: ev.code,
      });
    });
    this.client.on('error', (err) => {
      if (!this.left) this.set({ error: err.message });
    });
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  };

  /** The current state (the same object until something changes). */
  snapshot = (): RoomState => this.state;

  /** Connects; rejects with the reason when the server refuses. */
  async connect(): Promise<void> {
    // Why: a room left before it connected (the page went away) must not connect afterwards.
    if (this.left) throw new Error('left before connecting');
    await this.client.connect();
  }

  /** Draws a participant's camera or screen into a canvas until the returned function is called. */
  attachVideo(userId: string, kind: 'cam' | 'screen', canvas: HTMLCanvasElement): () => void {
    const stream = `media/${userId}/${kind}`;
    this.decoders.get(stream)?.close();
    let asked = -Infinity;
    // The picture is lost (a decoding error, frames dropped): a key frame brings it back.
    const lost = () => {
      const now = performance.now();
      if (now - asked < KEYFRAME_ASK_EVERY_MS || this.client.readyState !== OPEN) return;
      asked = now;
      void this.client.requestKeyFrame(userId, kind).catch(() => undefined);
    };
    const decoder = new VideoTrackDecoder(canvas, lost);
    this.decoders.set(stream, decoder);
    return () => {
      decoder.close();
      if (this.decoders.get(stream) === decoder) this.decoders.delete(stream);
    };
  }

  /** How loud a participant is right now (0..1), from their decoded microphone. */
  audioLevel(userId: string): number {
    return this.out?.level(`media/${userId}/mic`) ?? 0;
  }

  /** Starts or stops publishing the camera, the microphone or a screen. */
  async setPublishing(kind: TrackKind, on: boolean): Promise<void> {
    if (this.left || this.state.switching || this.pubs.has(kind) === on) return;
    if (!on) return this.stopPublishing(kind);
    if (!this.state.canPublish) return;
    // A notice of a device clears; that the others cannot be heard stays true.
    this.set({ switching: kind, notice: this.state.notice === NO_SOUND ? NO_SOUND : null });
    let track: MediaStreamTrack | null = null;
    try {
      const got = await capture(kind, kind === 'screen' ? undefined : this.opts.devices[kind]);
      if ('error' in got) return this.set({ notice: got.error });
      track = got.track;
      if (this.left) return track.stop();
      const pub = await startPublishing(kind, track, {
        client: this.client,
        userId: this.opts.userId,
        budget: this.budget,
        uplink: this.uplink,
        media: {
          videoCodec: this.opts.videoCodec,
          sdkBase: sdkBase(this.opts),
        },
        failed: (err, final) => {
          if (this.left) return;
          this.set({ notice: `Your ${DEVICE[kind]} is not being sent: ${errorMessage(err)}` });
          // It cannot be read in this browser at all: it is off, and shown off, not a silent gap.
          if (final) void this.stopPublishing(kind);
        },
        refused: (message) => {
          if (!this.left) this.set({ error: message });
        },
      });
      // Why check again: leave() may have run while the encoder was being set up.
      if (this.left) {
        pub.stop();
        return track.stop();
      }
      this.pubs.set(kind, pub);
      this.watchUplink();
      // Why: the browser's own "Stop sharing" button (or an unplugged camera) ends the track.
      track.addEventListener('ended', () => void this.stopPublishing(kind));
      const local =
        kind === 'mic' ? this.state.local : { ...this.state.local, [kind]: new MediaStream([track]) };
      this.set({ local, tracks: withTrack(this.state.tracks, this.opts.userId, kind, true) });
    } catch (err) {
      // Nothing half-started stays on: the capture (and the camera light with it) is stopped.
      if (!this.stopLocal(kind)) track?.stop();
      if (!this.left) this.set({ notice: `The ${DEVICE[kind]} could not be started: ${errorMessage(err)}` });
    } finally {
      this.set({ switching: null });
    }
  }

  /** Sends a chat message; resolves once the server has written it, rejects with its reason. */
  async sendChat(text: string): Promise<void> {
    const seq = await this.client.publishChat(text, { ack: true });
    const line = { key: `s${seq}`, actor: this.opts.userId, text, ts: Date.now(), own: true };
    this.set({ chat: withChat(this.state.chat, line) });
  }

  /** Sets everybody's layout (stream `director`); shown at once, undone if the server refuses. */
  setLayout(layout: Layout): Promise<void> {
    return this.direct('layout', layout, { type: 'director.layout', data: { layout } });
  }

  /** Sets who everybody sees large in the presenter layout; shown at once, undone if refused. */
  setFocus(userId: string): Promise<void> {
    return this.direct('focus', userId, { type: 'director.focus', data: { user_id: userId } });
  }

  private async direct<K extends 'layout' | 'focus'>(
    key: K,
    value: RoomState[K],
    event: Parameters<LiveClient['publishDirector']>[0],
  ): Promise<void> {
    const was = this.state[key];
    this.set({ [key]: value });
    try {
      await this.client.publishDirector(event, { ack: true });
    } catch (err) {
      if (this.state[key] === value) this.set({ [key]: was });
      throw err;
    }
  }

  /** Stops publishing, closes the connection and releases decoders; the room is done after. */
  async leave(): Promise<void> {
    if (this.left) return;
    this.release();
    await this.client.close().catch(() => undefined);
    this.set({ status: 'closed', detail: 'left', closeCode: 1000, local: {} });
  }

  /** Closed for good by the server: `replaced` (the person joined again elsewhere) or `removed`. */
  private ended(detail: 'replaced' | 'removed', closeCode: number): void {
    if (this.left) return;
    this.release();
    this.set({ status: 'closed', detail, closeCode, local: {}, tracks: {} });
  }

  /** Stops capturing, encoding, decoding and playing: the room is done. */
  private release(): void {
    this.left = true;
    for (const kind of [...this.pubs.keys()]) this.stopLocal(kind);
    this.watchUplink();
    for (const d of this.decoders.values()) d.close();
    this.decoders.clear();
    this.out?.close();
  }

  private stopLocal(kind: TrackKind): boolean {
    const pub = this.pubs.get(kind);
    if (!pub) return false;
    this.pubs.delete(kind);
    pub.stop();
    pub.track.stop();
    this.watchUplink();
    return true;
  }

  private async stopPublishing(kind: TrackKind): Promise<void> {
    if (!this.stopLocal(kind) || this.left) return;
    const local = { ...this.state.local };
    if (kind !== 'mic') delete local[kind];
    this.set({ local, tracks: withTrack(this.state.tracks, this.opts.userId, kind, false) });
    // Not connected right now: the server unpublishes the track when the connection is gone.
    await this.client.unpublish(`media/${this.opts.userId}/${kind}`).catch(() => undefined);
  }

  /** Looks at the uplink while anything is published, and not otherwise. */
  private watchUplink(): void {
    const on = this.pubs.size > 0 && !this.left;
    if (on && !this.uplinkTimer) this.uplinkTimer = setInterval(() => this.uplink.tick(), UPLINK_TICK_MS);
    if (!on && this.uplinkTimer) {
      clearInterval(this.uplinkTimer);
      this.uplinkTimer = null;
    }
  }

  private keyFrames(): void {
    for (const p of this.pubs.values()) p.requestKeyFrame();
  }

  private onControl(c: ControlFrame): void {
    const s = this.state;
    const d = c.data;
    switch (c.event) {
      case 'welcome':
        this.departed.clear();
        return this.set(afterWelcome(s, c.data));
      case 'join': {
        this.departed.delete(c.user_id);
        // A newcomer can only start decoding at a key frame: send one now rather than in 2 s.
        this.keyFrames();
        const name = typeof c.data.display_name === 'string' && c.data.display_name;
        const names = name ? { ...s.names, [c.user_id]: name } : s.names;
        if (s.participants.includes(c.user_id)) return this.set({ names });
        return this.set({ participants: [...s.participants, c.user_id], names });
      }
      case 'leave':
        if (c.user_id === this.opts.userId) return;
        this.departed.add(c.user_id);
        for (const kind of TRACK_KINDS) this.dropTrack(c.user_id, kind);
        return this.set(afterLeave(s, c.user_id));
      case 'track.published':
      case 'track.unpublished': {
        const kind = TRACK_KINDS.find((k) => k === d.kind);
        if (!kind) return;
        const on = c.event === 'track.published';
        if (!on) this.dropTrack(c.user_id, kind);
        const video = on || kind === 'mic' ? s.video : withVideoState(s.video, c.user_id, kind, null);
        return this.set({ tracks: withTrack(s.tracks, c.user_id, kind, on), video });
      }
      case 'keyframe': {
        // The server asks for a key frame on one layer (a receiver switched to it, or recovers).
        const pub = c.user_id === this.opts.userId ? this.pubs.get(String(d.track) as TrackKind) : undefined;
        const layer = d.layer === 0 || d.layer === 1 || d.layer === 2 ? d.layer : undefined;
        return pub?.requestKeyFrame(layer);
      }
      case 'layer': {
        // What this page now gets of someone's video: shown on their tile (reduced, paused).
        const patch = c.user_id === this.opts.userId ? null : afterLayer(s, c.user_id, c.data);
        return patch ? this.set(patch) : undefined;
      }
      case 'reconnect':
        // The server is stopping (a restart, a deploy): the client connects again by itself.
        return this.set({ status: 'reconnecting', detail: 'the server is restarting' });
      case 'error':
        // An error with an id answers an acked publish (chat, director, a layer-0 video frame):
        // its caller shows it.
        if (d.id !== undefined) return;
        // A refused media frame leaves a gap in the chain of delta frames: start a new one.
        this.keyFrames();
        // Refused by a server that is restarting: the reconnect that follows is what to show.
        if (d.code === LIVE_ERRORS.UNAVAILABLE) return;
        return this.set({ error: typeof d.message === 'string' ? d.message : String(d.code) });
      case 'removed':
        // The host removed this participant: the final close follows.
        return this.ended('removed', CLOSE.REMOVED);
      case 'recording': {
        // Paused, resumed, or other rules: whether (and what of) everyone is being recorded.
        const recording = readRecordingStatus(c.data);
        return recording ? this.set({ recording }) : undefined;
      }
    }
  }

  private dropTrack(userId: string, kind: TrackKind): void {
    const stream = `media/${userId}/${kind}`;
    if (kind === 'mic') this.out?.reset(stream);
    else this.decoders.get(stream)?.reset();
  }

  private onMessage(m: LiveMessage): void {
    const media = parseMediaStream(m.streamType);
    if (media) {
      const s = this.state;
      if (this.departed.has(media.userId)) return;
      // Who published before we joined announced it before us: their media tells us.
      if (!s.tracks[media.userId]?.includes(media.kind) || !s.participants.includes(media.userId))
        this.set({
          tracks: withTrack(s.tracks, media.userId, media.kind, true),
          participants: s.participants.includes(media.userId)
            ? s.participants
            : [...s.participants, media.userId],
        });
      if (media.kind === 'mic') this.out?.push(m.streamType, m.payload);
      else this.decoders.get(m.streamType)?.push(m.payload);
      return;
    }
    const env = readEnvelope(m.payload);
    const patch = env && afterEnvelope(this.state, m.streamType, m.seq, env);
    if (patch) this.set(patch);
  }

  private set(patch: Partial<RoomState>): void {
    const next = { ...this.state, ...patch };
    if (patch.tracks) next.sharing = sharingOrder(next.sharing, patch.tracks);
    this.state = next;
    for (const fn of [...this.listeners]) fn();
  }
}
