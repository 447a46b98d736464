import { useEffect, useState, type FormEvent } from 'react';
import { vss } from '../../api';
import type { Session } from '../../types';
import { formatTime } from '../../ui/format';
import { useAction, usePagedList } from '../../ui/hooks';
import { ConfirmDialog, CopyButton, ErrorNote } from '../../ui/kit';
import { PagedView } from '../../ui/list';
import { ExpiryMinutes } from './expiry-field';

/** Public visibility (the catalog at /watch) and the public page's address to copy. */
export function Visibility({
  session,
  canChange,
  onChange,
}: {
  session: Session;
  /** false: shown as it is, not offered (the session's host and the organisation's admins change it) */
  canChange: boolean;
  onChange(isPublic: boolean): void;
}) {
  // Shown at once as asked (so the box follows the click), put back if the API refuses.
  const [isPublic, setIsPublic] = useState(session.is_public);
  useEffect(() => setIsPublic(session.is_public), [session.is_public]);
  const toggle = useAction(async (wanted: boolean) => {
    setIsPublic(wanted);
    try {
      const now = await vss.put('/v1/sessions/{sessionId}/visibility', {
        params: { path: { sessionId: session.id } },
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
          disabled={toggle.busy || !canChange}
          aria-describedby={canChange ? 'visibility-hint' : 'visibility-hint host-only'}
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
  const path = { sessionId };
  const [minutes, setMinutes] = useState('1440');
  const list = usePagedList('/v1/sessions/{sessionId}/replay-links', {
    params: { path, query: { limit: 50 } },
  });
  // The address of each link made on this page: a token is shown once, and never listed again.
  const [made, setMade] = useState<Record<string, string>>({});
  const [confirm, setConfirm] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const { reload } = list;
  const create = useAction(async () => {
    const link = await vss.post('/v1/sessions/{sessionId}/replay-links', {
      params: { path },
      body: { expires_in_minutes: Number(minutes) },
    });
    setMade((m) => ({ ...m, [link.id]: link.link }));
    setSaid(null);
    reload();
  });
  const revokeOne = useAction(async (id: string) => {
    await vss.delete('/v1/sessions/{sessionId}/replay-links/{linkId}', {
      params: { path: { ...path, linkId: id } },
    });
    list.setItems((items) => items.filter((l) => l.id !== id));
    setSaid('Link revoked.');
  });
  const revoke = useAction(async () => {
    const r = await vss.delete('/v1/sessions/{sessionId}/replay-links', { params: { path } });
    setMade({});
    setSaid(r.revoked === 1 ? '1 link revoked.' : `${r.revoked} links revoked.`);
    setConfirm(false);
    reload();
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  const now = Date.now();
  return (
    <section className="card" aria-labelledby="links-title">
      <h2 id="links-title">Replay links</h2>
      <p className="muted">Anyone with a link can replay this session until it expires or you revoke it.</p>
      <form className="inline-form" onSubmit={onSubmit} aria-label="New replay link">
        <ExpiryMinutes label="Expires in (minutes)" value={minutes} onChange={setMinutes} />
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create replay link'}
        </button>
      </form>
      <ErrorNote error={create.error} />
      <PagedView
        list={list}
        error={list.error ?? revokeOne.error}
        loading={null}
        empty={<p className="muted">No replay links yet.</p>}
      >
        {(items) => (
          <ul className="links" aria-label="Replay links of this session">
            {items.map((l) => {
              const expired = Date.parse(l.expires_at) <= now;
              return (
                <li key={l.id}>
                  {made[l.id] ? (
                    <>
                      <code className="secret-value">{made[l.id]}</code>
                      <span className="muted">Copy it now: the address is shown only here, once.</span>
                    </>
                  ) : null}
                  <div className="row">
                    {made[l.id] ? <CopyButton text={made[l.id]!} label="Copy link" /> : null}
                    <span className={expired ? 'error' : 'muted'}>
                      Created {formatTime(l.created_at)}, {expired ? 'expired' : 'expires'}{' '}
                      {formatTime(l.expires_at)}
                    </span>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Revoke the link created ${formatTime(l.created_at)}`}
                      disabled={revokeOne.busy}
                      onClick={() => void revokeOne.run(l.id)}
                    >
                      Revoke
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </PagedView>
      {said ? <p role="status">{said}</p> : null}
      {list.items.length > 0 ? (
        <div className="row">
          <button type="button" className="secondary" onClick={() => setConfirm(true)}>
            Revoke all links
          </button>
        </div>
      ) : null}
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
