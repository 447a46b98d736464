import { useId } from 'react';
import type { RoomState } from '@vss/sdk';
import { RulesEditor } from '../session-detail/rule-form';

/**
 * The recording rules in force, in words, for everybody in the call; they follow each change live.
 * The session's owner and the organisation's admins (`canChange`) add and remove rules and save
 * them from here, offered the people present by name.
 */
export function RulesPanel({
  sessionId,
  state,
  canChange,
}: {
  sessionId: string;
  state: RoomState;
  canChange: boolean;
}) {
  const titleId = useId();
  const rec = state.recording;
  if (!rec) return null;
  return (
    <section className="card live-rules" aria-labelledby={titleId}>
      <h2 id={titleId}>Recording rules</h2>
      <p className="muted">
        Everything is recorded unless a rule says otherwise; the later rule wins. What is not recorded is
        still seen and heard live.
      </p>
      <RulesEditor
        sessionId={sessionId}
        rules={rec.rules}
        names={state.names}
        people={state.participants}
        hasHost={rec.hosts.length > 0}
        editable={canChange}
        labelledBy={titleId}
      />
      {canChange ? null : (
        <p className="muted">
          Only the session&apos;s creator or an admin of the organisation can change them.
        </p>
      )}
    </section>
  );
}
