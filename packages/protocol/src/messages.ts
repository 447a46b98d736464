/** The live protocol's messages: tracks, layers, JSON frames, error and close codes. */

/** Streams a client may publish to. Media streams are `media/<own user_id>/<kind>`. */
export const TRACK_KINDS = ['cam', 'mic', 'screen'] as const;
export type TrackKind = (typeof TRACK_KINDS)[number];

/** Control events the server sends. */
export type ControlEvent =
  | 'welcome'
  | 'join'
  | 'leave'
  | 'track.published'
  | 'track.unpublished'
  | 'ack'
  | 'end'
  | 'error'
  /** the server is draining: it closes with 1001 next, and the client connects again */
  | 'reconnect'
  /** to a receiver: which layer of a publisher's video track it now gets (LayerData) */
  | 'layer'
  /** to a publisher: encode a key frame on this track and layer now (KeyframeData) */
  | 'keyframe'
  /** to the older connection of a user who joined again: close 4409 follows */
  | 'replaced'
  /** to a participant the session's host removed: close 4403 follows */
  | 'removed'
  /** to everybody: what the session records changed (RecordingData; also in `welcome.recording`) */
  | 'recording'
  /** to a replay connection: the recording jumps over a span in which it was paused (SkipData) */
  | 'skip';

/**
 * Video layers. A publisher may send each camera or screen picture in up to three layers, each
 * its own encoder: layer 0 is the full-quality picture, the one recorded; layers 1 and 2 are
 * reduced copies (about half the width and height of the layer before, at a lower bitrate),
 * relayed live to receivers whose link cannot carry more, never recorded. A publish without a
 * layer is layer 0.
 */
export type Layer = 0 | 1 | 2;
export const LAYER_COUNT = 3;
/** The tracks that may carry reduced layers. */
export const LAYERED_TRACKS: readonly TrackKind[] = ['cam', 'screen'];

/** True when `layer` names a layer a `kind` track may carry. */
export function isLayerOf(kind: TrackKind, layer: number): layer is Layer {
  if (!Number.isInteger(layer) || layer < 0 || layer >= LAYER_COUNT) return false;
  return layer === 0 || LAYERED_TRACKS.includes(kind);
}

/**
 * What a receiver gets of a publisher's video track: `full` (layer 0), `reduced` (a reduced layer,
 * because its link carries no more), `stalled` (nothing until the next key frame: its link fell
 * behind and the frames queued for it were skipped).
 */
export type LayerState = 'full' | 'reduced' | 'stalled';

/** `control` `layer`, to a receiver; `user_id` is the publisher. */
export interface LayerData {
  track: TrackKind;
  layer: Layer;
  state: LayerState;
}

/** `control` `keyframe`, to a publisher: `user_id` is the publisher itself. */
export interface KeyframeData {
  track: TrackKind;
  layer: Layer;
}

/**
 * The server asks a publisher for at most one key frame per track and layer in this interval,
 * however many receivers need one: a hundred receivers asking cost one key frame.
 */
export const KEYFRAME_REQUEST_INTERVAL_MS = 500;
/** A receiver may ask for one key frame per publisher's track in this interval; more are refused. */
export const RECEIVER_KEYFRAME_INTERVAL_MS = 1000;

/** Server → client: recorded data of a stream. `body` is base64 of the payload bytes. */
export interface MessageFrame {
  type: 'message';
  stream_type: string;
  timestamp_ms: number;
  body: string;
  /** the message's place in the session's one sequence over all streams */
  seq: number;
}

/** Server → client: lifecycle and protocol signals. */
export interface ControlFrame {
  type: 'control';
  event: ControlEvent;
  user_id: string;
  timestamp_ms: number;
  data: Record<string, unknown>;
}

/** The `welcome` control frame: the first message of every connection. */
export interface WelcomeFrame extends ControlFrame {
  event: 'welcome';
  data: {
    session_id: string;
    user_id: string;
    /** `live`, or `replay` for a replay connection */
    mode: 'live' | 'replay';
    /** user ids present in the session, this one included (empty in replay) */
    participants: string[];
    /** live: the name others see for this connection (its user_id when none was given) */
    display_name?: string;
    /** live: false for a guest of a watch-only join link (media refused, chat allowed) */
    can_publish?: boolean;
    /** live: the name to show for each user id present */
    names?: Record<string, string>;
  };
}

/**
 * Client → server: publish to a stream; with `id`, the server acks once it is durably written
 * (`ack` with its `seq`). A reduced `layer` (1 or 2) is relayed, not recorded: its ack has no `seq`.
 */
export interface PublishFrame {
  type: 'publish';
  stream_type: string;
  timestamp_ms?: number;
  body: string;
  id?: string;
  /** the video layer (cam and screen only); absent: 0 */
  layer?: Layer;
}

/**
 * Client → server: a receiver asks for a key frame of `user_id`'s `track` (its decoder lost the
 * picture). The server forwards it to the publisher, limited as KEYFRAME_REQUEST_INTERVAL_MS says.
 */
export interface KeyframeRequestFrame {
  type: 'keyframe';
  user_id: string;
  track: TrackKind;
}

/** Client → server: stop a media track (emits `track.unpublished`). */
export interface UnpublishFrame {
  type: 'unpublish';
  stream_type: string;
}

export type ServerFrame = MessageFrame | ControlFrame;
export type ClientFrame = PublishFrame | UnpublishFrame | KeyframeRequestFrame;

/** Error codes carried by `control`/`error` messages. */
export const LIVE_ERRORS = {
  BAD_MESSAGE: 'BAD_MESSAGE',
  FORBIDDEN_STREAM: 'FORBIDDEN_STREAM',
  TOO_LARGE: 'TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  BAD_CODEC: 'BAD_CODEC',
  REDACTED: 'REDACTED',
  REPLAY_ONLY: 'REPLAY_ONLY',
  SERVER_ERROR: 'SERVER_ERROR',
  /** the server is draining (restarting): the message was not recorded; send it again once reconnected */
  UNAVAILABLE: 'UNAVAILABLE',
  /** a newer connection of the same user_id joined the session: this one no longer publishes */
  REPLACED: 'REPLACED',
  /**
   * the organisation has no subscription and its free-tier storage is used up: media is refused
   * (chat and director commands are still delivered live, acknowledged `recorded: false`)
   */
  USAGE_LIMITS_EXCEEDED: 'USAGE_LIMITS_EXCEEDED',
  /** a layer other than 0, 1 or 2, or a reduced layer on a track that has none (mic) */
  BAD_LAYER: 'BAD_LAYER',
} as const;

/** WebSocket close codes the server uses. */
export const CLOSE = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  /** the client kept sending invalid messages */
  POLICY_VIOLATION: 1008,
  /** the connection stayed over the hard send-buffer bound: a receiver too slow to keep */
  TRY_AGAIN_LATER: 1013,
  /** the server failed (the join could not be recorded, a replay could not be read) */
  INTERNAL_ERROR: 1011,
  /** the server is draining (restarting) and takes no new joins: connect again, to another server */
  SERVICE_RESTART: 1012,
  /** reserved (the session ended): this server does not send it; clients treat it as final */
  SESSION_ENDED: 4000,
  /**
   * the session's host removed the participant (a `removed` control comes first): final, a client
   * must not reconnect; its tokens issued before the removal are refused (403)
   */
  REMOVED: 4403,
  /**
   * a newer connection of the same user_id joined the session (another tab, another device) and
   * took this one's place: final, a client must not reconnect (it would replace the newer one)
   */
  REPLACED: 4409,
} as const;
