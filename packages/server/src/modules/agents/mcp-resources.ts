import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Principal } from '../../http/principal.js';
import { audited, type McpDeps } from './mcp-deps.js';

/** A session's manifest and timeline as MCP resources (`vss://sessions/{id}/manifest|timeline`). */
export function registerResources(server: McpServer, deps: McpDeps, principal: Principal): void {
  // Resources: a session's manifest and timeline, addressable for clients that attach context.
  for (const [kind, title, read] of [
    [
      'manifest',
      "A session's manifest: participants, tracks and their times (JSON).",
      async (id: string) =>
        JSON.stringify(await deps.recordings.manifest(await deps.sessions.get(principal, id)), null, 2),
    ],
    [
      'timeline',
      "A session's event timeline (JSON lines: time, type, actor, data).",
      async (id: string) =>
        (await deps.recordings.timeline(principal, id)).map((e) => JSON.stringify(e)).join('\n'),
    ],
  ] as const)
    server.registerResource(
      `session-${kind}`,
      new ResourceTemplate(`vss://sessions/{session_id}/${kind}`, { list: undefined }),
      {
        title,
        description: title,
        mimeType: kind === 'manifest' ? 'application/json' : 'application/x-ndjson',
      },
      async (uri, variables) => {
        const sessionId = String(variables.session_id);
        const call = { tool: `resource:${kind}`, scope: 'mcp:read' as const, sessionId };
        const out = await audited(deps, principal, call, () => read(sessionId));
        if (!out.ok) throw new Error(`${out.code}: ${out.message}`);
        return { contents: [{ uri: uri.href, text: out.value }] };
      },
    );
}
