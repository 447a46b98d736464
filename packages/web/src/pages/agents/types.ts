import type { usePagedList } from '../../ui/hooks';

/** Agent access as the API answers it (packages/server/src/modules/agents). */

export const SCOPES = [
  ['mcp:read', 'read sessions, manifests, timelines, chat, exports and usage'],
  ['mcp:write', 'create sessions and connection tokens, share, export and redact'],
] as const;

export interface AgentToken {
  id: string;
  project_id: string;
  label: string | null;
  scopes: string[];
  prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** The answer of a create: the only time the secret is shown. */
export interface CreatedAgentToken extends AgentToken {
  secret: string;
}

/** What the signed-in user granted an OAuth client. */
export interface Grant {
  id: string;
  client_id: string;
  client_name: string | null;
  project_id: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

/** One MCP tool call. `actor` is `agent_token:<id>` or `oauth:<grant id>`. */
export interface Activity {
  id: string;
  actor: string;
  tool: string;
  project_id: string;
  session_id: string | null;
  status: string;
  error_code: string | null;
  created_at: string;
}

/** A paged list as `usePagedList` keeps it. */
export type PagedList<T extends { id: string }> = ReturnType<typeof usePagedList<T>>;
