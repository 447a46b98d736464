import { RecordingRuleSchema } from './recording-schemas.js';
import { LIVE_ERRORS, type ControlEvent } from '@vss/protocol';
import { Type, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../../http/schema-types.js';

/*
 * The WebSocket's messages (docs/protocol.md), for the OpenAPI document: the gateway reads and
 * writes them itself (wire.ts, frames.ts), so these schemas check nothing at run time.
 */

const Base64 = (description: string) => Type.String({ contentEncoding: 'base64', description });
const ServerClock = Type.Integer({ description: "ms since 1970, the server's clock" });
const LIVE_ERROR_CODES = Object.values(LIVE_ERRORS);

export const LivePublish = Type.Object(
  {
    type: Type.Literal('publish'),
    stream_type: Type.String({
      description:
        '`media/<own user_id>/cam`, `…/mic` or `…/screen`, `chat` or `director`; the first publish on a media stream emits `track.published`',
    }),
    timestamp_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "ms since 1970 on the media clock; default the server's clock. Refused (`BAD_MESSAGE`) when further than `LIVE_CLOCK_SKEW_S` (default 120 s) from the server's clock, ahead or behind: a participant's clock cannot stretch the recording.",
      }),
    ),
    body: Base64(
      'base64 of the payload: one JPEG or EVC1 video chunk (cam, screen), one EVC1 audio chunk (mic), a `LiveChatPayload` or a `LiveDirectorCommand` (UTF-8 JSON)',
    ),
    id: Type.Optional(
      Type.Union([Type.String(), Type.Integer()], {
        description: 'asks for an `ack` once the message is durably written (or an `error` naming it)',
      }),
    ),
    layer: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2,
        description:
          'the video layer (cam and screen only; default 0). Layer 0 is the full picture, the one recorded; 1 and 2 are reduced copies (about half and a quarter of its size) relayed live to receivers whose link cannot carry more, never recorded: their `ack` has no `seq`. Anything else is refused with `BAD_LAYER`.',
      }),
    ),
  },
  {
    title: 'LivePublish',
    description: 'Client → server: publish to a stream. At most 2 MiB for media, 64 KiB otherwise.',
  },
);

export const LiveUnpublish = Type.Object(
  {
    type: Type.Literal('unpublish'),
    stream_type: Type.String({
      description: '`media/<own user_id>/cam|mic|screen`: a track published before',
    }),
  },
  { title: 'LiveUnpublish', description: 'Client → server: stop a media track (emits `track.unpublished`).' },
);

export const LiveKeyframeRequest = Type.Object(
  {
    type: Type.Literal('keyframe'),
    user_id: Type.String({ description: 'the publisher' }),
    track: Type.String({ description: '`cam` or `screen`' }),
  },
  {
    title: 'LiveKeyframeRequest',
    description:
      "Client → server: ask for a key frame of a publisher's video track (your decoder lost the picture). One per publisher's track per second is passed on, and a publisher is asked at most once per track and layer every 500 ms however many ask; more are refused with `RATE_LIMITED`, a user or track not being published with `BAD_MESSAGE`. Neither counts toward the 1008 limit.",
  },
);

export const LiveClientMessage = Type.Union([LivePublish, LiveUnpublish, LiveKeyframeRequest], {
  title: 'LiveClientMessage',
  description:
    'What a client sends, as a JSON text frame (or a media publish as a binary frame). Every message counts against 200 per second (400 in a burst); more than 20 invalid ones within 10 s close the connection with 1008.',
});

export const LiveChatPayload = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: 4000 }) },
  {
    title: 'LiveChatPayload',
    description:
      'What a `chat` publish carries in `body` (UTF-8 JSON). Chat and director commands together: 10 messages a second per connection (50 at once) and 16 KiB a second of what they record (64 KiB at once), for everyone, a watch-only guest too; past either, `RATE_LIMITED`.',
  },
);

export const LiveDirectorCommand = Type.Union(
  [
    Type.Object({
      type: Type.Literal('director.layout'),
      data: Type.Object({ layout: Type.Union([Type.Literal('grid'), Type.Literal('presenter')]) }),
    }),
    Type.Object({
      type: Type.Literal('director.focus'),
      data: Type.Object({
        user_id: Type.String({
          minLength: 1,
          maxLength: 128,
          description:
            'someone who has joined the session (now or earlier); any other is refused with `BAD_MESSAGE`',
        }),
      }),
    }),
  ],
  { title: 'LiveDirectorCommand', description: 'What a `director` publish carries in `body` (UTF-8 JSON).' },
);

export const LiveRecordedPayload = Type.Object(
  {
    v: Type.Literal(1),
    type: Type.Union([
      Type.Literal('chat.message'),
      Type.Literal('director.layout'),
      Type.Literal('director.focus'),
    ]),
    ts: Type.Integer({ description: 'ms since 1970' }),
    actor: Type.String({ description: 'the publishing user_id' }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: "`{ text }` for chat, the command's `data` for director",
    }),
  },
  {
    title: 'LiveRecordedPayload',
    description: 'The `body` of a `chat` or `director` message as received (and recorded): UTF-8 JSON.',
  },
);

export const LiveMessage = Type.Object(
  {
    type: Type.Literal('message'),
    stream_type: Type.String(),
    timestamp_ms: Type.Integer({ description: 'ms since 1970, the media clock' }),
    body: Base64('base64 of the payload (for chat and director a `LiveRecordedPayload`)'),
    seq: Type.Integer({
      description:
        "the message's place in the session's one sequence over all streams; 0 for a frame of a reduced video layer (not recorded)",
    }),
  },
  {
    title: 'LiveMessage',
    description:
      "Server → client: recorded data of a stream, from another participant (a publisher never gets its own back), or from the recording on a replay connection. With `format=binary`, media comes as binary frames instead. Live media is paced per receiver: of each publisher's video, the layer its link carries (told by `layer` controls); when the link queues, control and chat overtake audio and audio overtakes video, and video that would wait over 250 ms is skipped to a key frame.",
  },
);

/** A `control` frame's schema; its event is one of the protocol's control events. */
const control = <E extends TSchema & { static: ControlEvent }, D extends TSchema>(
  title: string,
  event: E,
  data: D,
  description: string,
  userId = 'the participant concerned',
) =>
  Type.Object(
    {
      type: Type.Literal('control'),
      event,
      user_id: Type.String({ description: userId }),
      timestamp_ms: ServerClock,
      data,
    },
    { title, description },
  );

const RecordingData = Type.Object(
  {
    state: StringEnum(['recording', 'paused'], {
      description: '`paused`: nothing of the call is being stored (`pauseRecording`) until it is resumed',
    }),
    rules: Type.Array(RecordingRuleSchema, {
      description:
        'the recording rules in force (`setRecordingRules`): what they leave out is relayed live, not stored',
    }),
    hosts: Type.Array(Type.String(), {
      description:
        "the session's hosts, whom a `host` rule matches: the user id of the dashboard member who created it; empty for a session created with a key",
    }),
  },
  { description: 'live: what the session records now' },
);

export const LiveWelcome = control(
  'LiveWelcome',
  Type.Literal('welcome'),
  Type.Object({
    session_id: Type.String(),
    user_id: Type.String(),
    display_name: Type.Optional(
      Type.String({
        description: 'live: the name others see for this connection (its user_id when none was given)',
      }),
    ),
    can_publish: Type.Optional(
      Type.Boolean({
        description: 'live: false for a guest of a watch-only join link (media refused, chat allowed)',
      }),
    ),
    mode: Type.Union([Type.Literal('live'), Type.Literal('replay')]),
    participants: Type.Array(Type.String(), {
      description: 'user ids present in every process (empty on a replay connection)',
    }),
    names: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'live: the name to show for each user id present (`{ user_id: display_name }`)',
      }),
    ),
    recording: Type.Optional(RecordingData),
  }),
  'Sent first, to the new connection alone.',
  'the connecting participant',
);

export const LivePresence = control(
  'LivePresence',
  StringEnum(['join', 'leave']),
  Type.Object({
    display_name: Type.Optional(
      Type.String({ description: '`join` only: the name to show (the user_id when none was given)' }),
    ),
  }),
  'Someone joined or left; sent to everybody else.',
);

export const LiveRemoved = control(
  'LiveRemoved',
  Type.Literal('removed'),
  Type.Object({ message: Type.String() }),
  "The session's host (or the API) removed this participant (`removeParticipant`). The connection has left (the others saw `leave`), and closes with 4403 next. Final: do not reconnect; tokens issued before the removal are refused with 403.",
  'the participant removed',
);

export const LiveTrack = control(
  'LiveTrack',
  StringEnum(['track.published', 'track.unpublished']),
  Type.Object({
    kind: Type.Union([Type.Literal('cam'), Type.Literal('mic'), Type.Literal('screen')]),
    stream_type: Type.String({ description: '`media/<user_id>/<kind>`' }),
  }),
  'A media track started (first publish) or stopped (unpublish, or leaving); sent to everybody else.',
);

export const LiveAck = control(
  'LiveAck',
  Type.Literal('ack'),
  Type.Object({
    id: Type.String({ description: "the publish's `id`, as a string" }),
    seq: Type.Optional(
      Type.Integer({ description: 'absent for a reduced video layer: relayed, not recorded' }),
    ),
    layer: Type.Optional(Type.Integer({ description: 'the reduced layer relayed (1 or 2)' })),
    recorded: Type.Optional(
      Type.Literal(false, {
        description:
          "relayed live but not stored: the recording is paused, or its rules leave this stream out; for chat and director commands also when the organisation's free-tier storage is used up or the session's text is over `LIVE_TEXT_MB_PER_SESSION`",
      }),
    ),
  }),
  'The publish with this `id` is durably written (survives a crash), or relayed when it is not recorded (a reduced video layer; `recorded: false` while paused or left out by the rules); sent to the publisher.',
  'the publisher',
);

export const LiveError = control(
  'LiveError',
  Type.Literal('error'),
  Type.Object({
    code: Type.String({ enum: LIVE_ERROR_CODES }),
    message: Type.String(),
    id: Type.Optional(
      Type.String({ description: "the refused message's `id`, when it had one that could be read" }),
    ),
  }),
  'A message was refused; sent to its sender.',
  'the sender',
);

export const LiveEnd = control(
  'LiveEnd',
  Type.Literal('end'),
  Type.Object({
    reason: Type.String({ description: '`replay finished`' }),
    elapsed_ms: Type.Integer(),
  }),
  'A replay connection played the whole recording; the server then closes with 1000.',
  '`system`',
);

export const LiveRecording = control(
  'LiveRecording',
  Type.Literal('recording'),
  RecordingData,
  'What the session records changed: it was paused or resumed, or its rules changed (`setRecordingRules`). Sent to everybody, in every process, at once; the `welcome` of who joins later says the same. A client shows whether it is being recorded.',
  '`system`',
);

export const LiveSkip = control(
  'LiveSkip',
  Type.Literal('skip'),
  Type.Object({
    from_ts: Type.Integer({ description: 'where the recording was paused, ms since 1970' }),
    to_ts: Type.Integer({ description: 'where it was resumed' }),
    reason: Type.Literal('paused'),
  }),
  'Replay connections: the recording jumps over a span in which recording was paused; it takes no time. Sent before the first message after the span.',
  '`system`',
);

export const LiveReconnect = control(
  'LiveReconnect',
  Type.Literal('reconnect'),
  Type.Object({
    reason: Type.String({ description: '`draining`: this server is stopping (a restart, a deploy)' }),
    message: Type.String(),
  }),
  'This server is draining: every publish it took has been acknowledged or refused, and the connection now closes with 1001. Connect again with a fresh token (the client library does so by itself): behind a load balancer the new connection lands on another server, and the session goes on. Until then, publishes are refused with `UNAVAILABLE` and new connections to this server are closed with 1012.',
  'the participant told',
);

export const LiveReplaced = control(
  'LiveReplaced',
  Type.Literal('replaced'),
  Type.Object({
    message: Type.String(),
  }),
  "A newer connection with the same `user_id` joined the session (another tab or device, in any server process) and took this one's place: one identity has one live connection, so that two sources never publish into one track. This connection has left (the others saw `leave`, then the newer one's `join`); its further publishes are refused with `REPLACED`, and it closes with 4409. Final: do not reconnect, or the newer one would be replaced in turn.",
  'the participant replaced',
);

export const LiveLayer = control(
  'LiveLayer',
  Type.Literal('layer'),
  Type.Object({
    track: StringEnum(['cam', 'screen']),
    layer: Type.Integer({ minimum: 0, maximum: 2 }),
    state: StringEnum(['full', 'reduced', 'stalled'], {
      description:
        '`full`: layer 0; `reduced`: a reduced layer, because what was sent to you queued up; `stalled`: nothing of this track until its next key frame (what was sent to you fell behind)',
    }),
    cause: Type.Optional(
      StringEnum(['link', 'server'], {
        description:
          'why it is not `full` (absent when it is): `server`, the server was busy (its event loop held up 300 ms or more in the last 3 s, as on a busy machine), so the queue need not be your connection\'s doing; `link`, the server was not busy: your connection, or your device reading slowly. Say "slow connection" only for `link`, and only when your own device is not busy either.',
      }),
    ),
  }),
  "What this receiver now gets of a publisher's video track; sent to that receiver alone, when it changes.",
  'the publisher',
);

export const LiveKeyframe = control(
  'LiveKeyframe',
  Type.Literal('keyframe'),
  Type.Object({ track: StringEnum(['cam', 'screen']), layer: Type.Integer({ minimum: 0, maximum: 2 }) }),
  'Encode a key frame on this track and layer now: a receiver switched layers, recovered from a stall, or lost the picture. Sent to the publisher at most once per track and layer every 500 ms.',
  'the publisher (you)',
);

export const LiveControl = Type.Union(
  [
    LiveWelcome,
    LivePresence,
    LiveTrack,
    LiveAck,
    LiveError,
    LiveEnd,
    LiveRecording,
    LiveSkip,
    LiveReconnect,
    LiveReplaced,
    LiveRemoved,
    LiveLayer,
    LiveKeyframe,
  ],
  {
    title: 'LiveControl',
    description: 'Server → client: lifecycle and protocol signals, by `event`.',
  },
);

export const LiveServerMessage = Type.Union([LiveMessage, LiveControl], {
  title: 'LiveServerMessage',
  description: 'What the server sends as JSON text frames.',
});
