/** Who may call the service: dashboard users, API keys, restricted keys, and (over /mcp only) agents. */
export type CredentialKind = 'user' | 'api_key' | 'restricted_key' | 'agent';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** The caller of one request, resolved once by the edge from its credential. */
export interface Principal {
  kind: CredentialKind;
  /** the key's id, or the user's id for a dashboard session: the idempotency and rate-limit scope */
  credentialId: string;
  orgId: string;
  userId: string | null;
  /** the project an API key or restricted key belongs to; null for users */
  keyProjectId: string | null;
  /** keys act with admin rights on their organisation's management routes */
  role: Role;
  /** `X-Project-Id` sent by a dashboard user to pick the project of project-implicit routes */
  projectHint: string | null;
  /** what an agent may do (`mcp:read`, `mcp:write`); absent for every other credential */
  scopes?: readonly string[];
}

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** True when `role` is at least `min`. */
export function roleAtLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
}

/** How a route is reached: open to anyone, or by the credential kinds it lists. */
export type RouteAuth =
  | 'public'
  | {
      accept: CredentialKind[];
      /** treat this non-mutating method as state-changing for the CSRF rule (export enqueue GET) */
      csrf?: boolean;
      /** a server-rendered page's form posts here: the same-origin rule holds, form bodies are allowed */
      form?: boolean;
      /** with no credential at all, let the handler decide (public sessions): principal is null */
      anonymous?: boolean;
    };

/** The MCP endpoint: agent tokens and OAuth access tokens only. */
export const AGENT_ONLY: RouteAuth = { accept: ['agent'] };
/** Routes for dashboard users only. */
export const USER_ONLY: RouteAuth = { accept: ['user'] };
/** "API key (project)" routes; the dashboard cookie is accepted wherever an API key is. */
export const KEY_OR_USER: RouteAuth = { accept: ['api_key', 'user'] };
/**
 * The routes a restricted key may use besides them: create a session, request a connection token,
 * read a manifest.
 */
export const KEY_USER_OR_RESTRICTED: RouteAuth = { accept: ['api_key', 'user', 'restricted_key'] };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** false exempts the route from request rate limits (health) */
    rateLimit?: boolean;
    /** creating POST: honours Idempotency-Key */
    idempotent?: boolean;
    /** a public, credential-free route any site may read (CORS, no credentials) */
    cors?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}
