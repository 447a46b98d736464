import { useState, type FormEvent } from 'react';
import { vss } from '../../api';
import { useAuth } from '../../auth';
import { formatTime } from '../../ui/format';
import { useAction } from '../../ui/hooks';
import { ConfirmDialog, Empty, ErrorNote, Field, SecretOnce } from '../../ui/kit';
import { PagedView, Table } from '../../ui/list';
import { ProjectSelect, useProjectName } from '../../ui/project-select';
import { SCOPES, type AgentToken, type CreatedAgentToken, type PagedList } from './types';

/** Agent tokens: create one (its secret shown once), the list, delete. */
export function AgentTokens({ list }: { list: PagedList<AgentToken> }) {
  const { project } = useAuth();
  const projectName = useProjectName();
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<Array<(typeof SCOPES)[number][0]>>(['mcp:read']);
  const [projectId, setProjectId] = useState(project?.id ?? '');
  const [days, setDays] = useState('');
  const [created, setCreated] = useState<CreatedAgentToken | null>(null);
  const [deleting, setDeleting] = useState<AgentToken | null>(null);
  const create = useAction(async () => {
    const token = await vss.post('/v1/agent-tokens', {
      body: {
        scopes,
        project_id: projectId || project?.id,
        label: label.trim() || null,
        // Sent as typed: the API says when it is not a whole number of days in range.
        ...(days.trim() ? { expires_in_days: Number(days) } : {}),
      },
    });
    setCreated(token);
    setLabel('');
    setDays('');
    list.reload();
  });
  const remove = useAction(async (t: AgentToken) => {
    await vss.delete('/v1/agent-tokens/{tokenId}', { params: { path: { tokenId: t.id } } });
    // Gone from the list with the dialog, in one render: focus then goes to the page's heading.
    list.setItems((items) => items.filter((x) => x.id !== t.id));
    setDeleting(null);
    void list.refresh();
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Agent tokens</h2>
      <p className="muted">
        A <code>sat_…</code> token lets one agent use <code>/mcp</code> on one project with member rights,
        within its scopes, until it is deleted or expires. The REST API never accepts it.
      </p>
      {created ? (
        <SecretOnce
          label="Secret of the new agent token"
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <form className="card token-form" aria-label="New agent token" onSubmit={onSubmit}>
        <div className="fields">
          <Field label="Token label" hint="Optional, e.g. the agent's name">
            {(id, hint) => (
              <input
                id={id}
                maxLength={200}
                aria-describedby={hint}
                value={label}
                onChange={(e) => setLabel(e.target.value)}
              />
            )}
          </Field>
          <ProjectSelect value={projectId || (project?.id ?? '')} onChange={setProjectId} />
          <Field label="Expires in days" hint="1 to 366; empty: never">
            {(id, hint) => (
              <input
                id={id}
                type="number"
                inputMode="numeric"
                min={1}
                max={366}
                aria-describedby={hint}
                value={days}
                onChange={(e) => setDays(e.target.value)}
              />
            )}
          </Field>
        </div>
        <fieldset>
          <legend>Scopes</legend>
          <ul className="scope-list">
            {SCOPES.map(([scope, meaning]) => (
              <li key={scope}>
                <label>
                  <input
                    type="checkbox"
                    checked={scopes.includes(scope)}
                    onChange={(e) =>
                      setScopes((s) => (e.target.checked ? [...s, scope] : s.filter((x) => x !== scope)))
                    }
                  />{' '}
                  <code>{scope}</code> <span className="muted">{meaning}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create agent token'}
        </button>
      </form>
      <PagedView
        list={list}
        empty={
          <Empty title="No agent tokens yet">
            Create one above and put it in your MCP client's configuration.
          </Empty>
        }
      >
        {(items) => (
          <Table
            caption="Agent tokens, oldest first"
            columns={['Label', 'Token', 'Scopes', 'Project', 'Created', 'Expires', 'Last used', 'Actions']}
          >
            {items.map((t) => (
              <tr key={t.id}>
                <td>{t.label ?? <span className="muted">no label</span>}</td>
                <td>
                  <code>{t.prefix}…</code>
                </td>
                <td>{t.scopes.join(', ')}</td>
                <td>{projectName(t.project_id)}</td>
                <td>{formatTime(t.created_at)}</td>
                <td>{t.expires_at ? formatTime(t.expires_at) : 'never'}</td>
                <td>{t.last_used_at ? formatTime(t.last_used_at) : 'never'}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete ${t.label ?? t.prefix}`}
                    onClick={() => {
                      remove.setError(null);
                      setDeleting(t);
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedView>
      {deleting ? (
        <ConfirmDialog
          title="Delete this agent token?"
          confirmLabel="Delete token"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            <code>{deleting.prefix}…</code> {deleting.label ? `(${deleting.label}) ` : ''}is refused by{' '}
            <code>/mcp</code> from its next call on.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
