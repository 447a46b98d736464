import { wantsHtml, type HtmlPage } from '../../http/html-page.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import type { RouteAuth } from '../../http/principal.js';
import { KEY_OR_USER } from '../../http/principal.js';
import type { RecordingsService } from './service.js';
import type { Idempotency } from '../../http/idempotency.js';
import {
  CreateReplayLink,
  Manifest,
  PlaybackQuery,
  PlaybackWindow,
  RedactParams,
  RedactQuery,
  Redacted,
  ReplayLink,
  LinkQuery,
  ListedReplayLink,
  ReplayLinkParams,
  ReplayQuery,
  RevokedLinks,
  TimelineEvent,
  TimelineMeta,
} from './schemas.js';
import { sendWindow } from './json-chunks.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { iso } from '../../lib/time.js';
import { Deleted, HOSTS_ONLY, SessionParams } from '../../http/shared-schemas.js';

/** What a replay link's token adds to the public routes it opens besides the replay itself. */
const WITH_LINK =
  " With `token` (a replay link's): that session, public or not, while the link is valid (401 after), so that a player opened from a link can lay the recording out.";
const KEY_OR_PUBLIC: RouteAuth = { accept: ['api_key', 'user'], anonymous: true };
const KEY_RESTRICTED_OR_PUBLIC: RouteAuth = {
  accept: ['api_key', 'user', 'restricted_key'],
  anonymous: true,
};
const PUBLIC_NOTE = ' Without credentials it answers for public sessions only (401 otherwise).';
const PAGING =
  'Time is cut into windows of `window_size` ms from `from_ts`. An answer starts at `base_seq` (without it, at the first event stamped from `from_ts` on) and holds, in `seq` order, the events stamped from `from_ts` on through the last one stamped in the window its first event falls in, at most 5000 events or 4 MiB of payload (an answer takes as long as its bytes do: a larger one would take over 50 ms): an event that arrived late (stamped in an earlier window) or early (in a later one) comes where it arrived, in `seq` order. Repeat with `base_seq = next_base_seq` (same `from_ts`) until it is null to read every event from `from_ts` on exactly once, in `seq` order. The answer is streamed as it is read (chunked, no Content-Length): if the server fails after the first byte it can only cut the connection, and the body received is then incomplete JSON (retry the request).';

const WINDOW = 'One window of events, streamed (chunked).';
const windowOk = okResponse(WINDOW, PlaybackWindow);

/** What the recordings routes need. */
export interface RecordingsRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  /** the dashboard's page, for a replay link opened in a browser; null when it was not built */
  page?: HtmlPage | null;
  idempotency: Idempotency;
  recordings: RecordingsService;
}

/** Manifest, playback, timeline, public access, replay links, redaction. */
export const recordingsRoutes: FastifyPluginAsyncTypebox<RecordingsRoutesOptions> = async (app, deps) => {
  const { recordings } = deps;
  const tags = ['Recordings'];

  app.get(
    '/v1/sessions/:sessionId/manifest',
    {
      config: { auth: KEY_RESTRICTED_OR_PUBLIC },
      schema: {
        tags,
        operationId: 'getManifest',
        summary: 'Session manifest',
        description:
          'The layout-agnostic reconstruction contract: participants and their tracks (listed once media reached them), streams, capabilities.' +
          PUBLIC_NOTE,
        params: SessionParams,
        response: { 200: okResponse('The manifest.', Manifest) },
      },
    },
    async (request) =>
      ok(await recordings.manifest(await recordings.readable(request.principal, request.params.sessionId))),
  );

  app.get(
    '/v1/sessions/:sessionId/playback/timeline',
    {
      config: { auth: KEY_OR_PUBLIC },
      schema: {
        tags,
        operationId: 'getPlaybackTimeline',
        summary: 'Playback timeline metadata',
        description: 'Streams, event count and time bounds.' + PUBLIC_NOTE,
        params: SessionParams,
        response: { 200: okResponse('The timeline metadata.', TimelineMeta) },
      },
    },
    async (request) =>
      ok(
        await recordings.timelineMeta(await recordings.readable(request.principal, request.params.sessionId)),
      ),
  );

  app.get(
    '/v1/sessions/:sessionId/playback',
    {
      config: { auth: KEY_OR_PUBLIC },
      schema: {
        tags,
        operationId: 'getPlaybackWindow',
        summary: 'A playback window',
        description: PAGING + PUBLIC_NOTE,
        params: SessionParams,
        querystring: PlaybackQuery,
        response: { 200: windowOk },
      },
    },
    async (request, reply) => {
      const s = await recordings.readable(request.principal, request.params.sessionId);
      const { from_ts, window_size, base_seq } = request.query;
      return sendWindow(reply, recordings.window(s.id, from_ts, window_size, base_seq));
    },
  );

  app.get(
    '/v1/sessions/:sessionId/timeline',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getTimeline',
        summary: 'The session timeline',
        description:
          'Every event of the `events` stream, `{ seq, v, type, ts, actor, data }`, in order. For large sessions read windows instead.',
        params: SessionParams,
        response: { 200: okResponse('Every timeline event, in order.', Type.Array(TimelineEvent)) },
      },
    },
    async (request) => ok(await recordings.timeline(request.principal!, request.params.sessionId)),
  );

  const publicTags = ['Public'];
  /** The session a public route reads: public, or any with a valid replay link's `token`. */
  const linked = (r: { params: { sessionId: string }; query: { token?: string } }) =>
    recordings.replayable(r.params.sessionId, r.query.token);
  app.get(
    '/v1/public/sessions/:sessionId/manifest',
    {
      config: { auth: 'public', cors: true },
      schema: {
        tags: publicTags,
        operationId: 'getPublicManifest',
        summary: 'Manifest of a public session',
        description: `404 unless the session is public.${WITH_LINK}`,
        params: SessionParams,
        querystring: LinkQuery,
        response: { 200: okResponse('The manifest.', Manifest) },
      },
    },
    async (request) => ok(await recordings.manifest(await linked(request))),
  );
  app.get(
    '/v1/public/sessions/:sessionId/playback/timeline',
    {
      config: { auth: 'public', cors: true },
      schema: {
        tags: publicTags,
        operationId: 'getPublicPlaybackTimeline',
        summary: 'Timeline metadata of a public session',
        description: `404 unless the session is public.${WITH_LINK}`,
        params: SessionParams,
        querystring: LinkQuery,
        response: { 200: okResponse('The timeline metadata.', TimelineMeta) },
      },
    },
    async (request) => ok(await recordings.timelineMeta(await linked(request))),
  );
  app.get(
    '/v1/public/sessions/:sessionId/timeline',
    {
      config: { auth: 'public', cors: true },
      schema: {
        tags: publicTags,
        operationId: 'getPublicTimeline',
        summary: 'The timeline of a public session',
        description: `Every event of the \`events\` stream, in order, as \`GET /v1/sessions/{sessionId}/timeline\` answers it: what a player lists and marks on its time bar before it reads the windows. 404 unless the session is public.${WITH_LINK}`,
        params: SessionParams,
        querystring: LinkQuery,
        response: { 200: okResponse('Every timeline event, in order.', Type.Array(TimelineEvent)) },
      },
    },
    async (request) => ok(await recordings.timelineOf(await linked(request))),
  );
  app.get(
    '/v1/public/sessions/:sessionId/playback',
    {
      config: { auth: 'public', cors: true },
      schema: {
        tags: publicTags,
        operationId: 'getPublicPlaybackWindow',
        summary: 'A playback window of a public session',
        description: '404 unless the session is public. ' + PAGING,
        params: SessionParams,
        querystring: PlaybackQuery,
        response: { 200: windowOk },
      },
    },
    async (request, reply) => {
      const s = await recordings.publicSession(request.params.sessionId);
      const { from_ts, window_size, base_seq } = request.query;
      return sendWindow(reply, recordings.window(s.id, from_ts, window_size, base_seq));
    },
  );
  app.get(
    '/v1/public/sessions/:sessionId/replay',
    {
      config: { auth: 'public', cors: true },
      schema: {
        tags: publicTags,
        operationId: 'getReplayWindow',
        summary: 'Replay through a link',
        description:
          "With `token` (from a replay link): playback of that session, public or not, until the link expires or is revoked (401 after). Without a token: public sessions only (404 otherwise). `from_ts` may be left out: reading then starts at the recording's first event (the `link` of a replay link carries no `from_ts`, and opens as returned). A browser navigating to the link (`Accept` naming `text/html`) is answered the dashboard's player page instead, which reads this route as data; every other client (`Accept: application/json`, `*/*`, none) gets the playback window. Both answers carry `Vary: Accept`." +
          PAGING,
        params: SessionParams,
        querystring: ReplayQuery,
        response: { 200: windowOk },
        docs: {
          responses: {
            200: {
              description: `${WINDOW} A browser (\`Accept\` naming \`text/html\` first) gets the dashboard's player page instead.`,
              content: {
                'application/json': { schema: windowOk },
                'text/html': { schema: Type.String({ description: "the dashboard's player page" }) },
              },
              headers: {
                Vary: { type: 'string', enum: ['Accept'], description: 'the answer depends on `Accept`' },
              },
            },
          },
        },
      },
      // A person who opens the link in a browser gets the player, which reads this same route as
      // data and explains an expired, revoked or mangled link itself: decided before the query is
      // validated, so a browser is never shown a raw JSON error.
      preValidation: async (request, reply) => {
        reply.header('vary', 'Accept');
        if (deps.page && wantsHtml(request)) return deps.page(reply);
      },
    },
    async (request, reply) => {
      const { from_ts, window_size, base_seq, token } = request.query;
      const s = await recordings.replayable(request.params.sessionId, token);
      const from = from_ts ?? (await recordings.firstTs(s.id));
      return sendWindow(reply, recordings.window(s.id, from, window_size, base_seq));
    },
  );

  app.post(
    '/v1/sessions/:sessionId/replay-links',
    {
      config: { auth: KEY_OR_USER, idempotent: true },
      schema: {
        tags,
        operationId: 'createReplayLink',
        summary: 'Create a replay link',
        description:
          'Unauthenticated windowed playback until it expires: `expires_in_minutes` 1 to 43200, default 1440. The token is stored hashed.' +
          HOSTS_ONLY,
        params: SessionParams,
        body: CreateReplayLink,
        response: { 201: okResponse('The link and its token (stored hashed: shown this once).', ReplayLink) },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(
          await recordings.createLink(
            trx,
            request.principal!,
            request.params.sessionId,
            request.body.expires_in_minutes,
          ),
        ),
      })),
  );

  app.delete(
    '/v1/sessions/:sessionId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'deleteSession',
        summary: 'Delete a session',
        description:
          'Deletes the session and everything recorded for it. Refused with 409 while the session is live.' +
          HOSTS_ONLY,
        params: SessionParams,
        response: { 200: okResponse('The session and its recording were deleted.', Deleted) },
      },
    },
    async (request) => ok(await recordings.deleteSession(request.principal!, request.params.sessionId)),
  );

  app.get(
    '/v1/sessions/:sessionId/replay-links',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listReplayLinks',
        summary: 'List the replay links of a session',
        description:
          'Newest first, expired ones included (until revoked), never with their token: a token is shown once, when its link is created.',
        params: SessionParams,
        querystring: PageQuery,
        response: { 200: okResponse('A page of replay links, newest first.', Type.Array(ListedReplayLink)) },
      },
    },
    async (request, reply) => {
      const { limit, cursor } = request.query;
      const rows = await recordings.listLinks(request.principal!, request.params.sessionId, limit, cursor);
      return ok(
        paginate(rows, limit, request, reply, deps.baseUrl).map((l) => ({
          id: l.id,
          session_id: l.session_id,
          created_at: iso(l.created_at),
          expires_at: iso(l.expires_at),
        })),
      );
    },
  );

  app.delete(
    '/v1/sessions/:sessionId/replay-links/:linkId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'revokeReplayLink',
        summary: 'Revoke one replay link',
        description:
          "Its token is refused from then on (401); the session's other links keep working. A link this session does not have (unknown, already revoked, or another session's): 404." +
          HOSTS_ONLY,
        params: ReplayLinkParams,
        response: { 200: okResponse('The link was revoked.', Deleted) },
      },
    },
    async (request) =>
      ok(await recordings.revokeLink(request.principal!, request.params.sessionId, request.params.linkId)),
  );

  app.delete(
    '/v1/sessions/:sessionId/replay-links',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'revokeReplayLinks',
        summary: 'Revoke every replay link of a session',
        params: SessionParams,
        response: { 200: okResponse('The links were revoked.', RevokedLinks) },
      },
    },
    async (request) => ok(await recordings.revokeLinks(request.principal!, request.params.sessionId)),
  );

  app.delete(
    '/v1/sessions/:sessionId/participants/:userId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'redactParticipant',
        summary: 'Redact a participant',
        description:
          'Deletes every media stream (cam, mic, screen) of the participant: the bytes are removed from storage, not hidden. Appends `participant.redacted` to the timeline; the rest of the session is unchanged. Their chat stays unless `include_chat=true`, which replaces their chat bodies with a redaction marker. During a live session their further media is refused. Every export of the session rendered (or rendering) before the redaction shows and plays them: each is marked `failed` with the reason, its file deleted, and its download answers 404; exports queued after render without them. Manifest, playback timeline and playback no longer count them. A participant who published no media: 404.' +
          HOSTS_ONLY +
          HOSTS_ONLY,
        params: RedactParams,
        querystring: RedactQuery,
        response: { 200: okResponse('The participant was redacted.', Redacted) },
      },
    },
    async (request) =>
      ok(
        await recordings.redact(
          request.principal!,
          request.params.sessionId,
          request.params.userId,
          request.query.include_chat,
        ),
      ),
  );
};
