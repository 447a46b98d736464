import type { OAuthGrantsTable } from '../../db/types.js';
import { iso, isoOrNull } from '../../lib/time.js';
import { SCOPES } from './service.js';

/** An error answered in OAuth's own shape (`error`, `error_description`), not the API envelope. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    options?: ErrorOptions,
  ) {
    super(description, options);
  }
}

/** A problem with the authorization request that must not be redirected (unknown client or redirect). */
export class AuthorizePageError extends Error {}

/** A problem reported to the client by redirecting to its redirect_uri with `error`. */
export class AuthorizeRedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    description: string,
    readonly state: string | undefined,
  ) {
    super(description);
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string' || uri.length > 2000) return 'must be a string of at most 2000 characters';
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash) return 'must not have a fragment';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return null;
  // Native apps' private-use schemes (RFC 8252), e.g. com.example.app:/callback.
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(u.protocol)) return null;
  return 'must be https, http on a loopback address, or a private-use scheme';
}

export function parseScopes(scope: unknown): string[] | null {
  if (scope === undefined || scope === '') return [...SCOPES].filter((s) => s === 'mcp:read');
  if (typeof scope !== 'string') return null;
  const list = [...new Set(scope.split(' ').filter(Boolean))];
  return list.every((s) => (SCOPES as readonly string[]).includes(s)) && list.length > 0 ? list : null;
}

export function presentGrant(g: OAuthGrantsTable & { client_name: string | null }) {
  return {
    id: g.id,
    client_id: g.client_id,
    client_name: g.client_name,
    project_id: g.project_id,
    scopes: g.scopes.split(' '),
    created_at: iso(g.created_at),
    last_used_at: isoOrNull(g.last_used_at),
  };
}

/** RFC 8414: where MCP clients find the endpoints and what they support. */
export function authorizationServerMetadata(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: true,
  };
}
