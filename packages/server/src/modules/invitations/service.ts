import type { Config } from '../../config.js';
import { lockOrg } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import type { Db, Engine, InvitationsTable, Trx } from '../../db/types.js';
import { Conflict, Forbidden, NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { hmacHex, randomToken } from '../../lib/secrets.js';
import { iso, isoOrNull, now, DAY_MS } from '../../lib/time.js';
import type { AccountsService } from '../accounts/service.js';
import { requireRole, type ProjectsService } from '../projects/service.js';
import type { InvitationsStore } from './store.js';

/** Invitations expire after 7 days. */
export const INVITATION_TTL_MS = 7 * DAY_MS;

/** The public shape of an invitation: never its token after creation. */
export function presentInvitation(i: InvitationsTable) {
  return {
    id: i.id,
    org_id: i.org_id,
    email: i.email,
    role: i.role,
    created_by: i.created_by,
    created_at: iso(i.created_at),
    expires_at: iso(i.expires_at),
    accepted_at: isoOrNull(i.accepted_at),
  };
}

/** Invitations into an organisation: issue (token once), list, revoke, redeem. */
export function invitationsService(deps: {
  config: Config;
  db: Db;
  engine: Engine;
  store: InvitationsStore;
  accounts: Pick<AccountsService, 'userById'>;
  projects: ProjectsService;
}) {
  const { store } = deps;
  const tokenHash = (token: string) => hmacHex(deps.config.keys.tokens, `invitation:${token}`);

  return {
    async create(q: Db | Trx, principal: Principal, projectId: string, email: string, role: string) {
      requireRole(principal, 'admin');
      const project = await deps.projects.inOrg(principal, projectId, { q });
      const normalized = email.trim().toLowerCase();
      if (await store.memberByEmail(q, project.org_id, normalized))
        throw new Conflict('this email already belongs to a member of the organisation');
      const token = randomToken(32);
      const t = now();
      const row: InvitationsTable = {
        id: newId(),
        org_id: project.org_id,
        project_id: project.id,
        email: normalized,
        role,
        token_hash: tokenHash(token),
        created_by: principal.userId ?? principal.kind,
        created_at: t,
        expires_at: t + INVITATION_TTL_MS,
        accepted_at: null,
        accepted_by: null,
      };
      await store.insert(q, row);
      const accept_url = `${deps.config.publicBaseUrl}/invite?token=${encodeURIComponent(token)}`;
      return { ...presentInvitation(row), token, accept_url };
    },

    async list(principal: Principal, limit: number, cursor: string | undefined) {
      requireRole(principal, 'admin');
      return store.list(principal.orgId, limit + 1, decodeCursor(cursor));
    },

    async revoke(principal: Principal, id: string) {
      requireRole(principal, 'admin');
      if (!(await store.delete(principal.orgId, id))) throw new NotFound('invitation not found');
      return { id, deleted: true as const };
    },

    /**
     * What an invitation link's page shows before it is redeemed: into which organisation, with
     * which role, from whom. The token is the credential: whoever holds it was meant to read this.
     * Used or expired, it is refused as redeeming would refuse it.
     */
    async describe(token: string) {
      const found = await store.describeByTokenHash(tokenHash(token));
      if (!found) throw new NotFound('invitation not found');
      if (found.accepted_at !== null) throw new Conflict('this invitation was already redeemed');
      if (found.expires_at <= now()) throw new Conflict('this invitation has expired');
      return {
        organisation: { id: found.org_id, name: found.org_name },
        role: found.role as 'admin' | 'member',
        email: found.email,
        invited_by: found.inviter_email === null ? null : { email: found.inviter_email },
        expires_at: iso(found.expires_at),
      };
    },

    /** Moves the signed-in user into the inviting organisation with the invited role. */
    async redeem(principal: Principal, token: string) {
      const invitation = await store.byTokenHash(tokenHash(token));
      if (!invitation) throw new NotFound('invitation not found');
      const user = await deps.accounts.userById(principal.userId!);
      if (!user) throw new NotFound('user not found');
      if (invitation.accepted_at !== null) throw new Conflict('this invitation was already redeemed');
      if (invitation.expires_at <= now()) throw new Conflict('this invitation has expired');
      if (user.email !== invitation.email)
        throw new Forbidden('this invitation was sent to another email address');
      if (user.org_id === invitation.org_id) throw new Conflict('you already belong to this organisation');
      await transaction(deps.db, async (trx) => {
        // Checked under the lock of the organisation being left, like every owner change.
        await lockOrg(trx, deps.engine, user.org_id);
        if (await store.wouldOrphan(trx, user.id, user.org_id))
          throw new Conflict(
            'you are the only owner of your current organisation; make another member owner first',
          );
        if (!(await store.accept(trx, invitation.id, user.id, now())))
          throw new Conflict('this invitation was already redeemed or has expired');
        await store.moveUser(trx, user.id, invitation.org_id, invitation.role);
      });
      return { user_id: user.id, org_id: invitation.org_id, role: invitation.role };
    },
  };
}
export type InvitationsService = ReturnType<typeof invitationsService>;
