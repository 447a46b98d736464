/** What a live room shows: its connection, participants, tracks, chat and director state. */
import { shownFocus, type LayerState, type TrackKind } from '@vss/protocol';

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
  self: string;
  /** everybody present, the local participant first */
  participants: string[];
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
  /** the latest error from the server or the connection */
  error: string | null;
  /** the latest notice about a device (e.g. camera denied) */
  notice: string | null;
}

/** The state of a room that is about to connect. */
export function initialState(self: string): RoomState {
  return {
    status: 'connecting',
    detail: null,
    self,
    participants: [self],
    tracks: {},
    sharing: [],
    local: {},
    switching: null,
    chat: [],
    layout: 'grid',
    focus: null,
    video: {},
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
