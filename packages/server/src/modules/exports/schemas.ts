import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';
import { LAYOUTS, ORIENTATIONS } from './layout.js';

export const ExportQuery = Type.Object({
  layout: Type.Unsafe<(typeof LAYOUTS)[number]>({
    ...StringEnum(LAYOUTS),
    default: 'grid',
    description:
      '`grid`: every participant with video in one balanced grid. `presenter`: one participant (or a screen share, while it is on) large, the others in a strip.',
  }),
  orientation: Type.Unsafe<(typeof ORIENTATIONS)[number]>({
    ...StringEnum(ORIENTATIONS),
    default: 'landscape',
    description: '`landscape` (1280x720) or `vertical` (720x1280)',
  }),
  focus: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'presenter layout only: the user id of a participant with video (camera or screen) in the session, shown large for the whole export. Without it the large tile follows the recording’s `director.focus` commands, starting with the first participant.',
    }),
  ),
  keep_gaps: Type.Boolean({
    default: false,
    description:
      "What to do with the spans in which the session's recording was paused (`POST /v1/sessions/{sessionId}/recording/pause` to `/resume`), when nothing but the timeline was recorded. `false` (default): they are cut out, so the MP4 is shorter by them and every camera, screen and microphone jumps from the pause to the resume together, in sync. `true`: the MP4 keeps the session's own clock, and shows each paused span as it shows any gap: names on their colours, and silence.",
  }),
});

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
