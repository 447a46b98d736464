/**
 * What a session records: its recording rules and whether it is paused (`GET|PUT
 * /v1/sessions/{id}/recording-rules`, the live `welcome` and `control` `recording`), and how a
 * person reads them.
 */

import { isRecorded, RULE_KINDS, type RecordingData, type RecordingRule, type RuleKind } from '@vss/protocol';

export {
  isRecorded,
  sessionHosts,
  MAX_RULES,
  RULE_KINDS,
  type RecordingRule,
  type RuleKind,
} from '@vss/protocol';

/** Whether the session is recording now, and its rules. */
export type RecordingStatus = RecordingData;

const isKind = (k: unknown): k is RuleKind => RULE_KINDS.includes(k as RuleKind);

/** The rules in what the server sent, keeping only well-formed ones. */
function readRules(v: unknown): RecordingRule[] {
  if (!Array.isArray(v)) return [];
  const out: RecordingRule[] = [];
  for (const r of v as Array<Record<string, unknown>>) {
    if (!r || (r.type !== 'include' && r.type !== 'exclude')) continue;
    const rule: RecordingRule = { type: r.type };
    if (r.all === true) rule.all = true;
    if (typeof r.user_id === 'string') rule.user_id = r.user_id;
    if (r.host === true) rule.host = true;
    if (isKind(r.kind)) rule.kind = r.kind;
    out.push(rule);
  }
  return out;
}

/** The recording state a `welcome` or `control` `recording` carries, or null when it says none. */
export function readRecordingStatus(v: unknown): RecordingStatus | null {
  if (!v || typeof v !== 'object') return null;
  const d = v as Record<string, unknown>;
  if (d.state !== 'recording' && d.state !== 'paused') return null;
  const hosts = Array.isArray(d.hosts) ? d.hosts.filter((h): h is string => typeof h === 'string') : [];
  return { state: d.state, rules: readRules(d.rules), hosts };
}

/** What each kind is called in a sentence. */
export const KIND_WORDS: Record<RuleKind, string> = {
  cam: 'camera',
  mic: 'microphone',
  screen: 'screen share',
  chat: 'chat messages',
};

/** "a", "a and b", "a, b and c". */
export function andList(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * What the rules leave out of `userId`'s, in a sentence for them ("Your camera is not being
 * recorded."), or null when everything of theirs is recorded. `hosts`: the session's, whom a
 * `host` rule matches.
 */
export function notRecordedOfYou(
  rules: readonly RecordingRule[],
  userId: string,
  hosts: readonly string[],
): string | null {
  const left = RULE_KINDS.filter((k) => !isRecorded(rules, userId, k, hosts));
  if (left.length === 0) return null;
  if (left.length === RULE_KINDS.length)
    return 'Nothing of yours is being recorded: not your camera, microphone, screen share or chat messages.';
  const verb = left.length === 1 && left[0] !== 'chat' ? 'is' : 'are';
  return `Your ${andList(left.map((k) => KIND_WORDS[k]))} ${verb} not being recorded.`;
}

/** What a recording line says, and how it looks: `on` (red) only while something is being recorded. */
export interface RecordingLine {
  look: 'on' | 'off' | 'paused';
  words: string;
}

/**
 * The recording line of a call whose participants are `present`: "Recording" only when the
 * recording runs and the rules record something of someone here; otherwise why nothing is.
 */
export function recordingLine(status: RecordingStatus, present: readonly string[]): RecordingLine {
  if (status.state === 'paused') return { look: 'paused', words: 'Paused — not recording' };
  if (present.length === 0) return { look: 'off', words: 'Not recording yet — nobody is here' };
  const someone = present.some((u) => RULE_KINDS.some((k) => isRecorded(status.rules, u, k, status.hosts)));
  if (!someone) return { look: 'off', words: 'Not recording — the rules leave out everyone here' };
  return { look: 'on', words: 'Recording' };
}

/**
 * The recording line of a session seen from outside the call, where who is present is not known:
 * not recording before anyone joined, nor when the rules record nobody — not the hosts, not
 * `known` (those who joined), not anyone a rule names, nor anyone else.
 */
export function sessionRecordingLine(
  status: RecordingStatus,
  started: boolean,
  known: readonly string[],
): RecordingLine {
  if (status.state === 'paused') return { look: 'paused', words: 'Paused — not recording' };
  if (!started) return { look: 'off', words: 'Not recording yet — nobody has joined' };
  // "" stands for anyone else: no participant has it as user_id, so only rules for all match it.
  const named = status.rules.flatMap((r) => (r.user_id === undefined ? [] : [r.user_id]));
  const anyone = [...status.hosts, ...known, ...named, ''];
  const someone = anyone.some((u) => RULE_KINDS.some((k) => isRecorded(status.rules, u, k, status.hosts)));
  if (!someone) return { look: 'off', words: 'Not recording — the rules leave everyone out' };
  return { look: 'on', words: 'Recording' };
}

/**
 * A rule in plain words: "Don't record bob's camera", "Record host", "Don't record anyone's chat
 * messages", "Don't record anyone". `names`: the names people joined with, by user_id.
 */
export function describeRule(rule: RecordingRule, names: Record<string, string> = {}): string {
  const record = rule.type === 'include';
  const verb = record ? 'Record' : "Don't record";
  const who =
    rule.user_id !== undefined ? (names[rule.user_id] ?? rule.user_id) : rule.host ? 'the host' : null;
  if (who === null && rule.kind === undefined) return record ? 'Record everyone' : "Don't record anyone";
  if (who === null) return `${verb} ${record ? 'everyone' : 'anyone'}'s ${KIND_WORDS[rule.kind!]}`;
  if (rule.kind === undefined) return `${verb} ${who}`;
  return `${verb} ${who}'s ${KIND_WORDS[rule.kind]}`;
}

/**
 * The rules in words, one line each, in order. After "Don't record anyone", the first rule that
 * records someone reads "Record only host" and the ones after it "Also record bob's camera".
 */
export function describeRules(rules: readonly RecordingRule[], names: Record<string, string> = {}): string[] {
  let excludedAll = false;
  let since = 0;
  return rules.map((r) => {
    const said = describeRule(r, names);
    if (r.all || (r.user_id === undefined && !r.host && r.kind === undefined)) {
      excludedAll = r.type === 'exclude';
      since = 0;
      return said;
    }
    if (!excludedAll || r.type !== 'include') return said;
    return said.replace(/^Record /, since++ === 0 ? 'Record only ' : 'Also record ');
  });
}

/** Two rules say the same thing. */
export function sameRule(a: RecordingRule, b: RecordingRule): boolean {
  return (
    a.type === b.type &&
    !!a.all === !!b.all &&
    a.user_id === b.user_id &&
    !!a.host === !!b.host &&
    a.kind === b.kind
  );
}
