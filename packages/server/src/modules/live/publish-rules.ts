import { LIVE_ERRORS, isLayerOf, mediaProblem, parseMediaStream } from '@vss/protocol';
import { envelopeBytes } from './timeline-envelope.js';

/** Chat texts are at most 4000 characters. */
export const MAX_CHAT_CHARS = 4000;

/** A publish as it arrives from a client, JSON or binary alike. */
export interface IncomingPublish {
  streamType: string;
  timestampMs?: number;
  payload: Buffer;
  id?: string;
  /** size of the WebSocket message that carried it */
  wireBytes: number;
  /** the video layer as sent (absent: 0); checked here */
  layer?: number;
}

/** What a valid publish records: the stream, the stored bytes, their time. */
export interface Accepted {
  streamId: string;
  body: Buffer;
  ts: number;
  isMedia: boolean;
}

/** A refusal sent to the publisher as a `control`/`error` message. */
export class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The rules of what a participant may publish, and the one place a publish is validated (its size
 * and rate were admitted at the gateway): a time within `skewMs` of the server's clock, media only under their own user_id, not once redacted,
 * in a codec export can read; chat `{ text }` of 1 to 4000 characters; director commands of the
 * two kinds; a video layer 0 to 2 (reduced layers, 1 and 2, on cam and screen only). Chat and director payloads are recorded in the timeline envelope. Throws a Refusal.
 */
export function acceptPublish(
  publisher: { userId: string; canPublish: boolean },
  redacted: ReadonlySet<string>,
  msg: IncomingPublish,
  may: {
    now: number;
    skewMs: number;
    /** whether the organisation may store this many more bytes of media (counted when so) */
    store: (bytes: number) => boolean;
  },
): Accepted {
  const { now, skewMs } = may;
  const { userId } = publisher;
  // A watch-and-chat guest (a join link with can_publish false) may chat, and nothing else.
  if (!publisher.canPublish && msg.streamType !== 'chat')
    throw new Refusal(
      LIVE_ERRORS.FORBIDDEN_STREAM,
      'this connection may watch and chat only: its join link does not allow publishing',
    );
  const ts = msg.timestampMs ?? now;
  if (!Number.isSafeInteger(ts) || ts < 0)
    throw new Refusal(LIVE_ERRORS.BAD_MESSAGE, 'timestamp_ms must be a non-negative integer');
  // Why: the recording spans its messages' times; a clock far off (or a forged time) would stretch
  // it to days or years, and its export with it.
  if (Math.abs(ts - now) > skewMs)
    throw new Refusal(
      LIVE_ERRORS.BAD_MESSAGE,
      `timestamp_ms must be within ${skewMs / 1000} s of the server's clock (now ${now}); leave it out to use the server's`,
    );
  const media = parseMediaStream(msg.streamType);
  if (media) {
    if (media.userId !== userId)
      throw new Refusal(LIVE_ERRORS.FORBIDDEN_STREAM, 'media may be published only under your own user_id');
    if (redacted.has(userId))
      throw new Refusal(LIVE_ERRORS.REDACTED, 'your media was redacted from this session');
    if (msg.layer !== undefined && !isLayerOf(media.kind, msg.layer))
      throw new Refusal(
        LIVE_ERRORS.BAD_LAYER,
        media.kind === 'mic'
          ? 'layer: a mic track has no layers (only 0)'
          : `layer must be 0, 1 or 2 (got ${msg.layer})`,
      );
    const problem = mediaProblem(media.kind, msg.payload);
    if (problem) throw new Refusal(LIVE_ERRORS.BAD_CODEC, problem);
    // A reduced layer is relayed, not recorded: it takes no storage.
    if (msg.layer) return { streamId: msg.streamType, body: msg.payload, ts, isMedia: true };
    if (!may.store(msg.payload.length))
      throw new Refusal(
        LIVE_ERRORS.USAGE_LIMITS_EXCEEDED,
        "the organisation's free-tier storage is used up: media is not recorded (nor relayed) until it subscribes; chat still is",
      );
    return { streamId: msg.streamType, body: msg.payload, ts, isMedia: true };
  }
  if (msg.streamType === 'chat') {
    const data = parseJson(msg.payload);
    if (!data || typeof data.text !== 'string' || data.text.length === 0)
      throw new Refusal(LIVE_ERRORS.BAD_MESSAGE, 'a chat payload is JSON { "text": "…" }');
    if (data.text.length > MAX_CHAT_CHARS)
      throw new Refusal(LIVE_ERRORS.TOO_LARGE, `chat text is limited to ${MAX_CHAT_CHARS} characters`);
    return {
      streamId: 'chat',
      body: envelopeBytes('chat.message', ts, userId, { text: data.text }),
      ts,
      isMedia: false,
    };
  }
  if (msg.streamType === 'director') {
    const cmd = parseJson(msg.payload);
    const data = cmd?.data as Record<string, unknown> | undefined;
    if (cmd?.type === 'director.layout' && (data?.layout === 'grid' || data?.layout === 'presenter'))
      return {
        streamId: 'director',
        body: envelopeBytes('director.layout', ts, userId, { layout: data.layout }),
        ts,
        isMedia: false,
      };
    if (cmd?.type === 'director.focus' && typeof data?.user_id === 'string' && data.user_id.length > 0)
      return {
        streamId: 'director',
        body: envelopeBytes('director.focus', ts, userId, { user_id: data.user_id }),
        ts,
        isMedia: false,
      };
    throw new Refusal(
      LIVE_ERRORS.BAD_MESSAGE,
      'a director payload is { "type": "director.layout", "data": { "layout": "grid"|"presenter" } } or { "type": "director.focus", "data": { "user_id" } }',
    );
  }
  throw new Refusal(
    LIVE_ERRORS.FORBIDDEN_STREAM,
    `cannot publish to "${msg.streamType}": use media/<your user_id>/cam|mic|screen, chat or director`,
  );
}

function parseJson(bytes: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
