import { useState, type FormEvent } from 'react';
import { errorMessage, isStatus, plainWords, vss } from '../../api';
import {
  KIND_WORDS,
  MAX_RULES,
  RULE_KINDS,
  describeRules,
  sameRule,
  type RecordingRule,
  type RuleKind,
} from '@vss/sdk';
import { nameLabels } from '../../types';
import { useAction } from '../../ui/hooks';
import { ErrorNote, Field } from '../../ui/kit';

/** What the API allows as a participant id: no "/", white space or control character, not "." or "..". */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const PARTICIPANT_ID = /^(?!\.\.?$)[^/\s\u0000-\u001f\u007f]+$/u;
const ID_MAX = 128;
const EVERYONE = '';
const SOMEONE_ELSE = '\u0000other';
const HOST = '\u0000host';

const WHAT: Record<RuleKind, string> = {
  cam: 'Camera',
  mic: 'Microphone',
  screen: 'Screen share',
  chat: 'Chat messages',
};

/**
 * A new rule: record or not, whom (everyone, the host, someone in the session by name, or someone by their
 * participant id, who may not have joined yet), and what (everything, or one kind).
 */
export function RuleForm({
  people,
  names,
  hasHost,
  onAdd,
}: {
  /** user ids to offer, in order */
  people: string[];
  names: Record<string, string>;
  /** the session has a host to offer (it was created by a dashboard member) */
  hasHost: boolean;
  onAdd(rule: RecordingRule): void;
}) {
  const [type, setType] = useState<RecordingRule['type']>('exclude');
  const [who, setWho] = useState(EVERYONE);
  const [other, setOther] = useState('');
  const [what, setWhat] = useState<RuleKind | ''>('');
  const [error, setError] = useState<string | null>(null);
  const labels = nameLabels(names, people);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const host = who === HOST;
    let userId: string | undefined = who === EVERYONE || host ? undefined : who;
    if (who === SOMEONE_ELSE) {
      userId = other.trim();
      if (!userId) return setError('Enter the participant id of the person the rule is about.');
      if ([...userId].length > ID_MAX || !PARTICIPANT_ID.test(userId))
        return setError(
          `"${userId}" cannot be a participant id: ids have no spaces or "/" and are at most ${ID_MAX} characters.`,
        );
    }
    setError(null);
    const rule: RecordingRule = { type };
    if (userId === undefined && !host && what === '') rule.all = true;
    if (host) rule.host = true;
    if (userId !== undefined) rule.user_id = userId;
    if (what !== '') rule.kind = what;
    onAdd(rule);
  };
  return (
    <form className="inline-form rule-form" onSubmit={onSubmit} aria-label="New recording rule">
      <Field label="Rule">
        {(id) => (
          <select id={id} value={type} onChange={(e) => setType(e.target.value as RecordingRule['type'])}>
            <option value="exclude">Don&apos;t record</option>
            <option value="include">Record</option>
          </select>
        )}
      </Field>
      <Field label="Whose">
        {(id) => (
          <select id={id} value={who} onChange={(e) => setWho(e.target.value)}>
            <option value={EVERYONE}>Everyone</option>
            {hasHost ? <option value={HOST}>The host (who created the session)</option> : null}
            {people.map((u) => (
              <option key={u} value={u}>
                {labels[u]}
              </option>
            ))}
            <option value={SOMEONE_ELSE}>Someone else (by participant id)…</option>
          </select>
        )}
      </Field>
      {who === SOMEONE_ELSE ? (
        <Field label="Participant id" hint="As they join: a member's name with dashes for spaces, e.g. bob">
          {(id, hint) => (
            <input
              id={id}
              aria-describedby={hint}
              value={other}
              maxLength={ID_MAX}
              autoComplete="off"
              onChange={(e) => setOther(e.target.value)}
            />
          )}
        </Field>
      ) : null}
      <Field label="What">
        {(id) => (
          <select id={id} value={what} onChange={(e) => setWhat(e.target.value as RuleKind | '')}>
            <option value="">Everything</option>
            {RULE_KINDS.map((k) => (
              <option key={k} value={k} title={KIND_WORDS[k]}>
                {WHAT[k]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" className="secondary">
        Add rule
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** The rules refused, in words: which rule, and why, without the API's field names. */
function saveError(err: unknown): Error {
  if (isStatus(err, 403))
    return new Error(
      "Only the session's creator or an admin of the organisation can change what is recorded.",
    );
  if (isStatus(err, 404)) return new Error('This session no longer exists.');
  if (isStatus(err, 400)) {
    const m = /^body\.rules\[(\d+)\](\S*)(?::\s*|\s+)(.*)$/.exec(err.message);
    if (m) return new Error(`Rule ${Number(m[1]) + 1}: ${plainWords(`body${m[2]} ${m[3]}`)}`);
    return new Error(`The rules were not saved: ${plainWords(err.message)}`);
  }
  if (isStatus(err, 0)) return new Error(`The rules were not saved: ${errorMessage(err)}.`);
  return err instanceof Error ? err : new Error(String(err));
}

/** Replaces a session's recording rules (`PUT /v1/sessions/{id}/recording-rules`); rejects with a sentence. */
export async function saveRecordingRules(sessionId: string, rules: RecordingRule[]): Promise<void> {
  try {
    await vss.put('/v1/sessions/{sessionId}/recording-rules', {
      params: { path: { sessionId } },
      body: { rules },
    });
  } catch (err) {
    throw saveError(err);
  }
}

/**
 * A session's recording rules in words, one numbered line each (the list named by `labelledBy`).
 * When `editable`: Remove on each, a form for a new one offering `people` by name, and Save, which
 * replaces the session's rules; until the new `rules` come back, the saved ones show.
 */
export function RulesEditor({
  sessionId,
  rules: inForce,
  names,
  people,
  hasHost,
  editable,
  labelledBy,
  onSaved,
}: {
  sessionId: string;
  /** the rules in force, as last read */
  rules: RecordingRule[];
  /** the names people joined with, by user_id */
  names: Record<string, string>;
  /** user ids to offer in the form, in order */
  people: string[];
  /** the session has a host, whom the form offers */
  hasHost: boolean;
  editable: boolean;
  /** the id of the list's heading */
  labelledBy: string;
  onSaved?(): void;
}) {
  /** the rules being edited, not saved yet (null: none) */
  const [draft, setDraft] = useState<RecordingRule[] | null>(null);
  /** the rules just saved, shown while `inForce` is still what it was when saving */
  const [saved, setSaved] = useState<{ rules: RecordingRule[]; over: RecordingRule[] } | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const save = useAction(async (next: RecordingRule[]) => {
    await saveRecordingRules(sessionId, next);
    setSaved({ rules: next, over: inForce });
    setDraft(null);
    setSaid('Rules saved: they apply from now on.');
    onSaved?.();
  });
  const current = saved && saved.over === inForce ? saved.rules : inForce;
  const rules = draft ?? current;
  const dirty =
    draft !== null && (draft.length !== current.length || draft.some((r, i) => !sameRule(r, current[i]!)));
  const lines = describeRules(rules, names);
  const edit = (next: RecordingRule[]) => {
    setSaid(null);
    save.setError(null);
    setDraft(next);
  };
  return (
    <>
      {rules.length === 0 ? (
        <p>No rules: everything is recorded.</p>
      ) : (
        <ol className="rules" aria-labelledby={labelledBy}>
          {rules.map((r, i) => (
            <li key={i}>
              <span>{lines[i]}</span>
              {editable ? (
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Remove rule ${i + 1}: ${lines[i]}`}
                  onClick={() => edit(rules.filter((_, k) => k !== i))}
                >
                  Remove
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {editable ? (
        <>
          {rules.length < MAX_RULES ? (
            <RuleForm people={people} names={names} hasHost={hasHost} onAdd={(r) => edit([...rules, r])} />
          ) : (
            <p className="muted">A session can have at most {MAX_RULES} rules.</p>
          )}
          <p className="row rules-save">
            <button type="button" disabled={!dirty || save.busy} onClick={() => void save.run(rules)}>
              {save.busy ? 'Saving…' : 'Save rules'}
            </button>
            {dirty ? (
              <>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => {
                    save.setError(null);
                    setDraft(null);
                  }}
                >
                  Discard changes
                </button>
                <span className="muted">Not saved yet.</span>
              </>
            ) : null}
          </p>
        </>
      ) : null}
      <ErrorNote error={save.error} />
      {said ? <p role="status">{said}</p> : null}
    </>
  );
}
