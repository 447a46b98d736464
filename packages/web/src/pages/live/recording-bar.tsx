import { isStatus, vss } from '../../api';
import type { RoomState } from '@vss/sdk';
import { notRecordedOfYou, recordingLine } from '@vss/sdk';
import { useAction } from '../../ui/hooks';
import { ErrorNote } from '../../ui/kit';

/** Pausing or resuming refused, in words. */
export function pauseError(err: unknown, pausing: boolean): Error {
  if (isStatus(err, 403))
    return new Error("Only the session's owner or an admin of the organisation can pause the recording.");
  if (isStatus(err, 409))
    return new Error(
      /ended/i.test(err.message)
        ? 'The session has ended: there is no recording to pause or resume.'
        : pausing
          ? 'The recording is already paused.'
          : 'The recording is not paused.',
    );
  return err instanceof Error ? err : new Error(String(err));
}

/** Pauses (`pausing`) or resumes the recording of a session; rejects with a sentence. */
export async function switchRecording(sessionId: string, pausing: boolean): Promise<void> {
  try {
    const params = { path: { sessionId } };
    if (pausing) await vss.post('/v1/sessions/{sessionId}/recording/pause', { params });
    else await vss.post('/v1/sessions/{sessionId}/recording/resume', { params });
  } catch (err) {
    throw pauseError(err, pausing);
  }
}

/**
 * Whether the call is being recorded, for everybody in it: "● Recording" (only while the rules
 * record something of someone here), "Paused — not recording", or why nothing is recorded; and
 * what of this participant the rules leave out. The session's owner and the
 * organisation's admins (`canPause`) pause and resume it; everybody sees the change at once.
 */
export function RecordingBar({
  sessionId,
  state,
  canPause,
}: {
  sessionId: string;
  state: RoomState;
  canPause: boolean;
}) {
  const change = useAction((pausing: boolean) => switchRecording(sessionId, pausing));
  const rec = state.recording;
  if (!rec) return null;
  const paused = rec.state === 'paused';
  const line = recordingLine(rec, state.participants);
  // Said once for everyone: "the rules leave out everyone here" already covers this participant.
  const mine = line.look === 'on' ? notRecordedOfYou(rec.rules, state.self, rec.hosts) : null;
  return (
    <div className={`recording-bar ${line.look}`} role="region" aria-label="Recording">
      {/* One live region for both lines, but not role="status": the connection's line is the page's status. */}
      <div className="recording-words" aria-live="polite">
        <p className="recording-state">
          <span className="recording-dot" aria-hidden="true">
            {line.look === 'paused' ? '❚❚' : line.look === 'on' ? '●' : '○'}
          </span>{' '}
          {line.words}
        </p>
        {mine ? <p className="recording-you">{mine}</p> : null}
      </div>
      {canPause ? (
        <button
          type="button"
          className="secondary"
          disabled={change.busy || state.status !== 'live'}
          onClick={() => void change.run(!paused)}
        >
          {paused ? 'Resume recording' : 'Pause recording'}
        </button>
      ) : null}
      <ErrorNote error={change.error} />
    </div>
  );
}
