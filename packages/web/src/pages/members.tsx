import { useState } from 'react';
import { api } from '../api';
import { useAuth } from '../auth';
import type { Me, Role } from '../types';
import { formatTime } from '../ui/format';
import { useAction, usePagedList } from '../ui/hooks';
import { ConfirmDialog, Empty, ErrorNote, LoadMore, Loading, PageHeader } from '../ui/kit';
import { Invitations } from './members/invitations';

/** A member as `GET /v1/members` lists them. */
type Member = Me;

const ROLES: Role[] = ['owner', 'admin', 'member'];

/** The organisation's members; owners and admins change roles, remove members and invite. */
export function MembersPage() {
  const { me, refresh } = useAuth();
  const list = usePagedList<Member>('/v1/members', { query: { limit: 100 } });
  const [removing, setRemoving] = useState<Member | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const manage = me?.role === 'owner' || me?.role === 'admin';
  const setRole = useAction(async (m: Member, role: Role) => {
    setSaved(null);
    const updated = await api<Member>('PATCH', `/v1/members/${m.id}`, { body: { role } });
    list.setItems((items) => items.map((x) => (x.id === updated.id ? updated : x)));
    setSaved(`${updated.email} is now ${updated.role === 'admin' ? 'an' : 'a'} ${updated.role}.`);
    // One's own role decides what the dashboard offers.
    if (updated.id === me?.id) await refresh();
  });
  const remove = useAction(async (m: Member) => {
    await api('DELETE', `/v1/members/${m.id}`);
    setRemoving(null);
    setSaved(`${m.email} was removed.`);
    list.reload();
  });
  // Only an owner may grant the owner role or change an owner.
  const canChange = (m: Member) => manage && (me?.role === 'owner' || m.role !== 'owner');
  return (
    <>
      <PageHeader
        title="Members"
        sub={
          manage ? 'People of your organisation and their roles.' : 'Only owners and admins manage members.'
        }
      />
      <ErrorNote error={list.error ?? setRole.error} />
      {saved ? <p role="status">{saved}</p> : null}
      {list.loading && list.items.length === 0 ? (
        <Loading label="Loading members…" />
      ) : list.items.length === 0 && !list.error ? (
        <Empty title="No members" />
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Members of the organisation, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                {manage ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {list.items.map((m) => (
                <tr key={m.id}>
                  <td>
                    {m.email}
                    {m.id === me?.id ? <span className="muted"> (you)</span> : null}
                  </td>
                  <td>
                    {canChange(m) ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={setRole.busy}
                        onChange={(e) => void setRole.run(m, e.target.value as Role)}
                      >
                        {ROLES.filter((r) => r !== 'owner' || me?.role === 'owner').map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{formatTime(m.created_at)}</td>
                  {manage ? (
                    <td>
                      {canChange(m) ? (
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Remove ${m.email}`}
                          onClick={() => setRemoving(m)}
                        >
                          Remove
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore next={list.next} loading={list.loading} onMore={list.more} />
      {removing ? (
        <ConfirmDialog
          open
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove member"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(removing)}
          onCancel={() => {
            remove.setError(null);
            setRemoving(null);
          }}
        >
          <p>
            Their account is deleted and they are signed out everywhere. What they recorded stays with the
            organisation.
          </p>
        </ConfirmDialog>
      ) : null}
      {manage ? <Invitations /> : null}
    </>
  );
}
