/** The tables of agent access (modules/agents): tokens, their activity, and OAuth. */

/** An agent token (modules/agents): a `sat_…` secret for /mcp, with scopes, made by a user. */
export interface AgentTokensTable {
  id: string;
  org_id: string;
  project_id: string;
  user_id: string;
  label: string | null;
  scopes: string;
  prefix: string;
  secret_hash: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

/** One MCP tool call: who, which tool, on what, how it ended. */
export interface AgentActivityTable {
  id: string;
  org_id: string;
  project_id: string;
  actor: string;
  tool: string;
  session_id: string | null;
  status: string;
  error_code: string | null;
  created_at: number;
}

/** An OAuth client registered dynamically (RFC 7591). */
export interface OAuthClientsTable {
  id: string;
  secret_hash: string | null;
  name: string | null;
  redirect_uris: string;
  created_at: number;
}

/** An authorization code, single use, short-lived, bound to its PKCE challenge and redirect. */
export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  org_id: string;
  project_id: string;
  user_id: string;
  scopes: string;
  code_challenge: string;
  redirect_uri: string;
  expires_at: number;
}

/** What a user granted an OAuth client, with its current access and refresh tokens (hashed). */
export interface OAuthGrantsTable {
  id: string;
  org_id: string;
  project_id: string;
  user_id: string;
  client_id: string;
  scopes: string;
  access_hash: string;
  access_expires_at: number;
  refresh_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** A refresh token already exchanged: presenting it again revokes its grant. */
export interface OAuthSpentRefreshTable {
  hash: string;
  grant_id: string;
  created_at: number;
}

/** An authorization code already exchanged, and the grant that exchange made. */
export interface OAuthSpentCodesTable {
  hash: string;
  grant_id: string;
  created_at: number;
}
