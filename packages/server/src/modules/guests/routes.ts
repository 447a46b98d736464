import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import type { Idempotency } from '../../http/idempotency.js';
import { okResponse } from '../../http/openapi-docs.js';
import { paginate, PageQuery } from '../../http/pagination.js';
import { KEY_OR_USER } from '../../http/principal.js';
import { Deleted, HOSTS_ONLY, SessionParams } from '../../http/shared-schemas.js';
import { JOIN_ATTEMPTS_PER_MINUTE, presentJoinLink, type GuestsService } from './service.js';
import {
  CreateJoinLink,
  GuestToken,
  JoinLink,
  JoinLinkInfo,
  JoinLinkParams,
  JoinRequest,
  JoinTokenParams,
  ListedJoinLink,
} from './schemas.js';

const tags = ['Guests'];

/** Join links (create, list, revoke) and their redemption by guests without an account. */
export const guestsRoutes: FastifyPluginAsyncTypebox<{
  baseUrl: string;
  idempotency: Idempotency;
  guests: GuestsService;
}> = async (app, deps) => {
  const { guests } = deps;

  app.post(
    '/v1/sessions/:sessionId/join-links',
    {
      config: { auth: KEY_OR_USER, idempotent: true },
      schema: {
        tags,
        operationId: 'createJoinLink',
        summary: 'Create a join link',
        description:
          'A link that lets people without an account join the live session as guests: `{base_url}/join/{token}` is the page they open (session name, their name, camera and microphone, then the call). Each guest gets a new id (`guest-…`) and the name they typed. The link works until `expires_in_minutes` (1 to 43200, default 1440) have passed, it is revoked, or `max_uses` guests have joined with it; with `can_publish: false` its guests watch and chat only. The token is stored hashed: it is in this answer and nowhere else. A session that has ended: 409.' +
          HOSTS_ONLY,
        params: SessionParams,
        body: CreateJoinLink,
        response: { 201: okResponse('The link with its token (shown this once).', JoinLink) },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(await guests.create(trx, request.principal!, request.params.sessionId, request.body)),
      })),
  );

  app.get(
    '/v1/sessions/:sessionId/join-links',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listJoinLinks',
        summary: 'List the join links of a session',
        description:
          'Newest first, expired and used-up ones included (until revoked), never with their token.',
        params: SessionParams,
        querystring: PageQuery,
        response: { 200: okResponse('A page of join links, newest first.', Type.Array(ListedJoinLink)) },
      },
    },
    async (request, reply) => {
      const { limit, cursor } = request.query;
      const rows = await guests.list(request.principal!, request.params.sessionId, limit, cursor);
      return ok(paginate(rows, limit, request, reply, deps.baseUrl).map(presentJoinLink));
    },
  );

  app.delete(
    '/v1/sessions/:sessionId/join-links/:linkId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'revokeJoinLink',
        summary: 'Revoke a join link',
        description:
          'At once: its token answers 404 from now on, and the live tokens it gave that are not used yet are refused at `/ws` (403). Guests already in the call stay (remove one with `removeParticipant`). A link that expires refuses its unused live tokens likewise. A link this session does not have: 404.' +
          HOSTS_ONLY,
        params: JoinLinkParams,
        response: { 200: okResponse('The link was revoked.', Deleted) },
      },
    },
    async (request) =>
      ok(await guests.revoke(request.principal!, request.params.sessionId, request.params.linkId)),
  );

  app.get(
    '/v1/join/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'describeJoinLink',
        summary: 'What a join link opens',
        description:
          "No credential: the token is the credential. The session's name, whether it has ended and whether the link's uses are spent (`used_up`), for the join page to show before a guest types a name; takes no use. A token that is unknown, revoked or expired: 404, with one message for all three.",
        params: JoinTokenParams,
        response: { 200: okResponse('The session the link opens.', JoinLinkInfo) },
      },
    },
    async (request) => ok(await guests.describe(request.params.token)),
  );

  app.post(
    '/v1/join/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'joinWithLink',
        summary: 'Join a session as a guest',
        description: `No credential: the token is the credential. Takes one use of the link and answers a live connection token for a new guest id, valid 300 seconds: open \`/ws?session={session}&user_id={user_id}&access_token={access_token}\`. \`display_name\` is 1 to 64 characters of any script once trimmed, counted as a person sees them (a family emoji or a letter with its accents is one), at least one of them visible (spaces allowed, no control character; a name of only spaces or invisible characters such as U+200B is refused with 400 naming \`body.display_name\`). Refused: a token that is unknown, revoked or expired, 404 with one message for all three; a link whose uses are spent, or a session that has ended, 409 \`CONFLICT\`; a session that has not started while the organisation is over its free tier without a subscription, 503 \`USAGE_LIMITS_EXCEEDED\` (no use is taken). A guest who comes back with its \`rejoin_token\` (a reconnect once its token expired, a reload) keeps its \`user_id\` and takes no use, even from a link whose uses are spent; once removed from the session (\`removeParticipant\`), it is refused with 403. At most ${JOIN_ATTEMPTS_PER_MINUTE} attempts per client address per minute, whatever their outcome; past it, 429 \`RATE_LIMITED\` with \`Retry-After\`.`,
        params: JoinTokenParams,
        body: JoinRequest,
        response: { 200: okResponse('A live connection token for the guest.', GuestToken) },
      },
    },
    async (request) => ok(await guests.join(request.params.token, request.body, request.ip)),
  );
};
