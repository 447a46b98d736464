import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { KEY_OR_USER } from '../../http/principal.js';
import type { KeysService } from './service.js';
import type { ProjectsService } from '../projects/service.js';
import type { Idempotency } from '../../http/idempotency.js';
import {
  ApiKey,
  CreateApiKey,
  CreateRestrictedKey,
  CreatedApiKey,
  CreatedRestrictedKey,
  KeyListQuery,
  KeyParams,
  Relabel,
  RestrictedKey,
} from './schemas.js';
import { presentKey } from './service.js';
import { Deleted, ProjectParams } from '../../http/shared-schemas.js';

/** What the keys routes need. */
export interface KeysRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  idempotency: Idempotency;
  keys: KeysService;
  projects: ProjectsService;
}

/** API keys and restricted keys. */
export const keysRoutes: FastifyPluginAsyncTypebox<KeysRoutesOptions> = async (app, deps) => {
  const { keys, projects } = deps;
  const listQuery = Type.Composite([PageQuery, KeyListQuery]);

  for (const kind of ['api_key', 'restricted_key'] as const) {
    const base = kind === 'api_key' ? '/v1/api-keys' : '/v1/restricted-keys';
    const tags = [kind === 'api_key' ? 'API keys' : 'Restricted keys'];
    const what = kind === 'api_key' ? 'API keys' : 'restricted keys';
    const Key = kind === 'api_key' ? ApiKey : RestrictedKey;
    const name = kind === 'api_key' ? 'ApiKey' : 'RestrictedKey';

    app.get(
      base,
      {
        config: { auth: KEY_OR_USER },
        schema: {
          tags,
          operationId: `list${name}s`,
          summary: `List ${what}`,
          description: `Metadata of the organisation's ${what}, oldest first; never a secret. Owners, admins and API keys only.`,
          querystring: listQuery,
          response: { 200: okResponse(`A page of ${what}.`, Type.Array(Key)) },
        },
      },
      async (request, reply) => {
        const { limit, cursor, project_id } = request.query;
        const rows = await keys.list(request.principal!, kind, project_id, limit, cursor);
        return ok(paginate(rows, limit, request, reply, deps.baseUrl).map(presentKey));
      },
    );

    app.patch(
      `${base}/:keyId`,
      {
        config: { auth: KEY_OR_USER },
        schema: {
          tags,
          operationId: `relabel${name}`,
          summary: 'Relabel a key',
          params: KeyParams,
          body: Relabel,
          response: { 200: okResponse('The key with its new label.', Key) },
        },
      },
      async (request) =>
        ok(await keys.relabel(request.principal!, kind, request.params.keyId, request.body.label)),
    );

    app.delete(
      `${base}/:keyId`,
      {
        config: { auth: KEY_OR_USER },
        schema: {
          tags,
          operationId: `delete${name}`,
          summary: 'Delete a key',
          description: 'The key is refused from the next request on. A key may delete itself.',
          params: KeyParams,
          response: { 200: okResponse('The key was deleted.', Deleted) },
        },
      },
      async (request) => ok(await keys.delete(request.principal!, kind, request.params.keyId)),
    );
  }

  app.post(
    '/v1/projects/:projectId/api-keys',
    {
      config: { auth: KEY_OR_USER, idempotent: true },
      schema: {
        tags: ['API keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description:
          'Issues an `sk_live_` key for a project of the organisation. The `secret` is in this response only; it is stored as a peppered hash. Optional body `{ label }`.',
        params: ProjectParams,
        body: CreateApiKey,
        response: { 201: okResponse('The new key, with its secret (shown this once).', CreatedApiKey) },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(
          await keys.create(
            trx,
            request.principal!,
            'api_key',
            request.params.projectId,
            request.body.label ?? null,
          ),
        ),
      })),
  );

  app.post(
    '/v1/restricted-keys',
    {
      config: { auth: KEY_OR_USER, idempotent: true },
      schema: {
        tags: ['Restricted keys'],
        operationId: 'createRestrictedKey',
        summary: 'Create a restricted key',
        description:
          "Issues an `rk_live_` key, limited to creating sessions, requesting connection tokens and reading manifests of one project (`project_id`, default the caller's project). Every other route answers it 403. The `secret` is shown once.",
        body: CreateRestrictedKey,
        response: {
          201: okResponse('The new restricted key, with its secret (shown this once).', CreatedRestrictedKey),
        },
      },
    },
    async (request, reply) => {
      const projectId = request.body.project_id ?? (await projects.scope(request.principal!)).id;
      return deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(
          await keys.create(trx, request.principal!, 'restricted_key', projectId, request.body.label ?? null),
        ),
      }));
    },
  );
};
