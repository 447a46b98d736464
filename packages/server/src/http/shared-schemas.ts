import { Type } from '@sinclair/typebox';
import { ROLES } from './principal.js';
import { StringEnum } from './schema-types.js';

/**
 * Request and response shapes that several modules use: path parameters naming a project or a
 * session, the answer of a delete, and the user and role a member or an invitation speaks of.
 * A module's own shapes stay in its `schemas.ts`.
 */

/** `:projectId` in a path. */
export const ProjectParams = Type.Object({ projectId: Type.String({ format: 'uuid' }) });

/** `:sessionId` in a path. */
export const SessionParams = Type.Object({ sessionId: Type.String({ format: 'uuid' }) });

/** What a DELETE answers. */
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** An email address, as accounts and invitations take it. */
export const Email = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'compared case-insensitively',
});

/** A member's role in an organisation. */
export const RoleSchema = StringEnum(ROLES);

/** A user, as accounts and members present one. */
export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    org_id: Type.String(),
    role: RoleSchema,
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'User' },
);

/**
 * Who may change a session for everyone, said on each route that does: one rule for all of them
 * (enforced by the sessions service's `hosted`).
 */
export const HOSTS_ONLY =
  " Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).";
