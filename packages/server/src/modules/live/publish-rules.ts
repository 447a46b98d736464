import { LIVE_ERRORS, isLayerOf, mediaProblem, parseMediaStream } from '@vss/protocol';
import type { LiveSession } from './connection.js';
import { isUserId } from './schemas.js';
import type { LiveStore } from './store.js';
import {
  TEXT_BYTES_BURST,
  TEXT_BYTES_PER_S,
  TEXT_MESSAGES_BURST,
  TEXT_MESSAGES_PER_S,
} from './text-budget.js';
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
  /**
   * chat or a director command that is delivered live but not recorded: the organisation's storage
   * is used up, or the session's text is over its budget
   */
  unrecorded?: boolean;
  /** the participant a `director.focus` names: the caller checks that they are of the session */
  focus?: string;
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
    /** whether media that is relayed only (a reduced layer) may pass the storage gate */
    relay: () => boolean;
    /** whether the connection may send one more chat or director message of this many bytes (counted when so) */
    textRate: (bytes: number) => boolean;
    /**
     * whether this many more bytes of chat or director commands are recorded: within the session's
     * budget and the organisation's storage (counted when so)
     */
    storeText: (bytes: number) => boolean;
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
    // A reduced layer is relayed, not recorded: it takes no storage, but stops with the media
    // that does.
    if (msg.layer ? !may.relay() : !may.store(msg.payload.length))
      throw new Refusal(
        LIVE_ERRORS.USAGE_LIMITS_EXCEEDED,
        "the organisation's free-tier storage is used up: media is not recorded (nor relayed, in any layer) until it subscribes; chat and director commands are still delivered live, not recorded",
      );
    return { streamId: msg.streamType, body: msg.payload, ts, isMedia: true };
  }
  if (msg.streamType === 'chat') {
    const data = parseJson(msg.payload);
    if (!data || typeof data.text !== 'string' || data.text.length === 0)
      throw new Refusal(LIVE_ERRORS.BAD_MESSAGE, 'a chat payload is JSON { "text": "…" }');
    if (data.text.length > MAX_CHAT_CHARS)
      throw new Refusal(LIVE_ERRORS.TOO_LARGE, `chat text is limited to ${MAX_CHAT_CHARS} characters`);
    return text(may, {
      streamId: 'chat',
      body: envelopeBytes('chat.message', ts, userId, { text: data.text }),
      ts,
      isMedia: false,
    });
  }
  if (msg.streamType === 'director') {
    const cmd = parseJson(msg.payload);
    const data = cmd?.data as Record<string, unknown> | undefined;
    if (cmd?.type === 'director.layout' && (data?.layout === 'grid' || data?.layout === 'presenter'))
      return text(may, {
        streamId: 'director',
        body: envelopeBytes('director.layout', ts, userId, { layout: data.layout }),
        ts,
        isMedia: false,
      });
    if (cmd?.type === 'director.focus' && typeof data?.user_id === 'string') {
      // Why: the focus is written into the recording; any string would make the director stream a
      // channel for arbitrary text.
      if (!isUserId(data.user_id))
        throw new Refusal(
          LIVE_ERRORS.BAD_MESSAGE,
          'data.user_id of director.focus must be the user_id of a participant of this session',
        );
      return {
        ...text(may, {
          streamId: 'director',
          body: envelopeBytes('director.focus', ts, userId, { user_id: data.user_id }),
          ts,
          isMedia: false,
        }),
        focus: data.user_id,
      };
    }
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

/**
 * Chat and director commands: within the connection's rate, and recorded while the session's
 * budget and the organisation's storage allow (delivered live either way).
 */
function text(
  may: { textRate: (n: number) => boolean; storeText: (n: number) => boolean },
  a: Accepted,
): Accepted {
  if (!may.textRate(a.body.length))
    throw new Refusal(
      LIVE_ERRORS.RATE_LIMITED,
      `chat and director commands are limited to ${TEXT_MESSAGES_PER_S} messages and ${TEXT_BYTES_PER_S / 1024} KiB a second per connection (${TEXT_MESSAGES_BURST} messages and ${TEXT_BYTES_BURST / 1024} KiB at once): send it again in a moment`,
    );
  return may.storeText(a.body.length) ? a : { ...a, unrecorded: true };
}

/**
 * Refuses unless `userId` is a participant of the session: connected here, or joined it at some time in
 * any process. The second is a read of the presence rows, so a `director.focus` on someone
 * elsewhere may be ordered after its sender's next messages; director commands are rare, and that
 * is harmless.
 */
export async function mustBeInSession(
  store: Pick<LiveStore, 'participated'>,
  live: LiveSession,
  userId: string,
): Promise<void> {
  for (const m of live.members.values()) if (m.conn.userId === userId) return;
  if (await store.participated(live.session.id, userId)) return;
  throw new Refusal(
    LIVE_ERRORS.BAD_MESSAGE,
    `data.user_id of director.focus must be the user_id of a participant of this session ("${userId}" never joined it)`,
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
