/** What a live room shows: its connection, participants, tracks, chat and director state. */
import { shownFocus, type LayerState, type TrackKind } from '@vss/protocol';
import { readRecordingStatus, type RecordingStatus } from '../recording';
import type { EnvelopeBody } from './envelope';

/** The connection, as a person sees it. */
export type RoomStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

/** The tile layout set from the `director` stream. */
export type Layout = 'grid' | 'presenter';

/** One chat message. */
export interface ChatLine {
  key: string;
  actor: string;
  text: string;
  ts: number;
  own: boolean;
}

/** A snapshot of the room; a new object on every change (React compares them by identity). */
export interface RoomState {
  status: RoomStatus;
  /** reconnect attempt, or why the connection closed */
  detail: string | null;
  /** the close code, once closed for good */
  closeCode: number | null;
  self: string;
  /** everybody present, the local participant first */
  participants: string[];
  /** the names people joined with, by user_id (kept after they leave: the chat still names them) */
  names: Record<string, string>;
  /** false: this participant may watch and chat only (a guest invited so); their media would be refused */
  canPublish: boolean;
  /** the tracks each participant publishes (the local one's too) */
  tracks: Record<string, TrackKind[]>;
  /** who shares a screen, in the order they started (the latest takes the presenter's large tile) */
  sharing: string[];
  /** the local camera and screen, for the own tiles */
  local: Partial<Record<'cam' | 'screen', MediaStream>>;
  /** a track being switched on or off right now */
  switching: TrackKind | null;
  chat: ChatLine[];
  layout: Layout;
  focus: string | null;
  /**
   * what this page gets of others' video, by `<user>/<kind>`, as the server last said (`layer`
   * control): `reduced` or `stalled` on a slow link; absent until it says anything
   */
  video: Record<string, LayerState>;
  /**
   * the server said, of the latest video it sent less of, that it was busy itself (`cause`
   * `server`): the reason is not this page's connection
   */
  serverBusy: boolean;
  /** whether the session is being recorded, and its rules (null until the server says) */
  recording: RecordingStatus | null;
  /** the latest error from the server or the connection */
  error: string | null;
  /** the latest notice about a device (e.g. camera denied) */
  notice: string | null;
}

/** The state of a room that is about to connect, as `self` named `name`. */
export function initialState(self: string, name: string, canPublish: boolean): RoomState {
  return {
    status: 'connecting',
    detail: null,
    closeCode: null,
    self,
    participants: [self],
    names: { [self]: name },
    canPublish,
    tracks: {},
    sharing: [],
    local: {},
    switching: null,
    chat: [],
    layout: 'grid',
    focus: null,
    video: {},
    serverBusy: false,
    recording: null,
    error: null,
    notice: null,
  };
}

/** At most this many chat lines are kept in the page. */
const CHAT_KEEP = 500;

/** Appends a chat line, keeping the newest lines. */
export function withChat(chat: ChatLine[], line: ChatLine): ChatLine[] {
  const next = [...chat, line];
  return next.length > CHAT_KEEP ? next.slice(next.length - CHAT_KEEP) : next;
}

/** Adds or removes one track kind of a participant. */
export function withTrack(
  tracks: Record<string, TrackKind[]>,
  userId: string,
  kind: TrackKind,
  on: boolean,
): Record<string, TrackKind[]> {
  const have = tracks[userId] ?? [];
  if (have.includes(kind) === on) return tracks;
  return { ...tracks, [userId]: on ? [...have, kind] : have.filter((k) => k !== kind) };
}

/** Who the director's focus is, as shown: the one set while present, else the first participant (as the export does). */
export function focusOf(s: RoomState): string | null {
  return s.participants.length ? shownFocus(s.focus, s.participants) : null;
}

/** The people sharing a screen, in the order they started, from everybody's tracks. */
export function sharingOrder(before: string[], tracks: Record<string, TrackKind[]>): string[] {
  const on = (u: string) => tracks[u]?.includes('screen') ?? false;
  const kept = before.filter(on);
  const added = Object.keys(tracks).filter((u) => on(u) && !kept.includes(u));
  return added.length || kept.length !== before.length ? [...kept, ...added] : before;
}

/** Sets (or with null, forgets) what this page gets of `userId`'s `kind` video. */
export function withVideoState(
  video: Record<string, LayerState>,
  userId: string,
  kind: 'cam' | 'screen',
  state: LayerState | null,
): Record<string, LayerState> {
  const key = `${userId}/${kind}`;
  if ((video[key] ?? null) === state) return video;
  const next = { ...video };
  if (state) next[key] = state;
  else delete next[key];
  return next;
}

/** The name to show for a participant: the one they joined with, else their user_id. */
export function nameOf(s: Pick<RoomState, 'names'>, userId: string): string {
  return s.names[userId] ?? userId;
}

/**
 * The room as a `welcome` describes it: who is present (self first), their names, whether this
 * participant may publish; tracks of those no longer present are forgotten.
 */
export function afterWelcome(s: RoomState, data: Record<string, unknown>): Partial<RoomState> {
  const present = Array.isArray(data.participants) ? data.participants.map(String) : [];
  const participants = [s.self, ...present.filter((u) => u !== s.self)];
  const tracks = Object.fromEntries(Object.entries(s.tracks).filter(([u]) => participants.includes(u)));
  const names = { ...s.names };
  if (data.names && typeof data.names === 'object')
    for (const [u, n] of Object.entries(data.names)) if (typeof n === 'string' && n) names[u] = n;
  if (typeof data.display_name === 'string' && data.display_name) names[s.self] = data.display_name;
  const canPublish = typeof data.can_publish === 'boolean' ? data.can_publish : s.canPublish;
  const recording = readRecordingStatus(data.recording) ?? s.recording;
  return { status: 'live', detail: null, participants, tracks, names, canPublish, recording };
}

/** The room once `userId` left: gone from the participants, their tracks and video states forgotten. */
export function afterLeave(s: RoomState, userId: string): Partial<RoomState> {
  const tracks = { ...s.tracks };
  delete tracks[userId];
  const video = withVideoState(withVideoState(s.video, userId, 'cam', null), userId, 'screen', null);
  return { participants: s.participants.filter((u) => u !== userId), tracks, video };
}

/** What a chat or director message changes: a chat line, the layout or the focus (null: nothing). */
export function afterEnvelope(
  s: RoomState,
  streamType: string,
  seq: number,
  env: EnvelopeBody,
): Partial<RoomState> | null {
  if (streamType === 'chat' && env.type === 'chat.message' && typeof env.data.text === 'string') {
    const line = { key: `m${seq}`, actor: env.actor, text: env.data.text, ts: env.ts, own: false };
    return { chat: withChat(s.chat, line) };
  }
  if (env.type === 'director.layout' && (env.data.layout === 'grid' || env.data.layout === 'presenter'))
    return { layout: env.data.layout };
  if (env.type === 'director.focus' && typeof env.data.user_id === 'string')
    return { focus: env.data.user_id };
  return null;
}

/** What a `layer` control says of `userId`'s video (what this page gets of it), or null if nothing usable. */
export function afterLayer(
  s: RoomState,
  userId: string,
  data: Record<string, unknown>,
): Partial<RoomState> | null {
  const track = String(data.track);
  if (track !== 'cam' && track !== 'screen') return null;
  if (data.state !== 'full' && data.state !== 'reduced' && data.state !== 'stalled') return null;
  const video = withVideoState(s.video, userId, track, data.state);
  return data.state === 'full' ? { video } : { video, serverBusy: data.cause === 'server' };
}
