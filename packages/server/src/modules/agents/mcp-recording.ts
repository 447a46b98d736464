import { z } from 'zod';
import type { Principal } from '../../http/principal.js';
import { MAX_RULES, RULE_KINDS } from '../../lib/recording.js';
import { USER_ID, USER_ID_MAX } from '../live/service.js';
import type { DefineTool, McpDeps } from './mcp-deps.js';

const sessionId = z.string().uuid().describe('the session id (a UUID)');

/**
 * One recording rule, by the REST API's rules: `all: true`, or a user_id (or `host: true`) and/or a
 * kind, never both at once; nothing else. A refusal names the rule and its field (`rules[2].kind`).
 */
const rule = z
  .object({
    type: z
      .enum(['include', 'exclude'])
      .describe('include records what the rule matches, exclude leaves it out'),
    all: z.literal(true).optional().describe('the rule matches every stream'),
    user_id: z
      .string()
      .min(1)
      .max(USER_ID_MAX)
      .regex(USER_ID, 'must have no "/", white space or control character, and not be "." or ".."')
      .optional()
      .describe('only this participant (who need not have joined yet)'),
    host: z
      .literal(true)
      .optional()
      .describe(
        "only the session's hosts: the dashboard member who created it; a session created with a key has none",
      ),
    kind: z.enum(RULE_KINDS).optional().describe('only this kind of stream'),
  })
  .strict()
  .superRefine((r, ctx) => {
    const narrowed = r.user_id !== undefined || r.host !== undefined || r.kind !== undefined;
    if (r.all && narrowed)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['all'],
        message: '"all" matches every stream; leave out user_id, host and kind, or "all"',
      });
    if (r.host && r.user_id !== undefined)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['host'],
        message: '"host" names the session\'s hosts and user_id one participant; give one of them',
      });
    if (!r.all && !narrowed)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['user_id'],
        message: 'a rule names user_id or host, kind, or both, or is "all": true',
      });
  });

/** What a session records: its recording rules, and pausing and resuming it (scope mcp:write). */
export function registerRecordingTools(tool: DefineTool, deps: McpDeps, principal: Principal): void {
  const recording = deps.live.recording;
  tool(
    'set_recording_rules',
    'mcp:write',
    {
      title: 'Set what a session records',
      description: `Replaces the session's recording rules, which decide which streams (cam, mic, screen, chat) are stored. For each stream every matching rule applies in order, the later winning; a stream no rule matches is recorded, so [] records everything. [{"type":"exclude","all":true},{"type":"include","host":true}] records the host alone (the dashboard member who created the session; a session created with a key has no host, so name its participants by user_id). Applies to what is published from now on; what is not recorded is still relayed live, and every participant is told. At most ${MAX_RULES} rules. Returns the rules and whether the recording is paused.`,
      input: {
        session_id: sessionId,
        rules: z
          .array(rule)
          .max(MAX_RULES)
          .describe(
            'in the order they apply; each is {"type","all":true} or names user_id (or "host":true) and/or kind',
          ),
      },
    },
    async ({ session_id, rules }) =>
      recording.setRules(principal, session_id as string, rules as z.infer<typeof rule>[]),
  );
  tool(
    'pause_recording',
    'mcp:write',
    {
      title: 'Pause the recording',
      description:
        "From now until resume_recording nothing of the session is stored but its timeline's own events; the call goes on live and every participant is told. Replay skips the paused span and the export leaves it out. Fails (CONFLICT) when the session has ended or is already paused.",
      input: { session_id: sessionId },
    },
    async ({ session_id }) => recording.pause(principal, session_id as string),
  );
  tool(
    'resume_recording',
    'mcp:write',
    {
      title: 'Resume a paused recording',
      description:
        'Recording goes on from now, in the same recording; every participant is told. Fails (CONFLICT) when it is not paused or the session has ended.',
      input: { session_id: sessionId },
    },
    async ({ session_id }) => recording.resume(principal, session_id as string),
  );
}
