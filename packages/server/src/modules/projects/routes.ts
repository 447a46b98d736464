import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { KEY_OR_USER } from '../../http/principal.js';
import type { ProjectsService } from './service.js';
import type { Idempotency } from '../../http/idempotency.js';
import { CreateProject, Project, UpdateProject } from './schemas.js';
import { presentProject } from './service.js';
import { ProjectParams } from '../../http/shared-schemas.js';

/** What the projects routes need. */
export interface ProjectsRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  idempotency: Idempotency;
  projects: ProjectsService;
}

/** Projects of the caller's organisation. */
export const projectsRoutes: FastifyPluginAsyncTypebox<ProjectsRoutesOptions> = async (app, deps) => {
  const { projects } = deps;
  const tags = ['Projects'];

  app.get(
    '/v1/projects',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listProjects',
        summary: 'List projects',
        description:
          "The organisation's projects, oldest first. Paginated with `limit` and `cursor` (next page in the `Link` header).",
        querystring: PageQuery,
        response: { 200: okResponse('A page of projects.', Type.Array(Project)) },
      },
    },
    async (request, reply) => {
      const rows = await projects.list(request.principal!, request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, deps.baseUrl).map(presentProject));
    },
  );

  app.post(
    '/v1/projects',
    {
      config: { auth: KEY_OR_USER, idempotent: true },
      schema: {
        tags,
        operationId: 'createProject',
        summary: 'Create a project',
        description:
          'Owners and admins (and API keys) only. `name` is required (1 to 200 characters); `environment` is optional.',
        body: CreateProject,
        response: { 201: okResponse('The new project.', Project) },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(presentProject(await projects.create(trx, request.principal!, request.body))),
      })),
  );

  app.get(
    '/v1/projects/:projectId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getProject',
        summary: 'Get a project',
        description: '404 for a project outside the organisation.',
        params: ProjectParams,
        response: { 200: okResponse('The project.', Project) },
      },
    },
    async (request) => ok(presentProject(await projects.inOrg(request.principal!, request.params.projectId))),
  );

  app.patch(
    '/v1/projects/:projectId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'updateProject',
        summary: 'Rename a project, change its environment or the sites that may embed its room',
        description:
          'Owners and admins (and API keys) only. Send at least one of `name`, `environment`, `embed_origins`. An `embed_origins` entry that is not an exact origin is refused with 400 naming it (`body.embed_origins[i]`), and nothing is changed.',
        params: ProjectParams,
        body: UpdateProject,
        response: { 200: okResponse('The project as changed.', Project) },
      },
    },
    async (request) =>
      ok(presentProject(await projects.update(request.principal!, request.params.projectId, request.body))),
  );
};
