import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { RangeNotSatisfiable } from '../../http/errors.js';
import type { RouteAuth } from '../../http/principal.js';
import { KEY_OR_USER } from '../../http/principal.js';
import type { ExportsService } from './service.js';
import type { Idempotency } from '../../http/idempotency.js';
import { ExportJob, ExportOptions, ExportQuery, ExportQueued, JobParams } from './schemas.js';
import { SessionParams } from '../../http/shared-schemas.js';
import { attachment } from '../../lib/content-disposition.js';

/**
 * The byte range a `Range` header asks for: null to send the whole file (no header, one that is not
 * a single `bytes=` range, or a malformed one, which RFC 9110 says to ignore); throws 416 when the
 * range starts beyond the end.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw new RangeNotSatisfiable(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? Infinity : Number(m[2]);
  if (end < start) return null;
  if (start >= size) throw new RangeNotSatisfiable(size);
  return { start, end: Math.min(end, size - 1) };
}

const ENQUEUE_RULES = `

Renders the recording to one MP4 (H.264 + AAC, \`+faststart\`, constant 15 fps, or 30 fps when a camera was recorded faster than 20 fps): 1280x720 (\`landscape\`) or 720x1280 (\`vertical\`), or 1920x1080 and 1080x1920 with \`resolution=1080p\`; or with \`format=m4a\` to the sound alone. A clip (\`from_ts\`, \`to_ts\`) covers that span of the session's clock; each video in it starts from the key frame before its start, read from up to 3 s earlier (a camera whose key frames are further apart shows its name until its next one). Every camera and screen share is a tile; every microphone is mixed into the one audio track, mono when every microphone was recorded in mono and stereo when any was recorded with two or more channels (a mono voice is then heard in both). Each frame is placed at its recorded time from the first media frame of the session, so late joiners and gaps are where they happened; while a participant's camera is off (unpublished, or nothing sent for 10 s) or before they joined, their tile shows their name on a coloured background; a shorter gap in a camera holds its last picture. The MP4 lasts from the first to the last recorded media frame, less the spans in which recording was paused: those are cut out, every track at once, so that sound and pictures stay in sync across each cut (a camera recorded on both sides of one is not taken for off), and a join, leave or focus change made while paused shows from the cut on; with \`keep_gaps=true\` they are kept, showing names and silence. A track that ffmpeg cannot decode at all fails the job (\`error\`, \`error_log\`); it is not left out silently. A render that takes longer than \`EXPORT_DEADLINE_BASE_S\` (120 s) plus \`EXPORT_DEADLINE_FACTOR\` (3) times the recorded span is stopped and fails with an \`error\` that says so, so that no recording holds the export queue; message timestamps are bounded too (\`LIVE_CLOCK_SKEW_S\`), so that no participant's clock stretches the span.

\`presenter\`: the large tile shows a screen share while one is on (the latest started), else the \`focus\` participant, or, without \`focus\`, the participant named by the recording's latest \`director.focus\` command (commands naming someone without video are ignored), starting with the first participant with video; the strip shows everyone else.

Answers 202 with the job id at once; the job runs in a worker (the server by default, or \`npm run worker\`), \`EXPORT_CONCURRENCY\` at a time per process. Workers take turns between organisations: one organisation runs at most \`EXPORT_RUNNING_PER_ORG\` (2) renders at once, and a free worker takes the organisation with the fewest running, then the one served longest ago. At most \`EXPORT_QUEUE_PER_ORG\` (20) exports of an organisation are queued or rendering at once, auto-exports included: past it, 429 \`RATE_LIMITED\` with \`Retry-After\` (nothing is queued). 404 for a session that is missing or in another project; 409 while the session is live (export it once it has ended) or when nothing was recorded; 400 naming the parameter for a bad \`layout\`, \`orientation\`, \`resolution\`, \`format\`, \`names\`, \`focus\`, \`from_ts\`, \`to_ts\` or \`keep_gaps\` (\`focus\` must be a participant with video, and is accepted with \`layout=presenter\` only; \`to_ts\` must be after \`from_ts\`; a clip wholly before or after the recording is refused); 503 \`USAGE_LIMITS_EXCEEDED\` when the organisation is over its free tier without a subscription. A dashboard user's request must come from the dashboard's origin (it creates a job although it is a GET). Honours \`Idempotency-Key\`.`;

/** The download's body: bytes, streamed from the file. */
const Mp4 = Type.Unsafe<Readable>({ type: 'string', format: 'binary' });

/** What every download answer carries besides the bytes. */
const DOWNLOAD_HEADERS = {
  'Content-Disposition': Type.String({
    description:
      "The file named after the session: `attachment; filename=\"{ASCII name}\"; filename*=UTF-8''{name, percent-encoded}`. The name is the session's (characters no file name may hold, such as `/` or `:`, as spaces; `Untitled session` when it has none), then for the whole recording the day it started (UTC), e.g. `Weekly sync 2026-11-28.mp4`, and for a clip (`from_ts`, `to_ts`) its span as hours, minutes and seconds from the recording's start, e.g. `Weekly sync 00-01-05–00-02-10.mp4`; `.m4a` for `format=m4a`. `filename` spells it in ASCII (accents dropped, other characters as `_`, the dash as `-`).",
  }),
  ETag: Type.String({ description: 'names this rendering: send it back in `If-Range`' }),
  'Accept-Ranges': Type.String({ enum: ['bytes'] }),
  'Content-Length': Type.Integer({ description: 'bytes in this answer' }),
};

/** The enqueue creates a job although it is a GET: cookie callers get the CSRF check of writes. */
const ENQUEUE_AUTH: RouteAuth = { accept: ['api_key', 'user'], csrf: true };

/** What the exports routes need. */
export interface ExportsRoutesOptions {
  idempotency: Idempotency;
  exports: ExportsService;
}

/** How long a download's presigned URL (`redirect=true`) stays valid. */
const PRESIGNED_TTL_S = 300;

const DownloadQuery = Type.Object(
  {
    redirect: Type.Boolean({
      default: false,
      description: `With object storage configured (\`S3_BUCKET\`): answer 302 with \`Location\` a presigned URL of the MP4 in the bucket, valid for ${PRESIGNED_TTL_S / 60} minutes, which serves the same bytes (and \`Range\`) straight from the bucket. Without object storage the file is sent as usual.`,
    }),
  },
  { additionalProperties: false },
);

/** MP4 export: enqueue, poll, download. */
export const exportsRoutes: FastifyPluginAsyncTypebox<ExportsRoutesOptions> = async (app, deps) => {
  const { exports } = deps;
  const tags = ['Exports'];

  app.get(
    '/v1/sessions/:sessionId/export',
    {
      config: { auth: ENQUEUE_AUTH, idempotent: true },
      schema: {
        tags,
        operationId: 'enqueueExport',
        summary: 'Export a session to MP4 (query form)',
        description: `Queues an export job, with its options in the query; \`POST /v1/sessions/{sessionId}/exports\` takes the same options as a JSON body and is the documented way. The idempotency key's scope is the credential, the path and the query.${ENQUEUE_RULES}`,
        params: SessionParams,
        querystring: ExportQuery,
        response: { 202: okResponse('Queued: poll the job with `getExport`.', ExportQueued) },
      },
    },
    async (request, reply) => {
      // Idempotency compares request bodies; this GET's "body" is its query, with the defaults
      // filled in, in one order: \`?keep_gaps=false\` asks what leaving it out asks.
      const q = request.query;
      request.body = Object.fromEntries(Object.entries(q).sort(([x], [y]) => x.localeCompare(y)));
      return deps.idempotency.run(request, reply, async (trx) => ({
        status: 202,
        body: ok(await exports.enqueue(trx, request.principal!, request.params.sessionId, request.query)),
      }));
    },
  );

  app.post(
    '/v1/sessions/:sessionId/exports',
    {
      config: { auth: ENQUEUE_AUTH, idempotent: true },
      schema: {
        tags,
        operationId: 'createExport',
        summary: 'Export a session',
        description: `Queues an export job with the options in a JSON body (every field optional; unknown fields are refused). The idempotency key's scope is the credential, the path and the body.${ENQUEUE_RULES}`,
        params: SessionParams,
        body: ExportOptions,
        response: { 202: okResponse('Queued: poll the job with `getExport`.', ExportQueued) },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 202,
        body: ok(
          await exports.enqueue(trx, request.principal!, request.params.sessionId, request.body, 'body'),
        ),
      })),
  );

  app.get(
    '/v1/sessions/:sessionId/exports',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listSessionExports',
        summary: "A session's exports",
        description:
          'Every export of the session, newest first, each as `GET /v1/exports/{jobId}` shows it (withdrawn ones after a redaction included, as `failed` with the reason). Not paged: a session has few exports. Another project’s session, like an unknown one, is 404.',
        params: SessionParams,
        response: { 200: okResponse('Every export of the session, newest first.', Type.Array(ExportJob)) },
      },
    },
    async (request) => ok(await exports.ofSession(request.principal!, request.params.sessionId)),
  );

  app.get(
    '/v1/exports/:jobId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getExport',
        summary: 'An export job',
        description:
          'The job and where it stands. A failed job keeps `error` and, when ffmpeg failed, `error_log` (the end of its log). Another project’s job, like an unknown one, is 404.',
        params: JobParams,
        response: { 200: okResponse('The export job.', ExportJob) },
      },
    },
    async (request) => ok(await exports.get(request.principal!, request.params.jobId)),
  );

  app.get(
    '/v1/exports/:jobId/download',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'downloadExport',
        summary: 'Download an export',
        description:
          'The MP4 (`Content-Type: video/mp4`), or for `format=m4a` the sound (`audio/mp4`), as an attachment (`Content-Disposition`), once the job is `completed`; 409 `CONFLICT` before that (and for a failed job), 404 for an unknown job or another project’s, and for an export withdrawn because a participant it shows was redacted (its file is deleted). Honours a single `Range: bytes=…` (206 with `Content-Range`; 416 when it starts past the end; other forms get the whole file) and `If-Range` with the `ETag`. A file is only ever served complete: renders write to a temporary name and store it under its final name when done. With object storage configured the file is in the bucket, and every server process serves it (streamed through the server, or with `redirect=true` a 302 to a short-lived presigned URL).',
        params: JobParams,
        querystring: DownloadQuery,
        response: {
          200: {
            description: 'The whole MP4.',
            content: { 'video/mp4': { schema: Mp4 }, 'audio/mp4': { schema: Mp4 } },
            headers: DOWNLOAD_HEADERS,
          },
          302: {
            description: `With \`redirect=true\` and object storage configured: the MP4's presigned URL in the bucket, valid for ${PRESIGNED_TTL_S / 60} minutes.`,
            type: 'null',
            headers: { Location: Type.String({ description: 'the presigned URL' }) },
          },
          206: {
            description: 'The requested byte range of the MP4.',
            content: { 'video/mp4': { schema: Mp4 }, 'audio/mp4': { schema: Mp4 } },
            headers: {
              ...DOWNLOAD_HEADERS,
              'Content-Range': Type.String({ description: '`bytes {start}-{end}/{size}`' }),
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { job, size, filename } = await exports.file(request.principal!, request.params.jobId);
      const audio = job.format === 'm4a';
      if (request.query.redirect) {
        const url = await exports.downloadUrl(job.job_id, PRESIGNED_TTL_S, filename);
        if (url)
          return reply.code(302).header('location', url).header('cache-control', 'no-store').send(null);
      }
      const etag = `"${job.job_id}-${job.attempts}-${size}"`;
      const ifRange = request.headers['if-range'];
      const range = ifRange === undefined || ifRange === etag ? byteRange(request.headers.range, size) : null;
      reply
        .header('content-type', audio ? 'audio/mp4' : 'video/mp4')
        .header('content-disposition', attachment(filename))
        .header('accept-ranges', 'bytes')
        .header('etag', etag)
        .header('cache-control', 'private, no-cache');
      if (!range) {
        reply.header('content-length', size);
        return reply.send(await exports.open(job.job_id));
      }
      reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
        .header('content-length', range.end - range.start + 1);
      return reply.send(await exports.open(job.job_id, range));
    },
  );
};
