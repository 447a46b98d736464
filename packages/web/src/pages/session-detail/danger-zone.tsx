import { useState } from 'react';
import { useLocation } from 'wouter';
import { vss } from '../../api';
import { pickLabel } from '../../types';
import { useAction } from '../../ui/hooks';
import { ConfirmDialog, ErrorNote, Field } from '../../ui/kit';

/** Deletes one participant's media from the recording, after saying what goes. */
export function RedactPanel(props: {
  sessionId: string;
  participants: string[];
  /** the names they joined with, by user_id */
  names: Record<string, string>;
  onDone(): void;
}) {
  const [who, setWho] = useState('');
  const [includeChat, setIncludeChat] = useState(false);
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const redact = useAction(async () => {
    const r = await vss.delete('/v1/sessions/{sessionId}/participants/{userId}', {
      params: { path: { sessionId: props.sessionId, userId: who }, query: { include_chat: includeChat } },
    });
    setOpen(false);
    setWho('');
    setResult(
      `${props.names[r.redacted] ?? r.redacted} redacted: ${r.deletedStreams} ${r.deletedStreams === 1 ? 'stream' : 'streams'} deleted.`,
    );
    props.onDone();
  });
  const selected = who || props.participants[0] || '';
  return (
    <section className="card" aria-labelledby="redact-title">
      <h2 id="redact-title">Redact a participant</h2>
      {props.participants.length === 0 ? (
        <p className="muted">No participant with recorded media.</p>
      ) : (
        <div className="inline-form">
          <Field label="Participant to redact">
            {(id) => (
              <select id={id} value={selected} onChange={(e) => setWho(e.target.value)}>
                {props.participants.map((p) => (
                  <option key={p} value={p}>
                    {pickLabel(props.names, p)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <label className="check">
            <input type="checkbox" checked={includeChat} onChange={(e) => setIncludeChat(e.target.checked)} />{' '}
            Also redact their chat messages
          </label>
          <button
            type="button"
            className="danger"
            onClick={() => {
              setWho(selected);
              setResult(null);
              setOpen(true);
            }}
          >
            Redact…
          </button>
        </div>
      )}
      {result ? <p role="status">{result}</p> : null}
      {open ? (
        <ConfirmDialog
          title={`Redact ${props.names[who] ?? who}?`}
          confirmLabel="Delete their media"
          busy={redact.busy}
          error={redact.error}
          onConfirm={() => void redact.run()}
          onCancel={() => setOpen(false)}
        >
          <p>
            Every camera, microphone and screen-share stream of <strong>{props.names[who] ?? who}</strong> is
            deleted from storage: replays and new exports no longer show or play them, and exports made before
            are withdrawn.
            {includeChat
              ? ' Their chat messages are replaced by a redaction marker.'
              : ' Their chat stays.'}{' '}
            This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Deletes the session with its recording and exports, after asking. */
export function DeleteSession({ sessionId, name }: { sessionId: string; name: string }) {
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const del = useAction(async () => {
    await vss.delete('/v1/sessions/{sessionId}', { params: { path: { sessionId } } });
    setOpen(false);
    navigate('/sessions');
  });
  return (
    <section className="card" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete this session</h2>
      <p className="muted">Removes the session, its recording, replay links and exports.</p>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        Delete session…
      </button>
      <ErrorNote error={open ? null : del.error} />
      {open ? (
        <ConfirmDialog
          title={`Delete ${name || 'this session'}?`}
          confirmLabel="Delete session"
          busy={del.busy}
          error={del.error}
          onConfirm={() => void del.run()}
          onCancel={() => setOpen(false)}
        >
          <p>
            The session and everything recorded for it are deleted for good. A live session cannot be deleted.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
