import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { controlCharacterError, findControlCharacter } from '../../http/control-characters.js';
import type { Principal } from '../../http/principal.js';
import { presentRecord } from '../billing/service.js';
import { USER_ID, USER_ID_MAX } from '../live/service.js';
import { presentSession } from '../sessions/service.js';
import { audited, type McpDeps, type ToolConfig } from './mcp-deps.js';
import { registerExportTools } from './mcp-exports.js';
import { registerRecordingTools } from './mcp-recording.js';
import { registerResources } from './mcp-resources.js';
import type { Scope } from './service.js';

const sessionId = z.string().uuid().describe('the session id (a UUID)');
/** A participant who joins: the same rule as the REST API's `user_id`. */
const userId = z
  .string()
  .min(1)
  .max(USER_ID_MAX)
  .regex(USER_ID, 'must have no "/", white space or control character, and not be "." or ".."');
const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
});

/**
 * One MCP server for one request of one agent (the transport is stateless: every POST carries its
 * credential, so a deleted token or revoked grant is refused on the very next call). Every tool
 * checks its scope, runs through the services, and is written to the activity log; a failure comes
 * back as a tool error carrying the API's code and message.
 */
export function mcpServer(
  deps: McpDeps,
  principal: Principal,
): { server: McpServer; logRefusedCall(body: unknown): Promise<void> } {
  const server = new McpServer(
    { name: 'vss', version: deps.version },
    {
      instructions:
        'vss records live audio/video/screen/chat sessions. Read tools need the mcp:read scope; tools that change anything need mcp:write. Media itself is never returned: manifests, timelines and chat come as text.',
    },
  );

  const inputs = new Map<string, z.ZodTypeAny>();
  function tool<Shape extends z.ZodRawShape>(
    name: string,
    scope: Scope,
    config: ToolConfig<Shape>,
    run: (args: z.objectOutputType<Shape, z.ZodTypeAny>) => Promise<unknown>,
  ): void {
    inputs.set(name, z.object(config.input));
    server.registerTool(
      name,
      {
        title: config.title,
        description: config.description,
        inputSchema: config.input,
        annotations: {
          title: config.title,
          readOnlyHint: scope === 'mcp:read',
          destructiveHint: config.destructive ?? false,
          openWorldHint: false,
        },
      },
      (async (args: z.objectOutputType<Shape, z.ZodTypeAny>) => {
        const sessionId = typeof args.session_id === 'string' ? args.session_id : null;
        const call = { tool: name, scope, sessionId, sessionOf: config.sessionOf };
        // The same rule as every request of the REST API: no control character in any argument.
        const out = await audited(deps, principal, call, async () => {
          const field = findControlCharacter(args, 'arguments');
          if (field) throw controlCharacterError(field);
          return run(args);
        });
        return out.ok
          ? text(out.value)
          : { isError: true, ...text({ code: out.code, message: out.message }) };
      }) as never,
    );
  }

  // Read (mcp:read)
  tool(
    'list_sessions',
    'mcp:read',
    {
      title: 'List sessions',
      description:
        "The project's sessions, newest first, with their live state (started_at, ended_at). Changes nothing.",
      input: { limit: z.number().int().min(1).max(200).default(50).describe('how many, 1 to 200') },
    },
    async ({ limit }) =>
      (await deps.sessions.list(principal, { limit: limit as number }))
        .slice(0, limit as number)
        .map(presentSession),
  );
  tool(
    'get_session',
    'mcp:read',
    {
      title: 'Get a session',
      description: 'One session of the project. Changes nothing.',
      input: { session_id: sessionId },
    },
    async ({ session_id }) => presentSession(await deps.sessions.get(principal, session_id as string)),
  );
  tool(
    'get_manifest',
    'mcp:read',
    {
      title: 'Get the manifest of a recording',
      description:
        "Who took part, which tracks (camera, microphone, screen) each published and when: the recording's table of contents. Changes nothing.",
      input: { session_id: sessionId },
    },
    async ({ session_id }) =>
      deps.recordings.manifest(await deps.sessions.get(principal, session_id as string)),
  );
  tool(
    'get_playback_timeline',
    'mcp:read',
    {
      title: 'Get the playback timeline metadata',
      description:
        "The recording's span and its streams with their first and last times, for seeking. Changes nothing.",
      input: { session_id: sessionId },
    },
    async ({ session_id }) =>
      deps.recordings.timelineMeta(await deps.sessions.get(principal, session_id as string)),
  );
  tool(
    'get_event_timeline',
    'mcp:read',
    {
      title: 'Read what happened in a session',
      description:
        'The timeline as text, one line per event: joins and leaves, tracks published and ended, redactions, exports. Changes nothing.',
      input: { session_id: sessionId },
    },
    async ({ session_id }) =>
      (await deps.recordings.timeline(principal, session_id as string))
        .map(
          (e) =>
            `${new Date(e.ts).toISOString()} ${e.type} ${e.actor}${Object.keys(e.data ?? {}).length ? ` ${JSON.stringify(e.data)}` : ''}`,
        )
        .join('\n') || '(no events)',
  );
  tool(
    'get_chat',
    'mcp:read',
    {
      title: "Read a session's chat",
      description:
        'The chat as text, one line per message: time, author, text ("[redacted]" for a redacted message). Changes nothing.',
      input: { session_id: sessionId },
    },
    async ({ session_id }) =>
      (await deps.recordings.chat(principal, session_id as string))
        .map((m) => `${new Date(m.ts).toISOString()} ${m.actor}: ${m.text ?? '[redacted]'}`)
        .join('\n') || '(no chat)',
  );
  tool(
    'get_usage',
    'mcp:read',
    {
      title: 'Get usage',
      description:
        "The organisation's streaming minutes and stored bytes over a range, with the latest records. Changes nothing.",
      input: {
        from: z.string().datetime({ offset: true }).optional().describe('ISO 8601 start (inclusive)'),
        to: z.string().datetime({ offset: true }).optional().describe('ISO 8601 end (exclusive)'),
        session_id: sessionId.optional(),
      },
    },
    async (args) => {
      const { rows, summary } = await deps.billing.usage(principal, {
        from: args.from as string | undefined,
        to: args.to as string | undefined,
        session_id: args.session_id as string | undefined,
        limit: 20,
      });
      return { summary, latest_records: rows.slice(0, 20).map(presentRecord) };
    },
  );
  tool(
    'get_limits',
    'mcp:read',
    {
      title: 'Get free-tier limits',
      description:
        'Whether the organisation is within the free tier or blocked, and what to do about it. Changes nothing.',
      input: {},
    },
    async () => deps.billing.limits(principal),
  );

  // Write (mcp:write)
  tool(
    'create_session',
    'mcp:write',
    {
      title: 'Create a session',
      description:
        'Creates a new session in the project (it starts when its first participant joins); webhooks receive session.created. Counts toward the free tier.',
      input: {
        name: z.string().max(200).optional().describe('at most 200 characters, no control characters'),
      },
      sessionOf: (session) => (session as { id: string }).id,
    },
    async ({ name }) =>
      presentSession(
        await deps.sessions.create(deps.db, principal, { name: (name as string | undefined) ?? '' }),
      ),
  );
  tool(
    'create_connection_token',
    'mcp:write',
    {
      title: 'Mint a connection token',
      description:
        'A token (valid 300 s) for one participant to join the session over WebSocket, live or as a replay. Whoever holds it can join as that participant.',
      input: {
        session_id: sessionId,
        user_id: userId.describe(
          'the participant to join as: 1 to 128 characters, no "/", white space or control character, not "." or ".."',
        ),
        replay: z.boolean().default(false).describe('a replay connection instead of a live one'),
      },
    },
    async (args) =>
      deps.live.connect(principal, args.session_id as string, {
        user_id: args.user_id as string,
        replay: args.replay as boolean,
      }),
  );
  tool(
    'set_visibility',
    'mcp:write',
    {
      title: 'Make a session public or private',
      description:
        'A public session is listed in the public catalog and its recording can be played by anyone without a key. Set is_public false to withdraw it.',
      input: { session_id: sessionId, is_public: z.boolean() },
    },
    async (args) => ({
      is_public: await deps.sessions.setVisibility(
        principal,
        args.session_id as string,
        args.is_public as boolean,
      ),
    }),
  );
  tool(
    'create_replay_link',
    'mcp:write',
    {
      title: 'Create a replay link',
      description:
        'A link anyone can open to replay the recording without a key, until it expires (1 to 43200 minutes, default 1440).',
      input: { session_id: sessionId, expires_in_minutes: z.number().int().min(1).max(43_200).default(1440) },
    },
    async (args) =>
      deps.recordings.createLink(
        deps.db,
        principal,
        args.session_id as string,
        args.expires_in_minutes as number,
      ),
  );
  tool(
    'create_join_link',
    'mcp:write',
    {
      title: 'Create a join link',
      description:
        'A link (url) for people without an account to join the live session as guests, each under the name they type, until it expires (1 to 43200 minutes, default 1440), is revoked or max_uses guests have joined; with can_publish false they watch and chat only. Whoever holds the url can join. Its token is shown this once.',
      input: {
        session_id: sessionId,
        expires_in_minutes: z.number().int().min(1).max(43_200).optional().describe('default 1440 (a day)'),
        max_uses: z.number().int().min(1).max(10_000).optional().describe('default: no limit'),
        can_publish: z.boolean().optional().describe('default true; false: guests watch and chat'),
      },
    },
    async ({ session_id, expires_in_minutes, max_uses, can_publish }) =>
      deps.guests.create(deps.db, principal, session_id as string, {
        expires_in_minutes: expires_in_minutes as number | undefined,
        max_uses: max_uses as number | undefined,
        can_publish: can_publish as boolean | undefined,
      }),
  );
  tool(
    'redact_participant',
    'mcp:write',
    {
      title: 'Redact a participant',
      description:
        'Permanently deletes every camera, microphone and screen track of the participant from the recording, and every export that shows them; with include_chat, their chat messages too. Cannot be undone.',
      destructive: true,
      input: {
        session_id: sessionId,
        user_id: z.string().min(1).max(200).describe('the participant to remove'),
        include_chat: z.boolean().default(false),
      },
    },
    async (args) =>
      deps.recordings.redact(
        principal,
        args.session_id as string,
        args.user_id as string,
        args.include_chat as boolean,
      ),
  );
  registerExportTools(tool, deps, principal);
  registerRecordingTools(tool, deps, principal);
  registerResources(server, deps, principal);

  /**
   * The SDK answers a call whose arguments do not match the tool's schema (or that names no tool)
   * before the tool runs; such a call is still an agent's call, and is logged here.
   */
  async function logRefusedCall(body: unknown): Promise<void> {
    const call = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    if (!call || call.method !== 'tools/call' || typeof call.params?.name !== 'string') return;
    const input = inputs.get(call.params.name);
    if (input && input.safeParse(call.params.arguments ?? {}).success) return;
    const args = call.params.arguments as { session_id?: unknown } | undefined;
    await deps.agents.record(principal, {
      tool: call.params.name.slice(0, 100),
      sessionId: typeof args?.session_id === 'string' ? args.session_id.slice(0, 100) : null,
      status: 'failed',
      errorCode: input ? 'BAD_REQUEST' : 'NOT_FOUND',
    });
  }
  return { server, logRefusedCall };
}
