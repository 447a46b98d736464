import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';
import { FORMATS, LAYOUTS, ORIENTATIONS, RESOLUTIONS } from './layout.js';

/** The options of an export, the same in the GET enqueue's query and the POST's JSON body. */
const OPTIONS = {
  layout: Type.Unsafe<(typeof LAYOUTS)[number]>({
    ...StringEnum(LAYOUTS),
    default: 'grid',
    description:
      "`grid`: every participant with video in one balanced grid. `presenter`: one participant (or a screen share, while it is on) large, the others in a strip. `speaker`: the presenter layout whose large tile follows whoever is speaking, decided from the microphones' sound level (someone must speak for most of a second to take it: a cough does not), starting with the first participant until someone speaks; a screen share still takes it while on.",
  }),
  orientation: Type.Unsafe<(typeof ORIENTATIONS)[number]>({
    ...StringEnum(ORIENTATIONS),
    default: 'landscape',
    description: '`landscape` (1280x720, or 1920x1080 at 1080p) or `vertical` (720x1280, or 1080x1920)',
  }),
  resolution: Type.Unsafe<(typeof RESOLUTIONS)[number]>({
    ...StringEnum(RESOLUTIONS),
    default: '720p',
    description:
      '`720p` (1280x720 or 720x1280) or `1080p` (1920x1080 or 1080x1920: the same layout drawn 1.5 times larger, names included).',
  }),
  format: Type.Unsafe<(typeof FORMATS)[number]>({
    ...StringEnum(FORMATS),
    default: 'mp4',
    description:
      '`mp4`: the pictures and the sound. `m4a`: the sound alone (every microphone mixed, AAC in an MPEG-4 audio file, `audio/mp4`), for transcription or a podcast; no video is read or encoded, so it is made many times faster; it lasts from the first recorded sound to the last (409 when no microphone was recorded), and `layout`, `orientation`, `resolution`, `focus` and `names` do not apply.',
  }),
  focus: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'presenter layout only: the user id of a participant with video (camera or screen) in the session, shown large for the whole export. Without it the large tile follows the recording’s `director.focus` commands, starting with the first participant.',
    }),
  ),
  names: Type.Boolean({
    default: true,
    description:
      "Draw each video tile's name bar: the participant's display name (the user id where none was given). `false` leaves the pictures bare; a tile whose camera is off still shows the name in its middle.",
  }),
  from_ts: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "A clip: where it starts, on the session's clock (ms since 1970, as the timeline, the manifest and replay use). Only that span is read, decoded and encoded, so a minute of an hour costs a minute. Default: the first recorded frame. A clip reaching beyond the recording is cut to it; one wholly outside it is refused.",
    }),
  ),
  to_ts: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'A clip: where it ends (exclusive), ms since 1970; after `from_ts`. Default: the last recorded frame. Paused spans inside a clip are cut out like any other unless `keep_gaps`.',
    }),
  ),
  keep_gaps: Type.Boolean({
    default: false,
    description:
      "What to do with the spans in which the session's recording was paused (`POST /v1/sessions/{sessionId}/recording/pause` to `/resume`), when nothing but the timeline was recorded. `false` (default): they are cut out, so the MP4 is shorter by them and every camera, screen and microphone jumps from the pause to the resume together, in sync. `true`: the MP4 keeps the session's own clock, and shows each paused span as it shows any gap: names on their colours, and silence.",
  }),
};

export const ExportQuery = Type.Object(OPTIONS);

/** The same options as a JSON body: nothing else is accepted. */
export const ExportOptions = Type.Object(OPTIONS, { additionalProperties: false, title: 'ExportOptions' });

export const ExportQueued = Type.Object({
  job_id: Type.String({ format: 'uuid', description: 'poll GET /v1/exports/{jobId}' }),
});

export const JobParams = Type.Object({ jobId: Type.String({ format: 'uuid' }) });

export const ExportJob = Type.Object(
  {
    job_id: Type.String({ format: 'uuid' }),
    status: StringEnum(['queued', 'processing', 'completed', 'failed'] as const, {
      description:
        '`queued` → `processing` → `completed` | `failed`. A job whose worker stopped or died stays `processing` until another worker takes it up (after `EXPORT_LEASE_S`); at most 3 attempts.',
    }),
    room_id: Type.String({ description: 'the session id' }),
    download_url: Type.String({ description: 'the download operation; it answers 409 until `completed`' }),
    layout: StringEnum(LAYOUTS),
    orientation: StringEnum(ORIENTATIONS),
    focus: Nullable(Type.String(), { description: 'as asked; null when the layout follows the director' }),
    keep_gaps: Type.Boolean({
      description: 'as asked: true when the paused spans are kept in the MP4, false when they are cut out',
    }),
    format: StringEnum(FORMATS, { description: '`mp4`, or `m4a` for the sound alone' }),
    resolution: StringEnum(RESOLUTIONS),
    names: Type.Boolean({ description: 'as asked: whether the tiles carry name bars' }),
    from_ts: Nullable(Type.Integer(), {
      description: "a clip's start as asked (ms since 1970); null: the start",
    }),
    to_ts: Nullable(Type.Integer(), { description: "a clip's end as asked (ms since 1970); null: the end" }),
    auto: Type.Boolean({
      description: "true when the project's auto-export made it (`PUT /v1/projects/{projectId}/auto-export`)",
    }),
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'share of the current attempt rendered' }),
    attempts: Type.Integer({ description: 'render attempts started so far' }),
    size_bytes: Nullable(Type.Integer(), { description: 'of the MP4, once completed' }),
    duration_ms: Nullable(Type.Integer(), { description: 'of the MP4, once completed' }),
    error: Nullable(Type.String(), { description: 'why the job failed (or why the last attempt did)' }),
    error_log: Nullable(Type.String(), {
      description: 'the end of ffmpeg’s log when ffmpeg failed (paths under DATA_DIR shown as $DATA_DIR)',
    }),
    created_at: Type.String({ format: 'date-time' }),
    started_at: Nullable(Type.String({ format: 'date-time' }), {
      description: 'when the current (or last) attempt started',
    }),
    completed_at: Nullable(Type.String({ format: 'date-time' }), {
      description: 'when it completed or failed',
    }),
  },
  { title: 'ExportJob' },
);
