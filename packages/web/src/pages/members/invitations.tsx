import { useState, type FormEvent } from 'react';
import { vss } from '../../api';
import { useAuth } from '../../auth';
import { formatTime } from '../../ui/format';
import { useAction, usePagedList } from '../../ui/hooks';
import { Badge, ErrorNote, Field, SecretOnce } from '../../ui/kit';
import { PagedView, Table } from '../../ui/list';

/** Invite someone by email (the link is shown once, to deliver by hand) and the invitations so far. */
export function Invitations() {
  const { project } = useAuth();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [created, setCreated] = useState<{ email: string; url: string } | null>(null);
  const list = usePagedList('/v1/invitations', { params: { query: { limit: 50 } } });
  const invite = useAction(async () => {
    if (!project) throw new Error('no project to invite into');
    const inv = await vss.post('/v1/projects/{projectId}/invitations', {
      params: { path: { projectId: project.id } },
      body: { email, role },
    });
    setCreated({ email: inv.email, url: inv.accept_url });
    setEmail('');
    list.reload();
  });
  const revoke = useAction(async (id: string) => {
    await vss.delete('/v1/invitations/{invitationId}', { params: { path: { invitationId: id } } });
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
      <PagedView list={list} error={list.error ?? revoke.error} loading={null}>
        {(items) => (
          <>
            <h3>Invitations</h3>
            <Table
              caption="Invitations, newest first"
              columns={['Email', 'Role', 'State', <span className="visually-hidden">Actions</span>]}
            >
              {items.map((i) => {
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
            </Table>
          </>
        )}
      </PagedView>
    </section>
  );
}
