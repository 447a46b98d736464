import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../api';
import { useAuth } from '../auth';
import { sessionState, type Session } from '../types';
import { formatTime } from '../ui/format';
import { useAction, usePagedList } from '../ui/hooks';
import { Empty, ErrorNote, Field, LoadMore, Loading, PageHeader } from '../ui/kit';
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
  const list = usePagedList<Session>('/v1/sessions', { query: { limit: 50 }, refreshMs: REFRESH_MS });
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const s = await api<Session>('POST', '/v1/sessions', { body: { name }, idempotent: true });
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
      <ErrorNote error={list.error} />
      {list.loading && list.items.length === 0 ? (
        <Loading label="Loading sessions…" />
      ) : list.items.length === 0 && !list.error ? (
        <Empty title="No sessions yet">
          Create one above, then join it live from its page: your camera, microphone and screen are recorded
          as separate tracks.
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Sessions of this project, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">Started</th>
                <th scope="col">Ended</th>
                <th scope="col">Visibility</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((s) => {
                return (
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
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore next={list.next} loading={list.loading} onMore={list.more} />
    </>
  );
}
