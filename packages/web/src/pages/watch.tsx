import { useMemo } from 'react';
import { Link, useParams, useSearch } from 'wouter';
import { vss } from '../api';
import { Player } from '../player/player';
import { linkSource, publicSource } from '../player/source';
import { publicStoryboard } from '../player/storyboard';
import { Empty, PageHeader } from '../ui/kit';
import { PagedView } from '../ui/list';
import { PublicFrame } from '../ui/public-frame';
import { useLoad, usePagedList } from '../ui/hooks';
import { formatTime } from '../ui/format';
import './watch.css';

/** `/watch`: the catalog of public sessions, each opening its replay. */
export function WatchListPage() {
  const list = usePagedList('/v1/public/sessions', {});
  return (
    <PublicFrame>
      <PageHeader
        title="Public sessions"
        sub="Recorded sessions their owners made public. No account needed."
      />
      <PagedView
        list={list}
        empty={
          <Empty title="No public sessions yet">
            When an owner makes a recorded session public, it is listed here for anyone to watch.
          </Empty>
        }
      >
        {(items) => (
          <ul className="card watch-list">
            {items.map((s) => (
              <li key={s.id}>
                <Link href={`/watch/${s.id}`}>{s.name || 'Untitled session'}</Link>{' '}
                <span className="muted">
                  {s.ended_at
                    ? `recorded ${formatTime(s.started_at)}`
                    : s.started_at
                      ? 'live now'
                      : 'not started'}
                </span>
              </li>
            ))}
          </ul>
        )}
      </PagedView>
    </PublicFrame>
  );
}

/**
 * The name of the session a public page plays, from its manifest (with the link's token, if any);
 * undefined until known. A failure is left to the player, which reads the same routes and says it.
 */
function useSessionName(sessionId: string, token?: string | null): string | undefined {
  const manifest = useLoad(
    (signal) =>
      vss.get('/v1/public/sessions/{sessionId}/manifest', {
        params: { path: { sessionId }, query: { token: token ?? undefined } },
        signal,
      }),
    [sessionId, token],
  );
  const name = manifest.data?.session_name;
  return name === undefined ? undefined : name || 'Untitled session';
}

/** `/watch/:sessionId`: the replay of a public session, for anybody. */
export function WatchPage() {
  const { sessionId = '' } = useParams<{ sessionId: string }>();
  const source = useMemo(() => publicSource(sessionId), [sessionId]);
  const name = useSessionName(sessionId);
  const storyboard = useMemo(() => publicStoryboard(sessionId), [sessionId]);
  return (
    <PublicFrame>
      <PageHeader title={name ?? 'Session replay'} sub={name ? 'Replay of a public session' : undefined}>
        <Link href="/watch" className="button secondary">
          All public sessions
        </Link>
      </PageHeader>
      <Player source={source} storyboard={storyboard} />
    </PublicFrame>
  );
}

/**
 * `/v1/public/sessions/:sessionId/replay?token=…`: a replay link opened in a browser. The server
 * answers this page to a browser and the playback data to everything else; the player reads the
 * same address as data.
 */
export function ReplayLinkPage() {
  const { sessionId = '' } = useParams<{ sessionId: string }>();
  const token = new URLSearchParams(useSearch()).get('token');
  const source = useMemo(() => linkSource(sessionId, token), [sessionId, token]);
  const name = useSessionName(sessionId, token);
  const storyboard = useMemo(() => publicStoryboard(sessionId, token), [sessionId, token]);
  return (
    <PublicFrame>
      <PageHeader
        title={name ?? 'Shared replay'}
        sub="Shared through a replay link, valid until it expires."
      />
      <Player source={source} storyboard={storyboard} />
    </PublicFrame>
  );
}
