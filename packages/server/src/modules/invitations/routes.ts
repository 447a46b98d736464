import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { KEY_OR_USER, USER_ONLY } from '../../http/principal.js';
import type { InvitationsService } from './service.js';
import type { Idempotency } from '../../http/idempotency.js';
import {
  CreateInvitation,
  CreatedInvitation,
  Invitation,
  InvitationDescription,
  InvitationLookupQuery,
  InvitationParams,
  Membership,
  Redeem,
} from './schemas.js';
import { presentInvitation } from './service.js';
import { Deleted, ProjectParams } from '../../http/shared-schemas.js';

/** What the invitations routes need. */
export interface InvitationsRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  idempotency: Idempotency;
  invitations: InvitationsService;
}

/** Invitations. */
export const invitationsRoutes: FastifyPluginAsyncTypebox<InvitationsRoutesOptions> = async (app, deps) => {
  const { invitations } = deps;
  const tags = ['Invitations'];

  app.post(
    '/v1/projects/:projectId/invitations',
    {
      config: { auth: KEY_OR_USER, idempotent: true },
      schema: {
        tags,
        operationId: 'createInvitation',
        summary: 'Invite someone into the organisation',
        description:
          'Owners and admins (and API keys). Roles `admin` or `member`. The response carries the `token` and `accept_url` once; deliver them to the invitee. Valid 7 days. An email already in the organisation: 409.',
        params: ProjectParams,
        body: CreateInvitation,
        response: {
          201: okResponse(
            'The invitation, with its token and accept URL (shown this once).',
            CreatedInvitation,
          ),
        },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(
          await invitations.create(
            trx,
            request.principal!,
            request.params.projectId,
            request.body.email,
            request.body.role,
          ),
        ),
      })),
  );

  app.get(
    '/v1/invitations',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listInvitations',
        summary: 'List invitations',
        description: "The organisation's invitations, newest first, without tokens. Owners and admins.",
        querystring: PageQuery,
        response: { 200: okResponse('A page of invitations, newest first.', Type.Array(Invitation)) },
      },
    },
    async (request, reply) => {
      const rows = await invitations.list(request.principal!, request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, deps.baseUrl).map(presentInvitation));
    },
  );

  app.delete(
    '/v1/invitations/:invitationId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'revokeInvitation',
        summary: 'Revoke an invitation',
        params: InvitationParams,
        response: { 200: okResponse('The invitation was revoked.', Deleted) },
      },
    },
    async (request) => ok(await invitations.revoke(request.principal!, request.params.invitationId)),
  );

  app.get(
    '/v1/invitations/lookup',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'describeInvitation',
        summary: 'What an invitation link offers',
        description:
          "No credential: the token is the credential. The inviting organisation's name, the role offered, the invited address and who invited (their email; null when an API key invited), for the page of the invitation link (`accept_url`) to show before anyone signs in; takes nothing. Unknown token: 404. Used or expired: 409, as redeeming it would answer.",
        querystring: InvitationLookupQuery,
        response: { 200: okResponse('What the invitation offers.', InvitationDescription) },
      },
    },
    async (request) => ok(await invitations.describe(request.query.token)),
  );

  app.post(
    '/v1/invitations/redeem',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags,
        operationId: 'redeemInvitation',
        summary: 'Redeem an invitation',
        description:
          "Signed-in users only. The user's email must be the invited one (403 otherwise). Moves the user into the inviting organisation with the invited role. Used or expired: 409. Unknown token: 404.",
        body: Redeem,
        response: { 200: okResponse('The user is now a member of the inviting organisation.', Membership) },
      },
    },
    async (request) => ok(await invitations.redeem(request.principal!, request.body.token)),
  );
};
