import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { KEY_OR_USER, KEY_USER_OR_RESTRICTED } from '../../http/principal.js';
import type { SessionsService } from './service.js';
import type { Idempotency } from '../../http/idempotency.js';
import { CreateSession, ProjectSessionParams, PublicSession, Session, Visibility } from './schemas.js';
import { presentPublicSession, presentSession } from './service.js';
import { ProjectParams, HOSTS_ONLY, SessionParams } from '../../http/shared-schemas.js';

const PROJECT_SCOPE_NOTE =
  ' An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation.';

/** What the sessions routes need. */
export interface SessionsRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  idempotency: Idempotency;
  sessions: SessionsService;
}

/** Sessions and the public catalog. */
export const sessionsRoutes: FastifyPluginAsyncTypebox<SessionsRoutesOptions> = async (app, deps) => {
  const { sessions } = deps;
  const tags = ['Sessions'];
  const base = deps.baseUrl;

  const createSchema = {
    tags,
    summary: 'Create a session',
    description:
      'Creates a session (`started_at` and `ended_at` null) and emits `session.created`. Accepts API keys, restricted keys and the dashboard cookie. Refused with 503 `USAGE_LIMITS_EXCEEDED` when the free tier is exceeded without a subscription. Body optional: `{ name }`.',
    body: CreateSession,
    response: { 201: okResponse('The new session.', Session) },
  };

  app.post(
    '/v1/projects/:projectId/sessions',
    {
      config: { auth: KEY_USER_OR_RESTRICTED, idempotent: true },
      schema: { ...createSchema, operationId: 'createProjectSession', params: ProjectParams },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(
          presentSession(
            await sessions.create(trx, request.principal!, {
              projectId: request.params.projectId,
              name: request.body.name ?? '',
            }),
          ),
        ),
      })),
  );

  app.post(
    '/v1/sessions',
    {
      config: { auth: KEY_USER_OR_RESTRICTED, idempotent: true },
      schema: {
        ...createSchema,
        operationId: 'createSession',
        description: createSchema.description + PROJECT_SCOPE_NOTE,
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(
          presentSession(await sessions.create(trx, request.principal!, { name: request.body.name ?? '' })),
        ),
      })),
  );

  app.get(
    '/v1/projects/:projectId/sessions/:sessionId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getProjectSession',
        summary: 'Get a session of a project',
        description: '404 when the session is missing or belongs to another project.',
        params: ProjectSessionParams,
        response: { 200: okResponse('The session.', Session) },
      },
    },
    async (request) =>
      ok(
        presentSession(
          await sessions.get(request.principal!, request.params.sessionId, {
            projectId: request.params.projectId,
          }),
        ),
      ),
  );

  app.get(
    '/v1/sessions/:sessionId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getSession',
        summary: 'Get a session',
        description: '404 when the session is missing or belongs to another project.' + PROJECT_SCOPE_NOTE,
        params: SessionParams,
        response: { 200: okResponse('The session.', Session) },
      },
    },
    async (request) => ok(presentSession(await sessions.get(request.principal!, request.params.sessionId))),
  );

  const listSchema = {
    tags,
    summary: 'List sessions',
    description:
      'Sessions of the project, newest first (`created_at` descending). Paginated with `limit` (default 50, at most 200) and `cursor`; the next page is announced in `Link: <…>; rel="next"`.',
    querystring: PageQuery,
    response: { 200: okResponse('A page of sessions, newest first.', Type.Array(Session)) },
  };

  app.get(
    '/v1/sessions',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        ...listSchema,
        operationId: 'listSessions',
        description: listSchema.description + PROJECT_SCOPE_NOTE,
      },
    },
    async (request, reply) => {
      const { limit, cursor } = request.query;
      const rows = await sessions.list(request.principal!, { limit, cursor });
      return ok(paginate(rows, limit, request, reply, base).map(presentSession));
    },
  );

  app.get(
    '/v1/projects/:projectId/sessions',
    {
      config: { auth: KEY_OR_USER },
      schema: { ...listSchema, operationId: 'listProjectSessions', params: ProjectParams },
    },
    async (request, reply) => {
      const { limit, cursor } = request.query;
      const rows = await sessions.list(request.principal!, {
        projectId: request.params.projectId,
        limit,
        cursor,
      });
      return ok(paginate(rows, limit, request, reply, base).map(presentSession));
    },
  );

  app.put(
    '/v1/sessions/:sessionId/visibility',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'setSessionVisibility',
        summary: 'Make a session public or private',
        description:
          'Public sessions appear in the public catalog and can be replayed without credentials. `data` is the new state.' +
          HOSTS_ONLY,
        params: SessionParams,
        body: Visibility,
        response: {
          200: okResponse('The new visibility: true when the session is now public.', Type.Boolean()),
        },
      },
    },
    async (request) =>
      ok(await sessions.setVisibility(request.principal!, request.params.sessionId, request.body.is_public)),
  );

  app.get(
    '/v1/public/sessions',
    {
      config: { auth: 'public', cors: true },
      schema: {
        tags: ['Public'],
        operationId: 'listPublicSessions',
        summary: 'Public catalog',
        description:
          'Sessions with `is_public` true, newest first, reduced to id, name, created_at, started_at, ended_at. No credentials. Paginated like every list.',
        querystring: PageQuery,
        response: { 200: okResponse('A page of public sessions, newest first.', Type.Array(PublicSession)) },
      },
    },
    async (request, reply) => {
      const rows = await sessions.listPublic(request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, base).map(presentPublicSession));
    },
  );
};
