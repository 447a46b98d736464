import { useEffect, useState, useSyncExternalStore } from 'react';
import type { TrackKind } from '@vss/protocol';
import type { LiveRoom } from '../../media/live-room';
import type { RoomState } from '../../media/room-state';
import { Badge, ErrorNote, PageHeader } from '../../ui/kit';
import { ChatPanel } from './chat-panel';
import { DirectorPanel } from './director-panel';
import { Tiles } from './tiles';

const TOGGLES: { kind: TrackKind; label: string }[] = [
  { kind: 'cam', label: 'Camera' },
  { kind: 'mic', label: 'Microphone' },
  { kind: 'screen', label: 'Share screen' },
];

/** The connection's state in words. */
function statusText(s: RoomState): string {
  if (s.status === 'live') return `Connected as ${s.self}`;
  if (s.status === 'connecting') return 'Connecting…';
  if (s.status === 'reconnecting') return `Connection lost, reconnecting (${s.detail ?? ''})…`;
  if (s.detail === 'left') return 'You left the session.';
  if (s.detail === 'replaced')
    return 'You joined this session again from another tab or device, so this one was disconnected. Carry on there, or reload this page to move the call back here.';
  return `Disconnected: ${s.detail ?? 'the connection closed'}`;
}

const TONE = { live: 'live', connecting: 'idle', reconnecting: 'warn', closed: 'idle' } as const;

/** Inside a live session: tiles, device toggles, chat, director controls and Leave. */
export function RoomView({
  room,
  sessionId,
  onLeave,
}: {
  room: LiveRoom;
  sessionId: string;
  onLeave(): Promise<void>;
}) {
  const state = useSyncExternalStore(room.subscribe, room.snapshot);
  const [leaving, setLeaving] = useState(false);
  const publishing = new Set(state.tracks[state.self] ?? []);
  const live = state.status === 'live';
  const screenShare = typeof navigator.mediaDevices?.getDisplayMedia === 'function';
  useEffect(() => {
    const before = document.title;
    document.title = `Live · ${sessionId.slice(0, 8)} · vss`;
    // The next page sets its own title; this one must not outlive the room.
    return () => {
      document.title = before;
    };
  }, [sessionId]);

  return (
    <div className="live-page">
      <PageHeader
        title="Live session"
        sub={
          <>
            <Badge tone={TONE[state.status]}>{state.status}</Badge> <span className="mono">{sessionId}</span>
          </>
        }
      >
        <button
          type="button"
          className="danger"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            void onLeave();
          }}
        >
          {leaving ? 'Leaving…' : 'Leave'}
        </button>
      </PageHeader>
      <p role="status" aria-live="polite" className="live-status">
        {statusText(state)}
      </p>
      <ErrorNote error={state.error} />
      {state.notice ? (
        <p className="notice" role="alert">
          {state.notice}
        </p>
      ) : null}
      <div className="live-toolbar" role="group" aria-label="Your devices">
        {TOGGLES.filter((t) => t.kind !== 'screen' || screenShare).map((t) => (
          <button
            key={t.kind}
            type="button"
            className="secondary"
            aria-pressed={publishing.has(t.kind)}
            disabled={!live || state.switching !== null}
            onClick={() => void room.setPublishing(t.kind, !publishing.has(t.kind))}
          >
            {state.switching === t.kind ? `${t.label}…` : t.label}
          </button>
        ))}
      </div>
      <div className="live-layout">
        <Tiles room={room} state={state} />
        <div className="live-side">
          <ChatPanel room={room} chat={state.chat} live={live} />
          <DirectorPanel room={room} state={state} />
        </div>
      </div>
    </div>
  );
}
