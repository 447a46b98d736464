import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { vss } from '../api';
import { useAuth } from '../auth';
import { sessionState } from '../types';
import { formatTime } from '../ui/format';
import { useAction, usePagedList } from '../ui/hooks';
import { Empty, ErrorNote, Field, PageHeader } from '../ui/kit';
import { PagedView, Table } from '../ui/list';
import { SessionStateBadge } from '../ui/session-badge';

/**
 * How often the list is read again, so that sessions going live or ending show without a reload
 * (merged into the loaded rows: pages loaded with "Load more" stay).
 */
const REFRESH_MS = 5000;

/** The project's sessions, newest first, with their live state; a form to create one. */
export function SessionsPage() {
  const { project } = useAuth();
  const [, navigate] = useLocation();
  const list = usePagedList('/v1/sessions', { params: { query: { limit: 50 } } }, { refreshMs: REFRESH_MS });
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const s = await vss.post('/v1/sessions', { body: { name } });
    navigate(`/sessions/${s.id}`);
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  return (
    <>
      <PageHeader title="Sessions" sub={project ? `Project ${project.name}` : undefined} />
      <form className="card inline-form" onSubmit={onSubmit} aria-label="New session">
        <Field label="New session name" hint="Optional, up to 200 characters">
          {(id, hint) => (
            <input
              id={id}
              maxLength={200}
              value={name}
              aria-describedby={hint}
              placeholder="Weekly standup"
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create session'}
        </button>
        <ErrorNote error={create.error} />
      </form>
      <PagedView
        list={list}
        loading="Loading sessions…"
        empty={
          <Empty title="No sessions yet">
            Create one above, then join it live from its page: your camera, microphone and screen are recorded
            as separate tracks.
          </Empty>
        }
      >
        {(items) => (
          <Table
            caption="Sessions of this project, newest first"
            columns={['Name', 'State', 'Created', 'Started', 'Ended', 'Visibility']}
          >
            {items.map((s) => (
              <tr key={s.id}>
                <td className="name-cell">
                  <Link href={`/sessions/${s.id}`}>{s.name || 'Untitled session'}</Link>
                </td>
                <td>
                  <SessionStateBadge state={sessionState(s)} />
                </td>
                <td>{formatTime(s.created_at)}</td>
                <td>{formatTime(s.started_at)}</td>
                <td>{formatTime(s.ended_at)}</td>
                <td>{s.is_public ? 'public' : 'private'}</td>
              </tr>
            ))}
          </Table>
        )}
      </PagedView>
    </>
  );
}
