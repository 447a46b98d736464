import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { SessionsTable, StoryboardsTable } from '../../db/types.js';
import { NotFound } from '../../http/errors.js';
import type { RouteAuth } from '../../http/principal.js';
import { SessionParams } from '../../http/shared-schemas.js';
import type { RecordingsService } from '../recordings/service.js';
import type { StoryboardsService } from './storyboard-jobs.js';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../../lib/time.js';

/** What the storyboard routes need. */
export interface StoryboardRoutesOptions {
  recordings: Pick<RecordingsService, 'readable' | 'replayable'>;
  storyboards: StoryboardsService;
}

/** The playback routes' access: a key or a login cookie, or nothing for a public session. */
const KEY_OR_PUBLIC: RouteAuth = { accept: ['api_key', 'user'], anonymous: true };

const LinkQuery = Type.Object({
  token: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "a replay link's token: opens the storyboard of that session, public or not, while the link is valid",
    }),
  ),
});

const WHAT =
  "A storyboard is a JPEG sprite of thumbnails (160x90, the grid of everyone with video, without names), `columns` to a row, one every N seconds of the recording: N is 2, or the whole number of seconds that keeps a recording to at most 200 thumbnails. It is made once the recording is ready (`recording.ready`), and made again after a participant is redacted (the previous sprite is deleted at once). Times are those of the player's time bar: offsets from the recording's start (the manifest's `start_ts`), on the session's own clock, paused spans included (their thumbnails show no video); a thumbnail shows the picture at the middle of its cue. ";
const VTT =
  "The storyboard's WebVTT (`text/vtt`): `WEBVTT`, then one cue per thumbnail, `HH:MM:SS.mmm --> HH:MM:SS.mmm` and `storyboard.jpg#xywh=x,y,w,h` (the thumbnail's place in the sprite). The cues follow one another with no gap from 0 and cover the whole recording. The sprite's address is relative, with the query of this request (a replay link's `token`), so that a client resolving it against this URL reads the sprite with the same access. ";
const JPG = "The storyboard's sprite (`image/jpeg`), whose thumbnails the WebVTT cues point at. ";
const MISSING =
  '404 `NOT_FOUND` while there is none, the message saying why: not made yet (the recording is not ready, or the storyboard is being made), the recording has no video (no camera, no screen: never one), or making it failed (with the reason). Answers carry `ETag` (revalidate with `If-None-Match`: 304) and `Cache-Control: private, no-cache`; a 404 is `no-store`.';
const KEY_ACCESS =
  " Access as playback (`getPlaybackWindow`): an API key or a login cookie for a session of its project; without credentials, public sessions only (401 otherwise). Another project's session, like an unknown one, is 404.";
const PUBLIC_ACCESS =
  " Access as the public replay (`getReplayWindow`): with `token` (a replay link's), that session, public or not, until the link expires or is revoked (401 after); without one, public sessions only (404 otherwise).";

const vttResponse = {
  200: {
    description: 'The WebVTT.',
    content: { 'text/vtt': { schema: Type.String() } },
    headers: { ETag: Type.String({ description: 'names this making of the storyboard' }) },
  },
};
const jpgResponse = {
  200: {
    description: 'The JPEG sprite.',
    content: { 'image/jpeg': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } },
    headers: { ETag: Type.String({ description: 'names this making of the storyboard' }) },
  },
};

/** `HH:MM:SS.mmm` of ms. */
export function vttTime(ms: number): string {
  const p = (n: number, w = 2) => String(Math.floor(n)).padStart(w, '0');
  return `${p(ms / HOUR_MS)}:${p((ms / MINUTE_MS) % 60)}:${p((ms / SECOND_MS) % 60)}.${p(ms % 1000, 3)}`;
}

/** The WebVTT of a storyboard: a cue per thumbnail, pointing at `image` (a relative URL) with `#xywh=`. */
export function storyboardVtt(row: StoryboardsTable, image: string): string {
  const lines = ['WEBVTT', ''];
  for (let k = 0; k < row.count; k++) {
    const x = (k % row.columns) * row.tile_w;
    const y = Math.floor(k / row.columns) * row.tile_h;
    lines.push(
      `${vttTime(k * row.interval_ms)} --> ${vttTime((k + 1) * row.interval_ms)}`,
      `${image}#xywh=${x},${y},${row.tile_w},${row.tile_h}`,
      '',
    );
  }
  return lines.join('\n');
}

/**
 * A session's storyboard (`storyboard.vtt` and `storyboard.jpg`), under the playback routes'
 * access (`/v1/sessions/…`) and the public replay's (`/v1/public/sessions/…`, with a link's token).
 */
export const storyboardRoutes: FastifyPluginAsyncTypebox<StoryboardRoutesOptions> = async (app, deps) => {
  const { recordings, storyboards } = deps;

  /** The completed storyboard of a session, or 404 saying why there is none. */
  async function made(session: SessionsTable): Promise<StoryboardsTable> {
    const state = await storyboards.state(session);
    if (state.status === 'completed') return state.row;
    if (state.status === 'failed') throw new NotFound(`no storyboard: ${state.error ?? 'making it failed'}`);
    throw new NotFound(
      'the storyboard is not made yet: it is made once the recording is ready, and again after a redaction; try again shortly',
    );
  }

  /** Sends one of the storyboard's two files, with its ETag (304 when the client has it). */
  async function send(
    request: FastifyRequest,
    reply: FastifyReply,
    session: SessionsTable,
    file: 'vtt' | 'jpg',
    token?: string,
  ) {
    let row: StoryboardsTable;
    try {
      row = await made(session);
    } catch (err) {
      reply.header('cache-control', 'no-store');
      throw err;
    }
    const etag = `"sb-${row.created_at}-${file}"`;
    reply.header('etag', etag).header('cache-control', 'private, no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    if (file === 'vtt') {
      const image =
        token === undefined ? 'storyboard.jpg' : `storyboard.jpg?token=${encodeURIComponent(token)}`;
      return reply.type('text/vtt; charset=utf-8').send(storyboardVtt(row, image));
    }
    const bytes = await storyboards.sprite(row);
    if (!bytes) {
      reply.header('cache-control', 'no-store').removeHeader('etag');
      throw new NotFound('the storyboard is being made again; try again shortly');
    }
    return reply.type('image/jpeg').send(bytes);
  }

  const tags = ['Recordings'];
  for (const file of ['vtt', 'jpg'] as const) {
    const vtt = file === 'vtt';
    app.get(
      `/v1/sessions/:sessionId/storyboard.${file}`,
      {
        config: { auth: KEY_OR_PUBLIC },
        schema: {
          tags,
          operationId: vtt ? 'getStoryboardVtt' : 'getStoryboardSprite',
          summary: vtt ? "The storyboard's WebVTT" : "The storyboard's sprite",
          description: (vtt ? VTT : JPG) + WHAT + MISSING + KEY_ACCESS,
          params: SessionParams,
          response: vtt ? vttResponse : jpgResponse,
        },
      },
      async (request, reply) =>
        send(request, reply, await recordings.readable(request.principal, request.params.sessionId), file),
    );
    app.get(
      `/v1/public/sessions/:sessionId/storyboard.${file}`,
      {
        config: { auth: 'public', cors: true },
        schema: {
          tags: ['Public'],
          operationId: vtt ? 'getPublicStoryboardVtt' : 'getPublicStoryboardSprite',
          summary: vtt
            ? "The storyboard's WebVTT, public or through a replay link"
            : "The storyboard's sprite, public or through a replay link",
          description: (vtt ? VTT : JPG) + WHAT + MISSING + PUBLIC_ACCESS,
          params: SessionParams,
          querystring: LinkQuery,
          response: vtt ? vttResponse : jpgResponse,
        },
      },
      async (request, reply) =>
        send(
          request,
          reply,
          await recordings.replayable(request.params.sessionId, request.query.token),
          file,
          request.query.token,
        ),
    );
  }
};
