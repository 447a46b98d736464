import { useState, type FormEvent } from 'react';
import { vss } from '../../api';
import { formatTime } from '../../ui/format';
import { useAction, usePagedList } from '../../ui/hooks';
import { ErrorNote, Field, SecretOnce } from '../../ui/kit';
import { PagedView } from '../../ui/list';
import { ExpiryMinutes } from './expiry-field';
import type { ListedJoinLink } from './types';

/** How a link's uses read: "Used 2 of 5 times", "Not used yet". */
function usesText(l: ListedJoinLink): string {
  const times = (n: number) => (n === 1 ? 'once' : `${n} times`);
  if (l.max_uses === null) return l.uses === 0 ? 'Not used yet, no limit' : `Used ${times(l.uses)}, no limit`;
  return `Used ${l.uses} of ${l.max_uses} ${l.max_uses === 1 ? 'time' : 'times'}`;
}

/**
 * Join links: an address that lets people without an account join this session live, under a name
 * they choose, until it expires, is used up or is revoked; optionally to watch and chat only.
 */
export function JoinLinks({ sessionId }: { sessionId: string }) {
  const path = { sessionId };
  const list = usePagedList('/v1/sessions/{sessionId}/join-links', {
    params: { path, query: { limit: 50 } },
  });
  const [minutes, setMinutes] = useState('1440');
  const [uses, setUses] = useState('');
  const [canPublish, setCanPublish] = useState(true);
  const [made, setMade] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const { reload } = list;
  const create = useAction(async () => {
    const link = await vss.post('/v1/sessions/{sessionId}/join-links', {
      params: { path },
      body: {
        expires_in_minutes: Number(minutes),
        max_uses: uses.trim() ? Number(uses) : undefined,
        can_publish: canPublish,
      },
    });
    setMade(link.url);
    setSaid(null);
    reload();
  });
  const revoke = useAction(async (id: string) => {
    await vss.delete('/v1/sessions/{sessionId}/join-links/{linkId}', {
      params: { path: { ...path, linkId: id } },
    });
    setSaid('Join link revoked: it no longer lets anyone in.');
    reload();
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  const now = Date.now();
  return (
    <section className="card join-links" aria-labelledby="join-links-title">
      <h2 id="join-links-title">Invite people</h2>
      <p className="muted">
        Anyone with a join link can join this session live from a browser, without an account, under a name
        they choose: until the link expires, is used up, or you revoke it.
      </p>
      <form className="inline-form" onSubmit={onSubmit} aria-label="New join link">
        <ExpiryMinutes label="Valid for (minutes)" value={minutes} onChange={setMinutes} />
        <Field label="Uses allowed" hint="Empty: no limit">
          {(id, hint) => (
            <input
              id={id}
              type="number"
              inputMode="numeric"
              min={1}
              max={10000}
              step={1}
              aria-describedby={hint}
              value={uses}
              onChange={(e) => setUses(e.target.value)}
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={canPublish} onChange={(e) => setCanPublish(e.target.checked)} />
          Can share camera and microphone
        </label>
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create join link'}
        </button>
      </form>
      <ErrorNote error={create.error} />
      {made ? (
        // Keyed by the address: a second link made while one shows is focused and announced too.
        <SecretOnce
          key={made}
          label="New join link"
          lead="Send this link to the people you invite."
          secret={made}
          copyLabel="Copy link"
          onDone={() => setMade(null)}
        />
      ) : null}
      <PagedView
        list={list}
        error={list.error ?? revoke.error}
        loading={null}
        empty={<p className="muted">No join links yet.</p>}
      >
        {(links) => (
          <ul className="links" aria-label="Join links of this session">
            {links.map((l) => {
              const expired = Date.parse(l.expires_at) <= now;
              const usedUp = l.max_uses !== null && l.uses >= l.max_uses;
              return (
                <li key={l.id} className="row">
                  <span>
                    {usesText(l)} · {l.can_publish ? 'camera and microphone' : 'watch and chat only'}
                  </span>
                  <span className={expired || usedUp ? 'error' : 'muted'}>
                    {usedUp ? 'used up, ' : ''}
                    {expired ? 'expired' : 'expires'} {formatTime(l.expires_at)}
                  </span>
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Revoke the join link created ${formatTime(l.created_at)}`}
                    disabled={revoke.busy}
                    onClick={() => void revoke.run(l.id)}
                  >
                    Revoke
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </PagedView>
      {said ? <p role="status">{said}</p> : null}
    </section>
  );
}
