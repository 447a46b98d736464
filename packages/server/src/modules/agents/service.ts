import type { Config } from '../../config.js';
import type { AgentActivityTable, AgentTokensTable } from '../../db/types.js';
import { hasControlCharacter, replaceControlCharacters } from '../../http/control-characters.js';
import { BadRequest, NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import { roleAtLeast, type Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { hmacHex, randomBase62 } from '../../lib/secrets.js';
import { DAY_MS, iso, isoOrNull, now, touchDue } from '../../lib/time.js';
import type { ProjectsService } from '../projects/service.js';
import type { AgentsStore } from './store.js';

export const SCOPES = ['mcp:read', 'mcp:write'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The principal an agent acts as, whether by token or OAuth grant: member rights on one project,
 * limited to its scopes, for the user who made it.
 */
export function agentPrincipal(
  credentialId: string,
  g: { org_id: string; user_id: string; project_id: string; scopes: string },
): Principal {
  return {
    kind: 'agent',
    credentialId,
    orgId: g.org_id,
    userId: g.user_id,
    keyProjectId: g.project_id,
    role: 'member',
    projectHint: null,
    scopes: g.scopes.split(' '),
  };
}

/** null for owners and admins (the whole organisation), else the member's own user id. */
const ownOnly = (p: Principal) => (roleAtLeast(p.role, 'admin') ? null : p.userId);

export function presentToken(t: AgentTokensTable) {
  return {
    id: t.id,
    project_id: t.project_id,
    label: t.label,
    scopes: t.scopes.split(' '),
    prefix: t.prefix,
    created_at: iso(t.created_at),
    expires_at: isoOrNull(t.expires_at),
    last_used_at: isoOrNull(t.last_used_at),
  };
}

export function presentActivity(a: AgentActivityTable) {
  return {
    id: a.id,
    actor: a.actor,
    tool: a.tool,
    project_id: a.project_id,
    session_id: a.session_id,
    status: a.status,
    error_code: a.error_code,
    created_at: iso(a.created_at),
  };
}

/**
 * Agent access: agent tokens (made by a signed-in user, shown once, with scopes, for one project)
 * and the activity log of every MCP tool call. An agent acts on its project with member rights:
 * sessions, recordings, exports, usage; never keys, webhooks, members or billing.
 */
export function agentsService(deps: { config: Config; store: AgentsStore; projects: ProjectsService }) {
  const { store } = deps;
  const pepper = deps.config.keys.apiKeyPepper;
  return {
    async createToken(
      principal: Principal,
      input: { scopes: string[]; project_id?: string; label?: string | null; expires_in_days?: number },
    ) {
      const scopes = [...new Set(input.scopes)];
      if (scopes.length === 0 || scopes.some((s) => !(SCOPES as readonly string[]).includes(s)))
        throw new BadRequest(`body.scopes must hold one or more of ${SCOPES.join(', ')}`);
      const project = await deps.projects.scope(principal, { projectId: input.project_id });
      const secret = `sat_${randomBase62(32)}`;
      const at = now();
      const row: AgentTokensTable = {
        id: newId(),
        org_id: principal.orgId,
        project_id: project.id,
        user_id: principal.userId!,
        label: input.label ?? null,
        scopes: scopes.join(' '),
        prefix: secret.slice(0, 12),
        secret_hash: hmacHex(pepper, secret),
        created_at: at,
        expires_at: input.expires_in_days ? at + input.expires_in_days * DAY_MS : null,
        last_used_at: null,
      };
      await store.insertToken(row);
      return { ...presentToken(row), secret };
    },

    /** Owners and admins see the organisation's tokens; a member sees the tokens they made. */
    listTokens(principal: Principal, limit: number, cursor: string | undefined) {
      return store.tokens(principal.orgId, ownOnly(principal), decodeCursor(cursor), limit + 1);
    },

    async deleteToken(principal: Principal, id: string) {
      if (!(await store.deleteToken(principal.orgId, ownOnly(principal), id)))
        throw new NotFound('agent token not found');
      return { id, deleted: true as const };
    },

    /** The principal of an agent token; null when unknown, deleted or expired. Read every time. */
    async resolveToken(secret: string): Promise<Principal | null> {
      const t = await store.tokenByHash(hmacHex(pepper, secret));
      const at = now();
      if (!t || (t.expires_at !== null && t.expires_at <= at)) return null;
      if (touchDue(t.last_used_at, at)) void store.touchToken(t.id, at).catch(() => {});
      return agentPrincipal(`agent_token:${t.id}`, t);
    },

    /**
     * Records one tool call. The tool's name and the session id come from the agent as sent (a
     * refused call is recorded too): a control character in either is not stored, the name keeps
     * U+FFFD in its place and the session id is left out.
     */
    async record(
      principal: Principal,
      call: {
        tool: string;
        sessionId: string | null;
        status: 'succeeded' | 'failed' | 'refused';
        errorCode: string | null;
      },
    ): Promise<void> {
      await store.insertActivity({
        id: newId(),
        org_id: principal.orgId,
        project_id: principal.keyProjectId ?? '',
        actor: principal.credentialId,
        tool: replaceControlCharacters(call.tool),
        session_id: call.sessionId !== null && !hasControlCharacter(call.sessionId) ? call.sessionId : null,
        status: call.status,
        error_code: call.errorCode,
        created_at: now(),
      });
    },

    /** The organisation's activity; an API key sees its own project's. */
    activity(principal: Principal, limit: number, cursor: string | undefined) {
      return store.activity(principal.orgId, principal.keyProjectId, decodeCursor(cursor), limit + 1);
    },
  };
}
export type AgentsService = ReturnType<typeof agentsService>;
