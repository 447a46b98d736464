import { useEffect, useState, type ReactNode } from 'react';
import { vss, type Schemas } from '../../api';
import { useAction, useLoad } from '../../ui/hooks';
import { ErrorNote, Loading } from '../../ui/kit';
import { sessionRecordingLine } from '@vss/sdk';
import { switchRecording } from '../live/recording-bar';
import { RulesEditor } from './rule-form';

/** How often the state is read again while the session may still record (someone may pause it live). */
const REFRESH_MS = 4000;

/** A timeline event (`participant.joined` says who joined). */
type TimelineEvent = Schemas['TimelineEvent'];

/** Who joined the session so far, by user_id, with the names they joined with (from its timeline). */
function joinedOf(events: TimelineEvent[]): Record<string, string> {
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
 * `names`: the recorded participants' names, by user_id; `started`: someone has joined; `hosts`:
 * the session's, whom a `host` rule matches.
 */
export function RecordingRules({
  sessionId,
  started,
  ended,
  canChange,
  names,
  hosts,
}: {
  sessionId: string;
  started: boolean;
  ended: boolean;
  canChange: boolean;
  names: Record<string, string>;
  hosts: string[];
}) {
  const path = { sessionId };
  const controls = useLoad(
    (signal) => vss.get('/v1/sessions/{sessionId}/recording-rules', { params: { path }, signal }),
    [sessionId],
  );
  const joined = useLoad(
    async (signal) =>
      joinedOf(
        await vss.get('/v1/sessions/{sessionId}/timeline', { params: { path }, signal }).catch(() => []),
      ),
    [sessionId],
  );
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

  const pause = useAction(async (pausing: boolean) => {
    await switchRecording(sessionId, pausing);
    setSaid(pausing ? 'Recording paused.' : 'Recording resumed.');
    reload();
  });

  const c = controls.data;
  if (!c) return <Section>{controls.error ? <ErrorNote error={controls.error} /> : <Loading />}</Section>;
  const allNames = { ...joined.data, ...names };
  const editable = canChange && !ended;
  const paused = c.state === 'paused';
  const line = sessionRecordingLine(
    { state: c.state, rules: c.rules, hosts },
    started,
    Object.keys(allNames),
  );
  return (
    <Section>
      <ErrorNote error={controls.error} />
      {ended ? (
        <p className="muted">The session has ended: these rules decided what was recorded.</p>
      ) : (
        <div className={`recording-now ${line.look}`}>
          <p className="recording-state">
            <span aria-hidden="true">{line.look === 'paused' ? '❚❚' : line.look === 'on' ? '●' : '○'}</span>{' '}
            {line.words}
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
      <RulesEditor
        sessionId={sessionId}
        rules={c.rules}
        names={allNames}
        people={Object.keys(allNames)}
        hasHost={hosts.length > 0}
        editable={editable}
        labelledBy="rules-title"
        onSaved={reload}
      />
      {editable ? null : !ended ? (
        <p className="muted">
          Only the session&apos;s creator or an admin of the organisation can change them.
        </p>
      ) : null}
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
