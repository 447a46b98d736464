import { useLayoutEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { isStatus, vss } from '../api';
import { useAuth } from '../auth';
import { sessionState, type Session } from '../types';
import { useLoad } from '../ui/hooks';
import { ErrorNote, Loading, PageHeader } from '../ui/kit';
import { JoinForm, release, type Joined } from './live/join-form';
import { RoomView } from './live/room-view';
import './live/live.css';

/** Reads the session; null when there is none. */
async function readSession(id: string, signal: AbortSignal): Promise<Session | null> {
  try {
    return await vss.get('/v1/sessions/{sessionId}', { params: { path: { sessionId: id } }, signal });
  } catch (err) {
    if (isStatus(err, 404)) return null;
    throw err;
  }
}

/** An ended session has no call to join: its recording is what there is. */
function Ended({ session }: { session: Session }) {
  return (
    <>
      <p>
        <Link href={`/sessions/${session.id}`}>← Session</Link>
      </p>
      <PageHeader title="This session has ended" sub={session.name || 'Untitled session'} />
      <div className="card">
        <p>Nobody can join it any more. What was recorded can be replayed.</p>
        <p className="row">
          <Link className="button" href={`/sessions/${session.id}/replay`}>
            Watch the replay
          </Link>
        </p>
      </div>
    </>
  );
}

/** Joining a session live: a pre-join screen first, then the room with everybody's video, sound and chat. */
export function LivePage() {
  const { sessionId = '' } = useParams<{ sessionId: string }>();
  const { me } = useAuth();
  const [, navigate] = useLocation();
  const session = useLoad((signal) => readSession(sessionId, signal), [sessionId]);
  const [joined, setJoined] = useState<Joined | null>(null);
  const current = useRef<Joined | null>(null);
  // Leaving the page any other way than Leave (a link, the back button) leaves the room too; at
  // once, even while the next page loads (see useJoin).
  useLayoutEffect(
    () => () => {
      const j = current.current;
      if (j) release(j);
    },
    [],
  );
  const s = session.data;
  if (s === null)
    return (
      <PageHeader
        title="Session not found"
        sub="There is no session at this address: it may have been deleted."
      />
    );
  if (!s) return session.error ? <ErrorNote error={session.error} /> : <Loading label="Loading session…" />;
  if (!joined)
    return sessionState(s) === 'ended' ? (
      <Ended session={s} />
    ) : (
      <JoinForm
        session={s}
        onJoined={(j) => {
          // Why the ref at once: the page may go away before it renders the room.
          current.current = j;
          setJoined(j);
        }}
      />
    );
  // The session's owner and the organisation's admins may remove people from the call, pause its
  // recording and change its rules.
  const canRemove = !!me && (s.created_by === me.id || me.role === 'owner' || me.role === 'admin');
  return (
    <RoomView
      room={joined.room}
      sessionId={sessionId}
      title={s.name ? `Live: ${s.name}` : 'Live session'}
      canRemove={canRemove}
      exit={
        <p className="row">
          <Link className="button" href={`/sessions/${sessionId}`}>
            Back to the session
          </Link>
        </p>
      }
      onLeave={async () => {
        await joined.room.leave();
        await joined.audio?.close().catch(() => undefined);
        current.current = null;
        navigate(`/sessions/${sessionId}`);
      }}
    />
  );
}
