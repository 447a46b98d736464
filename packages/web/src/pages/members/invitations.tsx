import { useState, type FormEvent } from 'react';
import { api } from '../../api';
import { useAuth } from '../../auth';
import { formatTime } from '../../ui/format';
import { useAction, usePagedList } from '../../ui/hooks';
import { Badge, ErrorNote, Field, LoadMore, SecretOnce } from '../../ui/kit';

/** `GET /v1/invitations` (without the token). */
interface Invitation {
  id: string;
  email: string;
  role: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** Invite someone by email (the link is shown once, to deliver by hand) and the invitations so far. */
export function Invitations() {
  const { project } = useAuth();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [created, setCreated] = useState<{ email: string; url: string } | null>(null);
  const list = usePagedList<Invitation>('/v1/invitations', { query: { limit: 50 } });
  const invite = useAction(async () => {
    if (!project) throw new Error('no project to invite into');
    const inv = await api<Invitation & { accept_url: string }>(
      'POST',
      `/v1/projects/${project.id}/invitations`,
      { body: { email, role }, idempotent: true },
    );
    setCreated({ email: inv.email, url: inv.accept_url });
    setEmail('');
    list.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api('DELETE', `/v1/invitations/${id}`);
    list.reload();
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    void invite.run();
  };
  const now = Date.now();
  return (
    <section aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <form className="card inline-form" onSubmit={onSubmit} aria-label="Invite">
        <Field label="Email to invite">
          {(id) => (
            <input
              id={id}
              type="email"
              autoComplete="off"
              required
              maxLength={254}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Invited role" hint="Admins also manage keys, webhooks, members and billing">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={role}
              onChange={(e) => setRole(e.target.value as 'member' | 'admin')}
            >
              <option value="member">Member</option>
              <option value="admin">Admin</option>
            </select>
          )}
        </Field>
        <button type="submit" disabled={invite.busy}>
          {invite.busy ? 'Inviting…' : 'Create invitation'}
        </button>
      </form>
      <ErrorNote error={invite.error} />
      {created ? (
        <SecretOnce
          label={`Invitation link for ${created.email}`}
          secret={created.url}
          onDone={() => setCreated(null)}
        />
      ) : null}
      {created ? (
        <p className="muted">Send it to them: it is valid for 7 days, for that email address only.</p>
      ) : null}
      <ErrorNote error={list.error ?? revoke.error} />
      {list.items.length > 0 ? <h3>Invitations</h3> : null}
      {list.items.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Invitations, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((i) => {
                const expired = !i.accepted_at && Date.parse(i.expires_at) < now;
                return (
                  <tr key={i.id}>
                    <td>{i.email}</td>
                    <td>{i.role}</td>
                    <td>
                      {i.accepted_at ? (
                        <Badge tone="ok">accepted {formatTime(i.accepted_at)}</Badge>
                      ) : expired ? (
                        <Badge tone="idle">expired</Badge>
                      ) : (
                        <Badge tone="warn">pending until {formatTime(i.expires_at)}</Badge>
                      )}
                    </td>
                    <td>
                      {!i.accepted_at ? (
                        <button
                          type="button"
                          className="secondary"
                          disabled={revoke.busy}
                          aria-label={`Revoke the invitation of ${i.email}`}
                          onClick={() => void revoke.run(i.id)}
                        >
                          Revoke
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      <LoadMore next={list.next} loading={list.loading} onMore={list.more} />
    </section>
  );
}
