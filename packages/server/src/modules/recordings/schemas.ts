import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schema-types.js';

export const PlaybackQuery = Type.Object({
  from_ts: Type.Integer({ minimum: 0, description: 'start of reading, ms since 1970' }),
  window_size: Type.Integer({
    minimum: 1,
    maximum: 300_000,
    default: 30_000,
    description: 'ms, 1 to 300000 (default 30000)',
  }),
  base_seq: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'continue from this seq: the `next_base_seq` of the previous answer',
    }),
  ),
});

/** A replay link's token, on the public routes that a link also opens. */
export const LinkQuery = Type.Object({
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'replay link token' })),
});

export const ReplayQuery = Type.Composite([
  Type.Omit(PlaybackQuery, ['from_ts']),
  Type.Object({
    from_ts: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "start of reading, ms since 1970; default: the recording's first event, so that a replay link opens as returned",
      }),
    ),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'replay link token' })),
  }),
]);

export const PlaybackWindow = Type.Object(
  {
    events: Type.Array(
      Type.Object(
        {
          seq: Type.Integer(),
          timestamp_ms: Type.Integer(),
          stream_id: Type.String(),
          body_base64: Type.String(),
        },
        { title: 'PlaybackEvent' },
      ),
    ),
    base_seq: Type.Integer({ description: 'the seq this read started from' }),
    next_base_seq: Nullable(Type.Integer(), {
      description:
        'pass as base_seq (from_ts unchanged) for the rest; null when the recording holds nothing further',
    }),
  },
  { title: 'PlaybackWindow' },
);

export const TimelineMeta = Type.Object(
  {
    participant_count: Type.Integer({
      description:
        'participants with recorded media, as the manifest lists them: a redacted participant is not counted',
    }),
    stream_ids: Type.Array(Type.String()),
    total_events_estimated: Type.Integer(),
    min_ts: Type.Integer(),
    max_ts: Type.Integer(),
  },
  { title: 'PlaybackTimeline' },
);

const Track = Type.Object(
  {
    kind: Type.Union([Type.Literal('cam'), Type.Literal('mic'), Type.Literal('screen')]),
    stream_id: Type.String(),
    start_ts: Type.Integer({ description: 'its first recorded timestamp, ms since 1970' }),
    end_ts: Type.Integer({ description: 'its last recorded timestamp, ms since 1970' }),
    segments: Type.Array(
      Type.Object({ start_ts: Type.Integer(), end_ts: Type.Integer() }, { title: 'RecordedSegment' }),
      {
        description:
          'the intervals in which it was recorded, in order: one from start_ts to end_ts, unless recording was paused (`pauseRecording`) or the recording rules left the track out for a while (`setRecordingRules`); replay skips paused intervals and the export leaves them out',
      },
    ),
  },
  { title: 'ManifestTrack' },
);

export const Manifest = Type.Object(
  {
    version: Type.Literal(1),
    session_id: Type.String(),
    session_name: Type.String({
      description: "the session's name (empty when it has none), so that a player can say what it plays",
    }),
    epoch: Type.Integer(),
    start_ts: Type.Integer({ description: 'the first recorded timestamp, ms since 1970' }),
    end_ts: Type.Integer({
      description:
        'the last recorded timestamp, ms since 1970; timeline events written after the session ended (recording.ready, export.completed, a redaction) do not extend it',
    }),
    participants: Type.Array(
      Type.Object(
        {
          user_id: Type.String(),
          display_name: Type.String({
            description: 'the name they last joined with, or their user_id when they gave none',
          }),
          tracks: Type.Array(Track),
        },
        { title: 'ManifestParticipant' },
      ),
    ),
    streams: Type.Object({ events: Type.String(), chat: Type.String(), director: Type.String() }),
    capabilities: Type.Array(Type.String()),
  },
  { title: 'Manifest' },
);

export const TimelineEvent = Type.Object(
  {
    seq: Type.Integer(),
    v: Type.Integer(),
    type: Type.String(),
    ts: Type.Integer(),
    actor: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'TimelineEvent' },
);

export const CreateReplayLink = Type.Object(
  {
    expires_in_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 43_200,
        description: '1 to 43200 (30 days); default 1440 (one day)',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateReplayLinkRequest' },
);

export const ReplayLink = Type.Object(
  {
    id: Type.String({ description: 'names the link to revoke it alone (`DELETE …/replay-links/{linkId}`)' }),
    link: Type.String({ description: '{base_url}/v1/public/sessions/{sessionId}/replay?token={token}' }),
    token: Type.String(),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ReplayLink' },
);

/** A replay link as listed: never its token, which is kept only hashed. */
export const ListedReplayLink = Type.Object(
  {
    id: Type.String(),
    session_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time', description: 'in the past once it has expired' }),
  },
  { title: 'ListedReplayLink' },
);

/** `:sessionId/replay-links/:linkId` in a path. */
export const ReplayLinkParams = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  linkId: Type.String({ format: 'uuid' }),
});

export const RevokedLinks = Type.Object(
  { session_id: Type.String(), revoked: Type.Integer({ description: 'how many links were revoked' }) },
  { title: 'RevokedReplayLinks' },
);

export const RedactParams = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  userId: Type.String({ minLength: 1, maxLength: 128 }),
});
export const RedactQuery = Type.Object({
  include_chat: Type.Boolean({
    default: false,
    description: "also replace the participant's chat bodies with a redaction marker",
  }),
});
export const Redacted = Type.Object(
  {
    redacted: Type.String({ description: 'the redacted participant' }),
    deletedStreams: Type.Integer({ description: 'how many of their media streams were deleted' }),
  },
  { title: 'RedactedParticipant' },
);
