/** The recording as the playback API returns it, and what the player makes of it. */
import type { Schemas } from '@vss/client';
import type { EnvelopeBody } from '@vss/sdk';

/** One event of a playback answer, as sent. */
export type WireEvent = Schemas['PlaybackEvent'];

/** One playback answer: one window's events (or part of them), and where to go on. */
export type PlaybackWindow = Schemas['PlaybackWindow'];

export type { Manifest, ManifestTrack } from '../types';

/** A chat, director or timeline envelope `{ v, type, ts, actor, data }` with its seq. */
export interface Envelope extends EnvelopeBody {
  seq: number;
}

/** A media event with its bytes decoded. */
export interface MediaEvent {
  seq: number;
  ts: number;
  streamId: string;
  payload: Uint8Array;
  /** a video frame that starts a picture on its own (false for sound) */
  key: boolean;
}

/**
 * A tile of the player: one video track (camera or screen) of one participant, or (`name`, when
 * nobody in the recording had video, as in the export) a participant's name card.
 */
export interface TileInfo {
  /** the track's stream id; `name/<user_id>` for a name card */
  streamId: string;
  userId: string;
  /** the name they joined with */
  name: string;
  kind: 'cam' | 'screen' | 'name';
}

/** A tile of a video track. */
export type VideoTile = TileInfo & { kind: 'cam' | 'screen' };

/** The director's state at a moment: the layout and who is in focus. */
export interface Direction {
  layout: 'grid' | 'presenter';
  focus: string | null;
}

/** Where the player is, what it shows, and why it cannot go on, for the page to draw. */
export interface PlayerSnapshot {
  status: 'loading' | 'paused' | 'playing' | 'buffering' | 'ended' | 'error';
  /** the playhead, ms since 1970 */
  position: number;
  start: number;
  end: number;
  speed: number;
  /** media read ahead of the playhead up to here (ms since 1970) */
  bufferedUntil: number;
  tiles: TileInfo[];
  /** the tiles with no picture at the playhead, which show the participant's name card */
  dark: string[];
  direction: Direction;
  /** the stream shown large (presenter layout with more than one tile), else null */
  main: string | null;
  /** chat messages up to the playhead */
  chat: Envelope[];
  /** true while the chat up to the playhead is still being read (after a seek forward) */
  chatPending: boolean;
  /** timeline events (joins, leaves, tracks) known so far, for markers */
  markers: Envelope[];
  /** the names participants joined with, by user_id */
  names: Record<string, string>;
  error: string | null;
  /**
   * why sound cannot be heard in this browser (its AudioContext did not start: no sound output
   * device, or sound is blocked), or null; the video plays on without it
   */
  soundUnavailable: string | null;
}
