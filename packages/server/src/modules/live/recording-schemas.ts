import { Type, type Static } from '@sinclair/typebox';
import { BadRequest } from '../../http/errors.js';
import { MAX_RULES, RULE_KINDS, type RecordingRule } from '../../lib/recording.js';
import { USER_ID_MAX, USER_ID_PATTERN } from './schemas.js';

export const RecordingRuleSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('include'), Type.Literal('exclude')], {
      description: '`include` records what the rule matches, `exclude` leaves it out',
    }),
    all: Type.Optional(Type.Literal(true, { description: 'the rule matches every stream' })),
    user_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: USER_ID_MAX,
        pattern: USER_ID_PATTERN,
        description:
          'only this participant (who need not have joined yet: rules may name someone before they join)',
      }),
    ),
    host: Type.Optional(
      Type.Literal(true, {
        description:
          "only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.",
      }),
    ),
    kind: Type.Optional(
      Type.Union(
        RULE_KINDS.map((k) => Type.Literal(k)),
        { description: 'only this kind of stream: `cam`, `mic`, `screen` or `chat`' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Matches every stream (`all: true`), or those of `user_id` (or of the session's hosts, `host: true`) and/or of `kind` (a rule with both matches that participant's streams of that kind).",
  },
);

export const RecordingRulesBody = Type.Object(
  {
    rules: Type.Array(RecordingRuleSchema, {
      maxItems: MAX_RULES,
      description: `Evaluated in order for each stream, a later matching rule winning over an earlier one; a stream no rule matches is recorded. At most ${MAX_RULES} rules; \`[]\` records everything.`,
    }),
  },
  { additionalProperties: false },
);

export const RecordingControlAnswer = Type.Object({
  session_id: Type.String(),
  state: Type.Union([Type.Literal('recording'), Type.Literal('paused')], {
    description: "what participants are told (`welcome`'s `recording` and `control` `recording`)",
  }),
  paused_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'since when it is paused; null while recording',
  }),
  rules: Type.Array(RecordingRuleSchema),
});

/**
 * The rules as a request gave them, checked beyond their schema: each matches something, and
 * `all` is not combined with a narrower condition (which would say two things at once).
 */
export function checkedRules(rules: Static<typeof RecordingRulesBody>['rules']): RecordingRule[] {
  rules.forEach((r, i) => {
    const narrowed = r.user_id !== undefined || r.host !== undefined || r.kind !== undefined;
    if (r.all && narrowed)
      throw new BadRequest(
        `body.rules[${i}]: "all" matches every stream; leave out user_id, host and kind, or "all"`,
      );
    if (r.host && r.user_id !== undefined)
      throw new BadRequest(
        `body.rules[${i}]: "host" names the session's hosts and user_id one participant; give one of them`,
      );
    if (!r.all && !narrowed)
      throw new BadRequest(
        `body.rules[${i}]: a rule names user_id or host, kind, or both, or is "all": true`,
      );
  });
  return rules.map((r) => ({ ...r }));
}
