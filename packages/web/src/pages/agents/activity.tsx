import { Link } from 'wouter';
import { formatTime } from '../../ui/format';
import { usePagedList } from '../../ui/hooks';
import { Badge, Empty } from '../../ui/kit';
import { PagedView, Table } from '../../ui/list';
import { useProjectName } from '../../ui/project-select';

const TONE: Record<string, 'ok' | 'bad' | 'warn'> = { succeeded: 'ok', failed: 'bad', refused: 'warn' };

/** Every MCP tool call of the organisation, newest first; `actorName` says who `actor` is. */
export function ActivityLog({ actorName }: { actorName(actor: string): string }) {
  const projectName = useProjectName();
  const list = usePagedList('/v1/agent-activity', { params: { query: { limit: 25 } } });
  return (
    <section aria-labelledby="activity-title">
      <div className="row">
        <h2 id="activity-title">Agent activity</h2>
        <button type="button" className="secondary" onClick={() => void list.refresh()}>
          Refresh
        </button>
      </div>
      <p className="muted">Every tool call made through /mcp, by any agent of the organisation.</p>
      <PagedView
        list={list}
        loading={null}
        empty={<Empty title="No agent activity yet">Tool calls appear here as agents make them.</Empty>}
      >
        {(items) => (
          <Table
            caption="Agent tool calls, newest first"
            columns={['Time', 'Agent', 'Tool', 'Project', 'Session', 'Status']}
          >
            {items.map((a) => (
              <tr key={a.id}>
                <td>{formatTime(a.created_at)}</td>
                <td>{actorName(a.actor)}</td>
                <td>
                  <code>{a.tool}</code>
                </td>
                <td>{projectName(a.project_id)}</td>
                <td>
                  {a.session_id ? (
                    <Link href={`/sessions/${a.session_id}`}>
                      <code>{a.session_id.slice(0, 8)}</code>
                    </Link>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  <Badge tone={TONE[a.status] ?? 'idle'}>{a.status}</Badge>
                  {a.error_code ? <code> {a.error_code}</code> : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </PagedView>
    </section>
  );
}
