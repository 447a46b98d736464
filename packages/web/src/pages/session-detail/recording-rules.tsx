import { useEffect, useState, type ReactNode } from 'react';
import { ApiError, api, plainWords } from '../../api';
import {
  MAX_RULES,
  describeRules,
  sameRule,
  type RecordingControls,
  type RecordingRule,
} from '../../recording';
import { useAction, useLoad } from '../../ui/hooks';
import { ErrorNote, Loading } from '../../ui/kit';
import { switchRecording } from '../live/recording-bar';
import { RuleForm } from './rule-form';

/** How often the state is read again while the session may still record (someone may pause it live). */
const REFRESH_MS = 4000;

/** A timeline event, as far as who joined goes. */
interface JoinEvent {
  type: string;
  actor: string;
  data: { user_id?: unknown; display_name?: unknown };
}

/** The rules refused, in words: which rule, and why, without the API's field names. */
function saveError(err: unknown): Error {
  if (err instanceof ApiError && err.status === 403)
    return new Error(
      "Only the session's creator or an admin of the organisation can change what is recorded.",
    );
  if (err instanceof ApiError && err.status === 404) return new Error('This session no longer exists.');
  if (err instanceof ApiError && err.status === 400) {
    const m = /^body\.rules\[(\d+)\](\S*)(?::\s*|\s+)(.*)$/.exec(err.message);
    if (m) return new Error(`Rule ${Number(m[1]) + 1}: ${plainWords(`body${m[2]} ${m[3]}`)}`);
    return new Error(`The rules were not saved: ${plainWords(err.message)}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Who joined the session so far, by user_id, with the names they joined with (from its timeline). */
function joinedOf(events: JoinEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    if (e.type !== 'participant.joined') continue;
    const id = typeof e.data.user_id === 'string' ? e.data.user_id : e.actor;
    const name = typeof e.data.display_name === 'string' && e.data.display_name ? e.data.display_name : id;
    out[id] = name;
  }
  return out;
}

/**
 * What the session records: whether it is recording or paused (with Pause and Resume until it
 * ends), and its recording rules in words, which those allowed (`canChange`) edit and save.
 * `names`: the recorded participants' names, by user_id.
 */
export function RecordingRules({
  sessionId,
  ended,
  canChange,
  names,
}: {
  sessionId: string;
  ended: boolean;
  canChange: boolean;
  names: Record<string, string>;
}) {
  const base = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  const controls = useLoad(
    (signal) => api<RecordingControls>('GET', `${base}/recording-rules`, { signal }),
    [sessionId],
  );
  const joined = useLoad(
    async (signal) => joinedOf(await api<JoinEvent[]>('GET', `${base}/timeline`, { signal }).catch(() => [])),
    [sessionId],
  );
  /** the rules being edited, not saved yet (null: none, the saved ones show) */
  const [draft, setDraft] = useState<RecordingRule[] | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const { reload } = controls;
  const { reload: reloadJoined } = joined;
  useEffect(() => {
    if (ended) return;
    const t = setInterval(() => {
      reload();
      reloadJoined();
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, [ended, reload, reloadJoined]);

  const save = useAction(async (rules: RecordingRule[]) => {
    try {
      await api('PUT', `${base}/recording-rules`, { body: { rules } });
    } catch (err) {
      throw saveError(err);
    }
    setDraft(null);
    setSaid('Rules saved: they apply from now on.');
    reload();
  });
  const pause = useAction(async (pausing: boolean) => {
    await switchRecording(sessionId, pausing);
    setSaid(pausing ? 'Recording paused.' : 'Recording resumed.');
    reload();
  });

  const c = controls.data;
  if (!c) return <Section>{controls.error ? <ErrorNote error={controls.error} /> : <Loading />}</Section>;
  const allNames = { ...joined.data, ...names };
  const rules = draft ?? c.rules;
  const dirty =
    draft !== null && (draft.length !== c.rules.length || draft.some((r, i) => !sameRule(r, c.rules[i]!)));
  const people = Object.keys(allNames);
  const editable = canChange && !ended;
  const lines = describeRules(rules, allNames);
  const paused = c.state === 'paused';
  const edit = (next: RecordingRule[]) => {
    setSaid(null);
    save.setError(null);
    setDraft(next);
  };
  return (
    <Section>
      <ErrorNote error={controls.error} />
      {ended ? (
        <p className="muted">The session has ended: these rules decided what was recorded.</p>
      ) : (
        <div className={`recording-now ${paused ? 'paused' : 'on'}`}>
          <p className="recording-state">
            <span aria-hidden="true">{paused ? '❚❚' : '●'}</span>{' '}
            {paused ? 'Paused — not recording' : 'Recording'}
          </p>
          {canChange ? (
            <button
              type="button"
              className="secondary"
              disabled={pause.busy}
              onClick={() => void pause.run(!paused)}
            >
              {paused ? 'Resume recording' : 'Pause recording'}
            </button>
          ) : null}
        </div>
      )}
      <ErrorNote error={pause.error} />
      <h3 id="rules-title">Rules</h3>
      <p className="muted">
        Everything is recorded unless a rule says otherwise; when rules disagree, the later one wins. What is
        not recorded is still seen and heard live.
      </p>
      {rules.length === 0 ? (
        <p>No rules: everything is recorded.</p>
      ) : (
        <ol className="rules" aria-labelledby="rules-title">
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
            <RuleForm people={people} names={allNames} onAdd={(r) => edit([...rules, r])} />
          ) : (
            <p className="muted">A session can have at most {MAX_RULES} rules.</p>
          )}
          <p className="row">
            <button type="button" disabled={!dirty || save.busy} onClick={() => void save.run(rules)}>
              {save.busy ? 'Saving…' : 'Save rules'}
            </button>
            {dirty ? (
              <>
                <button type="button" className="secondary" onClick={() => setDraft(null)}>
                  Discard changes
                </button>
                <span className="muted">Not saved yet.</span>
              </>
            ) : null}
          </p>
        </>
      ) : !ended ? (
        <p className="muted">
          Only the session&apos;s creator or an admin of the organisation can change them.
        </p>
      ) : null}
      <ErrorNote error={save.error} />
      {said ? <p role="status">{said}</p> : null}
    </Section>
  );
}

/** The panel's frame and heading. */
function Section({ children }: { children: ReactNode }) {
  return (
    <section className="card recording-rules" aria-labelledby="recording-rules-title">
      <h2 id="recording-rules-title">What is recorded</h2>
      {children}
    </section>
  );
}
