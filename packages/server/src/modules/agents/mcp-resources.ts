import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ApiError } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import type { McpDeps } from './mcp-deps.js';

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
        const id = String(variables.session_id);
        const tool = `resource:${kind}`;
        if (!principal.scopes?.includes('mcp:read')) {
          await deps.agents.record(principal, {
            tool,
            sessionId: id,
            status: 'refused',
            errorCode: 'FORBIDDEN',
          });
          throw new Error(`reading ${kind} needs the mcp:read scope`);
        }
        try {
          const text = await read(id);
          await deps.agents.record(principal, { tool, sessionId: id, status: 'succeeded', errorCode: null });
          return { contents: [{ uri: uri.href, text }] };
        } catch (err) {
          const code = err instanceof ApiError ? err.code : 'SERVER_ERROR';
          await deps.agents.record(principal, { tool, sessionId: id, status: 'failed', errorCode: code });
          throw new Error(
            err instanceof ApiError ? `${code}: ${err.message}` : 'the service failed to answer',
          );
        }
      },
    );
}
