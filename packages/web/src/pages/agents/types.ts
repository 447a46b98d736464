import type { Schemas } from '@vss/client';

/** Agent access as the API answers it. */

export const SCOPES = [
  ['mcp:read', 'read sessions, manifests, timelines, chat, exports and usage'],
  ['mcp:write', 'create sessions and connection tokens, share, export and redact'],
] as const;

export type AgentToken = Schemas['AgentToken'];
/** The answer of a create: the only time the secret is shown. */
export type CreatedAgentToken = Schemas['CreatedAgentToken'];
/** What the signed-in user granted an OAuth client. */
export type Grant = Schemas['OAuthGrant'];
/** One MCP tool call. `actor` is `agent_token:<id>` or `oauth:<grant id>`. */
export type Activity = Schemas['AgentActivity'];

export type { PagedList } from '../../ui/hooks';
