import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api';
import type { Session } from '../../types';
import { formatTime } from '../../ui/format';
import { useAction } from '../../ui/hooks';
import { ConfirmDialog, CopyButton, ErrorNote, Field } from '../../ui/kit';
import type { ReplayLink } from './types';

/** Public visibility (the catalog at /watch) and the public page's address to copy. */
export function Visibility({ session, onChange }: { session: Session; onChange(isPublic: boolean): void }) {
  // Shown at once as asked (so the box follows the click), put back if the API refuses.
  const [isPublic, setIsPublic] = useState(session.is_public);
  useEffect(() => setIsPublic(session.is_public), [session.is_public]);
  const toggle = useAction(async (wanted: boolean) => {
    setIsPublic(wanted);
    try {
      const now = await api<boolean>('PUT', `/v1/sessions/${session.id}/visibility`, {
        body: { is_public: wanted },
      });
      setIsPublic(now);
      onChange(now);
    } catch (err) {
      setIsPublic(!wanted);
      throw err;
    }
  });
  const url = `${location.origin}/watch/${session.id}`;
  return (
    <section className="card" aria-labelledby="visibility-title">
      <h2 id="visibility-title">Visibility</h2>
      <label className="check">
        <input
          type="checkbox"
          checked={isPublic}
          disabled={toggle.busy}
          aria-describedby="visibility-hint"
          onChange={(e) => void toggle.run(e.target.checked)}
        />
        Public
      </label>
      <p id="visibility-hint" className="muted">
        A public session is listed in the public catalog and anyone can replay it without an account.
      </p>
      {isPublic ? (
        <div className="row">
          <code className="secret-value" aria-label="Public address">
            {url}
          </code>
          <CopyButton text={url} label="Copy public address" />
        </div>
      ) : null}
      <ErrorNote error={toggle.error} />
    </section>
  );
}

/** Replay links: time-limited addresses that replay a private session without an account. */
export function ReplayLinks({ sessionId }: { sessionId: string }) {
  const [minutes, setMinutes] = useState('1440');
  const [links, setLinks] = useState<ReplayLink[]>([]);
  const [confirm, setConfirm] = useState(false);
  const [revoked, setRevoked] = useState<number | null>(null);
  const create = useAction(async () => {
    // Sent as typed (a number when it parses): the API checks the range and says what is wrong.
    const n = Number(minutes);
    const link = await api<ReplayLink>('POST', `/v1/sessions/${sessionId}/replay-links`, {
      body: { expires_in_minutes: minutes.trim() === '' || Number.isNaN(n) ? minutes : n },
      idempotent: true,
    });
    setLinks((l) => [link, ...l]);
    setRevoked(null);
  });
  const revoke = useAction(async () => {
    const r = await api<{ revoked: number }>('DELETE', `/v1/sessions/${sessionId}/replay-links`);
    setLinks([]);
    setRevoked(r.revoked);
    setConfirm(false);
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  return (
    <section className="card" aria-labelledby="links-title">
      <h2 id="links-title">Replay links</h2>
      <p className="muted">Anyone with a link can replay this session until it expires or you revoke it.</p>
      {/* noValidate: the API checks the range and its message is the one shown. */}
      <form className="inline-form" onSubmit={onSubmit} noValidate aria-label="New replay link">
        <Field label="Expires in (minutes)" hint="1 to 43200 (30 days); 1440 is one day">
          {(id, hint) => (
            <input
              id={id}
              type="number"
              inputMode="numeric"
              min={1}
              max={43200}
              aria-describedby={hint}
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create replay link'}
        </button>
      </form>
      <ErrorNote error={create.error} />
      {links.length > 0 ? (
        <ul className="links" aria-label="Replay links created here">
          {links.map((l) => (
            <li key={l.token}>
              <code className="secret-value">{l.link}</code>
              <div className="row">
                <CopyButton text={l.link} label="Copy link" />
                <span className="muted">expires {formatTime(l.expires_at)}</span>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {revoked !== null ? (
        <p role="status">{revoked === 1 ? '1 link revoked.' : `${revoked} links revoked.`}</p>
      ) : null}
      <div className="row">
        <button type="button" className="secondary" onClick={() => setConfirm(true)}>
          Revoke all links
        </button>
      </div>
      {confirm ? (
        <ConfirmDialog
          title="Revoke every replay link?"
          confirmLabel="Revoke all"
          busy={revoke.busy}
          error={revoke.error}
          onConfirm={() => void revoke.run()}
          onCancel={() => setConfirm(false)}
        >
          <p>Every link of this session stops working at once, including links shared earlier.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
