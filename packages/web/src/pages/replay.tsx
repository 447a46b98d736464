import { useMemo } from 'react';
import { Link, useParams } from 'wouter';
import { vss } from '../api';
import { Player } from '../player/player';
import { userSource } from '../player/source';
import { userStoryboard } from '../player/storyboard';
import { sessionState } from '../types';
import { ErrorNote, Loading, PageHeader } from '../ui/kit';
import { useLoad } from '../ui/hooks';
import { formatTime } from '../ui/format';

/** `/sessions/:sessionId/replay`: a signed-in member plays back a session of their project. */
export function ReplayPage() {
  const { sessionId = '' } = useParams<{ sessionId: string }>();
  const session = useLoad(
    (signal) => vss.get('/v1/sessions/{sessionId}', { params: { path: { sessionId } }, signal }),
    [sessionId],
  );
  const source = useMemo(() => userSource(sessionId), [sessionId]);
  const s = session.data;
  const storyboard = useMemo(() => userStoryboard(sessionId, s?.project_id), [sessionId, s?.project_id]);
  return (
    <>
      <PageHeader
        title={s ? `Replay: ${s.name || 'Untitled session'}` : 'Replay'}
        sub={
          s
            ? `Recorded ${formatTime(s.started_at)}${s.ended_at ? ` to ${formatTime(s.ended_at)}` : ''}`
            : null
        }
      >
        <Link href={`/sessions/${sessionId}`} className="button secondary">
          Back to session
        </Link>
      </PageHeader>
      <ErrorNote error={session.error} />
      {session.loading && !s ? <Loading /> : null}
      {s && sessionState(s) === 'live' ? (
        <p className="muted">
          This session is still live: the replay holds what was recorded when it opened.
        </p>
      ) : null}
      {s ? <Player source={source} storyboard={storyboard} /> : null}
    </>
  );
}
