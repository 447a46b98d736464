import type { z } from 'zod';
import type { Db } from '../../db/types.js';
import { ApiError } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import type { BillingService } from '../billing/service.js';
import type { ExportsService } from '../exports/service.js';
import type { GuestsService } from '../guests/service.js';
import type { LiveService } from '../live/service.js';
import type { RecordingsService } from '../recordings/service.js';
import type { SessionsService } from '../sessions/service.js';
import type { AgentsService, Scope } from './service.js';

/** What the MCP tools act through: the same services, rules and tenancy as the REST API. */
export interface McpDeps {
  db: Db;
  version: string;
  agents: AgentsService;
  sessions: SessionsService;
  recordings: RecordingsService;
  exports: ExportsService;
  live: LiveService;
  guests: GuestsService;
  billing: BillingService;
}

/** What a tool is: its title and description, its input, and how its call is logged. */
export interface ToolConfig<Shape extends z.ZodRawShape> {
  title: string;
  description: string;
  destructive?: boolean;
  input: Shape;
  /** the session a successful call made, for its activity row */
  sessionOf?: (value: unknown) => string;
}

/** Defines one tool of the MCP server: its scope checked, its call logged, an error a tool error. */
export type DefineTool = <Shape extends z.ZodRawShape>(
  name: string,
  scope: Scope,
  config: ToolConfig<Shape>,
  run: (args: z.objectOutputType<Shape, z.ZodTypeAny>) => Promise<unknown>,
) => void;

/** How one agent call ended: its value, or the API's code and message. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/**
 * Runs one agent call (a tool or a resource read): the scope checked first, the call written to
 * the activity log however it ends, an API error turned into its code and message. The row names
 * the session the call was about, or, with `sessionOf`, the one it made.
 */
export async function audited<T>(
  deps: McpDeps,
  principal: Principal,
  call: { tool: string; scope: Scope; sessionId: string | null; sessionOf?: (value: T) => string },
  run: () => Promise<T>,
): Promise<Outcome<T>> {
  const row = { tool: call.tool, sessionId: call.sessionId };
  if (!principal.scopes?.includes(call.scope)) {
    await deps.agents.record(principal, { ...row, status: 'refused', errorCode: 'FORBIDDEN' });
    return { ok: false, code: 'FORBIDDEN', message: `${call.tool} needs the ${call.scope} scope` };
  }
  try {
    const value = await run();
    const sessionId = call.sessionOf ? call.sessionOf(value) : row.sessionId;
    await deps.agents.record(principal, { ...row, sessionId, status: 'succeeded', errorCode: null });
    return { ok: true, value };
  } catch (err) {
    const known = err instanceof ApiError;
    const code = known ? err.code : 'SERVER_ERROR';
    await deps.agents.record(principal, { ...row, status: 'failed', errorCode: code });
    return { ok: false, code, message: known ? err.message : 'the service failed to answer; try again' };
  }
}
