import { useEffect, useState } from 'react';
import { vss } from '../api';
import { useAuth } from '../auth';
import type { Me, Role } from '../types';
import { formatTime } from '../ui/format';
import { useAction, usePagedList } from '../ui/hooks';
import { ConfirmDialog, Empty, PageHeader } from '../ui/kit';
import { PagedView, Table } from '../ui/list';
import { Invitations } from './members/invitations';

/** A member as `GET /v1/members` lists them. */
type Member = Me;

const ROLES: Role[] = ['owner', 'admin', 'member'];

/**
 * A member's role: picked in the select, applied with the button. Not applied on change: arrow
 * keys on a closed select fire a change per option passed, and an owner arrowing past "admin"
 * would demote themselves on the way.
 */
function RoleCell(props: {
  member: Member;
  roles: Role[];
  busy: boolean;
  apply(role: Role): Promise<boolean>;
}) {
  const m = props.member;
  const [role, setRole] = useState<Role>(m.role);
  useEffect(() => setRole(m.role), [m.role]);
  return (
    <div className="row">
      <select
        aria-label={`Role of ${m.email}`}
        value={role}
        onChange={(e) => setRole(e.target.value as Role)}
      >
        {props.roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="secondary"
        aria-label={`Change role for ${m.email}`}
        // aria-disabled rather than disabled: the button keeps focus after applying.
        aria-disabled={props.busy || role === m.role}
        onClick={async () => {
          if (props.busy || role === m.role) return;
          // Refused (the last owner): the select shows the role the member still has.
          if (!(await props.apply(role))) setRole(m.role);
        }}
      >
        Change role
      </button>
    </div>
  );
}

/** The organisation's members; owners and admins change roles, remove members and invite. */
export function MembersPage() {
  const { me, refresh } = useAuth();
  const list = usePagedList('/v1/members', { params: { query: { limit: 100 } } });
  const [removing, setRemoving] = useState<Member | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const manage = me?.role === 'owner' || me?.role === 'admin';
  const setRole = useAction(async (m: Member, role: Role) => {
    setSaved(null);
    const updated = await vss.patch('/v1/members/{userId}', {
      params: { path: { userId: m.id } },
      body: { role },
    });
    list.setItems((items) => items.map((x) => (x.id === updated.id ? updated : x)));
    setSaved(`${updated.email} is now ${updated.role === 'admin' ? 'an' : 'a'} ${updated.role}.`);
    // One's own role decides what the dashboard offers.
    if (updated.id === me?.id) await refresh();
    return true;
  });
  const remove = useAction(async (m: Member) => {
    await vss.delete('/v1/members/{userId}', { params: { path: { userId: m.id } } });
    // Gone from the list with the dialog, in one render: focus then goes to the page's heading.
    list.setItems((items) => items.filter((x) => x.id !== m.id));
    setRemoving(null);
    setSaved(`${m.email} was removed.`);
    void list.refresh();
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
      {saved ? <p role="status">{saved}</p> : null}
      <PagedView
        list={list}
        error={list.error ?? setRole.error}
        loading="Loading members…"
        empty={<Empty title="No members" />}
      >
        {(items) => (
          <Table
            caption="Members of the organisation, oldest first"
            columns={[
              'Email',
              'Role',
              'Joined',
              manage ? <span className="visually-hidden">Actions</span> : null,
            ]}
          >
            {items.map((m) => (
              <tr key={m.id}>
                <td>
                  {m.email}
                  {m.id === me?.id ? <span className="muted"> (you)</span> : null}
                </td>
                <td>
                  {canChange(m) ? (
                    <RoleCell
                      member={m}
                      roles={ROLES.filter((r) => r !== 'owner' || me?.role === 'owner')}
                      busy={setRole.busy}
                      apply={async (role) => (await setRole.run(m, role)) === true}
                    />
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
          </Table>
        )}
      </PagedView>
      {removing ? (
        <ConfirmDialog
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
