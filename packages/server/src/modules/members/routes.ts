import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { presentUser } from '../accounts/service.js';
import { KEY_OR_USER } from '../../http/principal.js';
import type { MembersService } from './service.js';
import { Deleted, RoleSchema, User } from '../../http/shared-schemas.js';

const MemberParams = Type.Object({ userId: Type.String({ format: 'uuid' }) });

/** What the members routes need. */
export interface MembersRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  members: MembersService;
}

/** The organisation's members. */
export const membersRoutes: FastifyPluginAsyncTypebox<MembersRoutesOptions> = async (app, deps) => {
  const { members } = deps;
  const tags = ['Members'];

  app.get(
    '/v1/members',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listMembers',
        summary: 'List members',
        description: 'Users of the organisation with their role, oldest first.',
        querystring: PageQuery,
        response: { 200: okResponse('A page of members.', Type.Array(User)) },
      },
    },
    async (request, reply) => {
      const rows = await members.list(request.principal!, request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, deps.baseUrl).map(presentUser));
    },
  );

  app.patch(
    '/v1/members/:userId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'setMemberRole',
        summary: "Change a member's role",
        description:
          'Owners and admins (and API keys, as admins). Only an owner may grant the owner role or change an owner. The last owner cannot be demoted: 409.',
        params: MemberParams,
        body: Type.Object(
          { role: RoleSchema },
          { additionalProperties: false, title: 'SetMemberRoleRequest' },
        ),
        response: { 200: okResponse('The member with the new role.', User) },
      },
    },
    async (request) =>
      ok(presentUser(await members.setRole(request.principal!, request.params.userId, request.body.role))),
  );

  app.delete(
    '/v1/members/:userId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'removeMember',
        summary: 'Remove a member',
        description:
          'Deletes the member and their login sessions. Owners and admins; only an owner may remove an owner; the last owner cannot be removed: 409.',
        params: MemberParams,
        response: { 200: okResponse('The member was removed.', Deleted) },
      },
    },
    async (request) => ok(await members.remove(request.principal!, request.params.userId)),
  );
};
