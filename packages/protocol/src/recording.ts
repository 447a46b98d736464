/**
 * What a session records: its recording rules (`PUT /v1/sessions/{id}/recording-rules`) and
 * whether it is paused, as the server decides it and as participants are told.
 */

/** The kinds of stream a rule can name. */
export const RULE_KINDS = ['cam', 'mic', 'screen', 'chat'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/**
 * One rule: it records (`include`) or leaves out (`exclude`) every stream, or a participant's (or
 * the session's hosts', `host: true`) and/or a kind's.
 */
export interface RecordingRule {
  type: 'include' | 'exclude';
  all?: true;
  user_id?: string;
  /** the session's hosts (see `sessionHosts`) */
  host?: true;
  kind?: RuleKind;
}

/**
 * The user ids a `host` rule matches, from the session's `created_by`: the dashboard member who
 * created it, who joins with their account id as user_id. A session created with an API key or a
 * restricted key has no host (its app names its own participants, so a rule names them by
 * user_id); `host` then matches nobody.
 */
export function sessionHosts(createdBy: string | null | undefined): string[] {
  if (!createdBy || createdBy === 'api_key' || createdBy === 'restricted_key') return [];
  return [createdBy];
}

/** At most this many rules per session. */
export const MAX_RULES = 100;

/**
 * `control` `recording` and `welcome.recording`: whether the call is being recorded, its rules, and
 * the session's hosts (whom a `host` rule matches).
 */
export interface RecordingData {
  state: 'recording' | 'paused';
  rules: RecordingRule[];
  hosts: string[];
}

/** `control` `skip`, on a replay connection: nothing was recorded from `from_ts` to `to_ts`. */
export interface SkipData {
  from_ts: number;
  to_ts: number;
  reason: 'paused';
}

/**
 * Whether `userId`'s stream of `kind` is recorded under `rules`: every matching rule applies in
 * order, so a later one wins; a stream no rule matches is recorded. A rule with neither `user_id`,
 * `host` nor `kind` (`all: true`) matches every stream; a `host` rule matches the user ids in
 * `hosts` (the session's, from `sessionHosts`).
 */
export function isRecorded(
  rules: readonly RecordingRule[],
  userId: string,
  kind: RuleKind,
  hosts: readonly string[],
): boolean {
  let recorded = true;
  for (const r of rules) {
    if (r.user_id !== undefined && r.user_id !== userId) continue;
    if (r.host && !hosts.includes(userId)) continue;
    if (r.kind !== undefined && r.kind !== kind) continue;
    recorded = r.type === 'include';
  }
  return recorded;
}
