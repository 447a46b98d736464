import { useState } from 'react';
import { vss } from '../../api';
import { formatTime } from '../../ui/format';
import { useAction } from '../../ui/hooks';
import { ConfirmDialog, Empty } from '../../ui/kit';
import { PagedView, Table } from '../../ui/list';
import { useProjectName } from '../../ui/project-select';
import type { Grant, PagedList } from './types';

/** The name an OAuth client gave itself, said to be unverified wherever it is shown. */
export function clientName(g: Pick<Grant, 'client_name' | 'client_id'>): string {
  return g.client_name ?? g.client_id;
}

/** What the signed-in user allowed OAuth clients to do, and a way to revoke each grant. */
export function OAuthGrants({ list }: { list: PagedList<Grant> }) {
  const projectName = useProjectName();
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const revoke = useAction(async (g: Grant) => {
    await vss.delete('/v1/oauth/grants/{grantId}', { params: { path: { grantId: g.id } } });
    // Gone from the list with the dialog, in one render: focus then goes to the page's heading.
    list.setItems((items) => items.filter((x) => x.id !== g.id));
    setRevoking(null);
    void list.refresh();
  });
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">OAuth grants</h2>
      <p className="muted">
        Applications you allowed on the consent page. Names are chosen by the applications themselves.
      </p>
      <PagedView
        list={list}
        empty={
          <Empty title="No applications allowed">
            When an MCP client signs in with OAuth and you allow it, it is listed here until you revoke it.
          </Empty>
        }
      >
        {(items) => (
          <Table
            caption="OAuth grants, newest first"
            columns={['Application', 'Scopes', 'Project', 'Allowed', 'Last used', 'Actions']}
          >
            {items.map((g) => (
              <tr key={g.id}>
                <td>{clientName(g)}</td>
                <td>{g.scopes.join(', ')}</td>
                <td>{projectName(g.project_id)}</td>
                <td>{formatTime(g.created_at)}</td>
                <td>{g.last_used_at ? formatTime(g.last_used_at) : 'never'}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Revoke ${clientName(g)}`}
                    onClick={() => {
                      revoke.setError(null);
                      setRevoking(g);
                    }}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedView>
      {revoking ? (
        <ConfirmDialog
          title="Revoke this application's access?"
          confirmLabel="Revoke access"
          busy={revoke.busy}
          error={revoke.error}
          onConfirm={() => void revoke.run(revoking)}
          onCancel={() => setRevoking(null)}
        >
          <p>
            <strong>{clientName(revoking)}</strong> can no longer act for you: its tokens are refused from its
            next call on. It would have to ask for your consent again.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
