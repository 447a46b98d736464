import { Conflict, Forbidden, NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal, Role } from '../../http/principal.js';
import { requireRole } from '../projects/service.js';
import type { MembersStore } from './store.js';

/** Members of the caller's organisation: list, change role, remove. */
export function membersService(deps: { store: MembersStore }) {
  const { store } = deps;

  async function target(principal: Principal, userId: string) {
    requireRole(principal, 'admin');
    const user = await store.byId(principal.orgId, userId);
    if (!user) throw new NotFound('member not found');
    // Only an owner may touch an owner; keys act as admins.
    if (user.role === 'owner' && principal.role !== 'owner')
      throw new Forbidden('only an owner may change or remove an owner');
    return user;
  }

  return {
    list(principal: Principal, limit: number, cursor: string | undefined) {
      return store.list(principal.orgId, limit + 1, decodeCursor(cursor));
    },

    async setRole(principal: Principal, userId: string, role: Role) {
      const user = await target(principal, userId);
      if (role === 'owner' && principal.role !== 'owner')
        throw new Forbidden('only an owner may make someone an owner');
      if (!(await store.setRole(principal.orgId, userId, role)))
        throw new Conflict('the last owner cannot be demoted; make another member owner first');
      return { ...user, role };
    },

    /** Removes the member: their account and login sessions are deleted. */
    async remove(principal: Principal, userId: string) {
      await target(principal, userId);
      if (!(await store.remove(principal.orgId, userId)))
        throw new Conflict('the last owner cannot be removed; make another member owner first');
      return { id: userId, deleted: true as const };
    },
  };
}
export type MembersService = ReturnType<typeof membersService>;
