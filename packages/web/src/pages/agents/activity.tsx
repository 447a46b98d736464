import { Link } from 'wouter';
import { formatTime } from '../../ui/format';
import { usePagedList } from '../../ui/hooks';
import { Badge, Empty, ErrorNote, LoadMore } from '../../ui/kit';
import { useProjectName } from '../../ui/project-select';
import type { Activity } from './types';

const TONE: Record<string, 'ok' | 'bad' | 'warn'> = { succeeded: 'ok', failed: 'bad', refused: 'warn' };

/** Every MCP tool call of the organisation, newest first; `actorName` says who `actor` is. */
export function ActivityLog({ actorName }: { actorName(actor: string): string }) {
  const projectName = useProjectName();
  const list = usePagedList<Activity>('/v1/agent-activity', { query: { limit: 25 } });
  return (
    <section aria-labelledby="activity-title">
      <div className="row">
        <h2 id="activity-title">Agent activity</h2>
        <button type="button" className="secondary" onClick={() => void list.refresh()}>
          Refresh
        </button>
      </div>
      <p className="muted">Every tool call made through /mcp, by any agent of the organisation.</p>
      <ErrorNote error={list.error} />
      {list.items.length === 0 && !list.error ? (
        list.loading ? null : (
          <Empty title="No agent activity yet">Tool calls appear here as agents make them.</Empty>
        )
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Agent tool calls, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Agent</th>
                <th scope="col">Tool</th>
                <th scope="col">Project</th>
                <th scope="col">Session</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((a) => (
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
            </tbody>
          </table>
        </div>
      )}
      <LoadMore next={list.next} loading={list.loading} onMore={list.more} />
    </section>
  );
}
