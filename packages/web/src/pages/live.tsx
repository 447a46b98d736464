import { useEffect, useRef, useState } from 'react';
import { useLocation, useParams } from 'wouter';
import { JoinForm, release, type Joined } from './live/join-form';
import { RoomView } from './live/room-view';
import './live/live.css';

/** Joining a session live: a form first, then the room with everybody's video, sound and chat. */
export function LivePage() {
  const { sessionId = '' } = useParams<{ sessionId: string }>();
  const [, navigate] = useLocation();
  const [joined, setJoined] = useState<Joined | null>(null);
  const current = useRef<Joined | null>(null);
  // Leaving the page any other way than Leave (a link, the back button) leaves the room too.
  useEffect(
    () => () => {
      const j = current.current;
      if (j) release(j);
    },
    [],
  );
  if (!joined)
    return (
      <JoinForm
        sessionId={sessionId}
        onJoined={(j) => {
          // Why the ref at once: the page may go away before it renders the room.
          current.current = j;
          setJoined(j);
        }}
      />
    );
  return (
    <RoomView
      room={joined.room}
      sessionId={sessionId}
      onLeave={async () => {
        await joined.room.leave();
        await joined.audio?.close().catch(() => undefined);
        current.current = null;
        navigate(`/sessions/${sessionId}`);
      }}
    />
  );
}
