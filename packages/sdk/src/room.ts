/**
 * `joinRoom`: a vss call in any web page. The app's backend mints a connection token for its own
 * user (`POST /v1/sessions/{sessionId}/connection` with an API key); the page joins with it, and
 * gets the others' video as live elements to place, their sound played, chat, the recording state
 * and the connection's state as events. With `container`, the SDK draws the room itself.
 */
import type { TrackKind } from '@vss/protocol';
import type { Devices } from './engine/local-media';
import { LiveRoom } from './engine/live-room';
import { nameOf, type RoomState } from './engine/room-state';
import { drawRoom } from './ui';

/** A device choice: the default device (true), none (false), or a given one. */
export type DeviceChoice = boolean | { deviceId: string };

/** What `joinRoom` takes. */
export interface JoinOptions {
  /**
   * A live connection token (a JWT from `POST /v1/sessions/{sessionId}/connection`), or a function
   * that returns a fresh one: it is called for every connection, so that a reconnect after the
   * first token's 300 s still gets in.
   */
  token: string | (() => Promise<string>);
  /** The vss server, `https://…` (default: the origin this module was loaded from). */
  url?: string;
  /** The name shown to the others (default: the token's name, else its user id). */
  displayName?: string;
  /** The camera to send from the start (default: true, the default camera). */
  camera?: DeviceChoice;
  /** The microphone to send from the start (default: true). */
  microphone?: DeviceChoice;
  /** Where to draw the room (tiles, toggles, chat, leave); without it nothing is drawn. */
  container?: HTMLElement;
  /**
   * The video codec to publish in: `'vp8'` or `'h264'`. By default it is chosen for the browser:
   * H.264 where VP8 would be encoded in software only (Safari, every iOS browser), VP8 elsewhere.
   * Every receiver, the recording and every export read both.
   */
  videoCodec?: 'vp8' | 'h264';
}

/** One person in the room. */
export interface Participant {
  user_id: string;
  display_name: string;
  /** true for the one this page joined as */
  local: boolean;
}

/** The events of a room and what each carries. */
export interface RoomEvents {
  'participant-joined': { user_id: string; display_name: string };
  'participant-left': { user_id: string; display_name: string };
  /**
   * A track to show: a `<canvas>` (others' camera or screen, drawn as it is decoded), a `<video>`
   * (this page's own camera or screen), or no element for a microphone (its sound plays in the
   * room's mix). The element is live and can be placed anywhere.
   */
  track: { user_id: string; kind: TrackKind; element: HTMLCanvasElement | HTMLVideoElement | null };
  'track-ended': { user_id: string; kind: TrackKind };
  chat: { user_id: string; display_name: string; text: string; local: boolean };
  recording: { state: 'recording' | 'paused' };
  connection: { state: 'connected' | 'reconnecting' | 'closed'; code?: number };
}

/** A failure of the SDK: `code` is the API's or the live protocol's code, or the SDK's own. */
export class RoomError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RoomError';
  }
}

/** The claims the SDK reads from a connection token (it cannot check the signature; the server does). */
interface Claims {
  sub: string;
  sid: string;
  name?: string | null;
  pub?: boolean;
}

/** Reads a connection token's session and user; a clear error when it is not one. */
export function readToken(token: unknown): Claims {
  const bad = (why: string) =>
    new RoomError(
      'INVALID_TOKEN',
      `token: ${why}; pass the access_token of POST /v1/sessions/{sessionId}/connection`,
    );
  if (typeof token !== 'string' || token === '') throw bad('missing');
  const parts = token.split('.');
  if (parts.length !== 3) throw bad('not a JWT (three dot-separated parts)');
  let claims: Partial<Claims>;
  try {
    const b64 = parts[1]!.replace(/-/g, '+').replace(/_/g, '/');
    claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))));
  } catch {
    throw bad('its payload is not JSON');
  }
  if (typeof claims.sub !== 'string' || typeof claims.sid !== 'string')
    throw bad('it names no session (sid) and user (sub)');
  return claims as Claims;
}

/** The origin this module was loaded from: where a page that loads /sdk/vss.js finds the server. */
function moduleOrigin(): string {
  try {
    return new URL(import.meta.url).origin;
  } catch {
    return location.origin;
  }
}

type Listener<E extends keyof RoomEvents> = (data: RoomEvents[E]) => void;

/** A joined room. */
export class Room {
  private readonly listeners = new Map<keyof RoomEvents, Set<Listener<never>>>();
  private last: RoomState;
  private readonly shown = new Map<
    string,
    { element: HTMLCanvasElement | HTMLVideoElement | null; detach?: () => void }
  >();
  private readonly seenChat = new Set<string>();
  private readonly undraw: (() => void) | null;

  /** @internal use `joinRoom` */
  constructor(
    /** the engine under this room; for the dashboard and advanced use */
    readonly engine: LiveRoom,
    private readonly audio: AudioContext | null,
    container: HTMLElement | undefined,
  ) {
    this.last = engine.snapshot();
    this.tracks(this.last);
    for (const line of this.last.chat) this.seenChat.add(line.key);
    engine.subscribe(() => this.changed());
    this.undraw = container ? drawRoom(container, this) : null;
  }

  /** Everybody present, this page's participant first. */
  get participants(): Participant[] {
    const s = this.engine.snapshot();
    return s.participants.map((u) => ({ user_id: u, display_name: nameOf(s, u), local: u === s.self }));
  }

  /** The user id this page joined as. */
  get userId(): string {
    return this.engine.snapshot().self;
  }

  /**
   * Listens to an event. A listener of `track`, `participant-joined`, `recording` or `connection`
   * is first told of the tracks shown, the people present, the recording's and the connection's
   * state now, so that nothing that happened while joining is missed.
   */
  on<E extends keyof RoomEvents>(event: E, fn: Listener<E>): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn as Listener<never>);
    const s = this.last;
    if (event === 'participant-joined')
      for (const u of s.participants)
        if (u !== s.self) (fn as Listener<'participant-joined'>)({ user_id: u, display_name: nameOf(s, u) });
    if (event === 'recording' && s.recording) (fn as Listener<'recording'>)({ state: s.recording.state });
    if (event === 'connection' && s.status === 'live') (fn as Listener<'connection'>)({ state: 'connected' });
    if (event === 'track')
      for (const [key, shown] of this.shown) {
        const [user_id, kind] = key.split('/') as [string, TrackKind];
        (fn as Listener<'track'>)({ user_id, kind, element: shown.element });
      }
    return this;
  }

  /** Stops listening. */
  off<E extends keyof RoomEvents>(event: E, fn: Listener<E>): this {
    this.listeners.get(event)?.delete(fn as Listener<never>);
    return this;
  }

  /** The element of a track shown now (see the `track` event), or null. */
  element(userId: string, kind: TrackKind): HTMLCanvasElement | HTMLVideoElement | null {
    return this.shown.get(`${userId}/${kind}`)?.element ?? null;
  }

  /** Sends a chat message; resolves once the server has stored it. */
  async sendChat(text: string): Promise<void> {
    if (typeof text !== 'string' || text.trim() === '')
      throw new RoomError('BAD_MESSAGE', 'text: a chat message needs some text');
    await this.engine.sendChat(text);
  }

  /** Turns the camera on or off. */
  setCamera(on: boolean): Promise<void> {
    return this.engine.setPublishing('cam', on);
  }

  /** Turns the microphone on or off. */
  setMicrophone(on: boolean): Promise<void> {
    return this.engine.setPublishing('mic', on);
  }

  /** Starts or stops sharing a screen (the browser asks which). */
  shareScreen(on: boolean): Promise<void> {
    return this.engine.setPublishing('screen', on);
  }

  /** Leaves: the others are told at once, the camera and microphone are released. */
  async leave(): Promise<void> {
    await this.engine.leave();
    for (const [key, s] of this.shown) {
      s.detach?.();
      this.shown.delete(key);
    }
    this.undraw?.();
    await this.audio?.close().catch(() => undefined);
  }

  private emit<E extends keyof RoomEvents>(event: E, data: RoomEvents[E]): void {
    for (const fn of this.listeners.get(event) ?? []) (fn as Listener<E>)(data);
  }

  private changed(): void {
    const was = this.last;
    const now = this.engine.snapshot();
    this.last = now;
    if (now.status !== was.status) {
      const state = now.status === 'live' ? 'connected' : now.status === 'connecting' ? null : now.status;
      if (state)
        this.emit('connection', state === 'closed' ? { state, code: now.closeCode ?? undefined } : { state });
    }
    for (const u of now.participants)
      if (!was.participants.includes(u) && u !== now.self)
        this.emit('participant-joined', { user_id: u, display_name: nameOf(now, u) });
    this.tracks(now);
    for (const u of was.participants)
      if (!now.participants.includes(u))
        this.emit('participant-left', { user_id: u, display_name: nameOf(was, u) });
    for (const line of now.chat)
      if (!this.seenChat.has(line.key)) {
        this.seenChat.add(line.key);
        this.emit('chat', {
          user_id: line.actor,
          display_name: nameOf(now, line.actor),
          text: line.text,
          local: line.own,
        });
      }
    if (now.recording && now.recording.state !== was.recording?.state)
      this.emit('recording', { state: now.recording.state });
  }

  /** Makes an element for each track that appeared, and lets go of those that ended. */
  private tracks(s: RoomState): void {
    const want = new Set<string>();
    for (const u of s.participants) for (const kind of s.tracks[u] ?? []) want.add(`${u}/${kind}`);
    for (const [key, shown] of this.shown)
      if (!want.has(key)) {
        shown.detach?.();
        this.shown.delete(key);
        const [user_id, kind] = key.split('/') as [string, TrackKind];
        this.emit('track-ended', { user_id, kind });
      }
    for (const key of want) {
      if (this.shown.has(key)) continue;
      const [user, kind] = key.split('/') as [string, TrackKind];
      if (kind === 'mic') {
        this.shown.set(key, { element: null });
      } else if (user === s.self) {
        const stream = s.local[kind];
        if (!stream) continue;
        const video = document.createElement('video');
        Object.assign(video, { muted: true, autoplay: true, playsInline: true, srcObject: stream });
        video.setAttribute('aria-label', `${nameOf(s, user)}: ${kind === 'cam' ? 'camera' : 'screen'} (you)`);
        this.shown.set(key, { element: video, detach: () => (video.srcObject = null) });
      } else {
        const canvas = document.createElement('canvas');
        canvas.setAttribute('aria-label', `${nameOf(s, user)}: ${kind === 'cam' ? 'camera' : 'screen'}`);
        this.shown.set(key, { element: canvas, detach: this.engine.attachVideo(user, kind, canvas) });
      }
      this.emit('track', { user_id: user, kind, element: this.shown.get(key)!.element });
    }
  }
}

/** `{ deviceId }` of a choice, or undefined for the default device. */
const deviceOf = (c: DeviceChoice | undefined) => (typeof c === 'object' && c ? c.deviceId : undefined);

/**
 * Joins a live session. Resolves once connected (the camera and microphone start right after);
 * rejects with a `RoomError` (`code` the server's or the protocol's) when the token is malformed,
 * expired or refused.
 */
export async function joinRoom(opts: JoinOptions): Promise<Room> {
  if (!opts || (typeof opts.token !== 'string' && typeof opts.token !== 'function'))
    throw new RoomError(
      'INVALID_TOKEN',
      'token: missing; pass the access_token of POST /v1/sessions/{sessionId}/connection',
    );
  const first = typeof opts.token === 'string' ? opts.token : await opts.token();
  const claims = readToken(first);
  const url = opts.url ?? moduleOrigin();
  if (!/^https?:\/\//.test(url))
    throw new RoomError('BAD_REQUEST', `url: ${JSON.stringify(url)} is not an http(s) URL`);
  if (opts.videoCodec !== undefined && opts.videoCodec !== 'vp8' && opts.videoCodec !== 'h264')
    throw new RoomError(
      'BAD_REQUEST',
      `videoCodec: ${JSON.stringify(opts.videoCodec)} is neither 'vp8' nor 'h264'`,
    );
  const devices: Devices = { cam: deviceOf(opts.camera), mic: deviceOf(opts.microphone) };
  // Sound starts only from a gesture in most browsers: joinRoom is best called from a click.
  const audio = typeof AudioContext === 'undefined' ? null : new AudioContext({ latencyHint: 'interactive' });
  void audio?.resume().catch(() => undefined);
  let firstToken: string | null = first;
  const engine = new LiveRoom({
    url,
    sessionId: claims.sid,
    userId: claims.sub,
    displayName: opts.displayName ?? claims.name ?? claims.sub,
    canPublish: claims.pub !== false,
    devices,
    token: async () => {
      const t =
        firstToken ?? (typeof opts.token === 'function' ? await opts.token() : (opts.token as string));
      firstToken = null;
      return t;
    },
    audio,
    videoCodec: opts.videoCodec,
  });
  try {
    await engine.connect();
  } catch (err) {
    await audio?.close().catch(() => undefined);
    const e = err as { code?: unknown; message?: string };
    throw new RoomError(
      typeof e.code === 'string' ? e.code : String(e.code ?? 'CONNECT_FAILED'),
      e.message ?? String(err),
    );
  }
  const room = new Room(engine, audio, opts.container);
  if (claims.pub !== false) {
    if (opts.microphone !== false) await engine.setPublishing('mic', true);
    if (opts.camera !== false) await engine.setPublishing('cam', true);
  }
  return room;
}
