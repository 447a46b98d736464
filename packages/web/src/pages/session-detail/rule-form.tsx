import { useState, type FormEvent } from 'react';
import { KIND_WORDS, RULE_KINDS, type RecordingRule, type RuleKind } from '../../recording';
import { pickLabel } from '../../types';
import { ErrorNote, Field } from '../../ui/kit';

/** What the API allows as a participant id: no "/", white space or control character, not "." or "..". */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const PARTICIPANT_ID = /^(?!\.\.?$)[^/\s\u0000-\u001f\u007f]+$/u;
const ID_MAX = 128;
const EVERYONE = '';
const SOMEONE_ELSE = '\u0000other';

const WHAT: Record<RuleKind, string> = {
  cam: 'Camera',
  mic: 'Microphone',
  screen: 'Screen share',
  chat: 'Chat messages',
};

/**
 * A new rule: record or not, whom (everyone, someone in the session, or someone by their
 * participant id, who may not have joined yet), and what (everything, or one kind).
 */
export function RuleForm({
  people,
  names,
  onAdd,
}: {
  /** user ids to offer, in order */
  people: string[];
  names: Record<string, string>;
  onAdd(rule: RecordingRule): void;
}) {
  const [type, setType] = useState<RecordingRule['type']>('exclude');
  const [who, setWho] = useState(EVERYONE);
  const [other, setOther] = useState('');
  const [what, setWhat] = useState<RuleKind | ''>('');
  const [error, setError] = useState<string | null>(null);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    let userId: string | undefined = who === EVERYONE ? undefined : who;
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
    if (userId === undefined && what === '') rule.all = true;
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
            {people.map((u) => (
              <option key={u} value={u}>
                {pickLabel(names, u)}
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
