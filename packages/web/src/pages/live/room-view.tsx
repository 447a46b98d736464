import { useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { TrackKind } from '@vss/protocol';
import type { LiveRoom } from '@vss/sdk';
import { nameOf, type RoomState } from '@vss/sdk';
import { Badge, ErrorNote, PageHeader } from '../../ui/kit';
import { ChatPanel } from './chat-panel';
import { DirectorPanel } from './director-panel';
import { PeoplePanel } from './people-panel';
import { RecordingBar } from './recording-bar';
import { RulesPanel } from './rules-panel';
import { Tiles } from './tiles';

const TOGGLES: { kind: TrackKind; label: string }[] = [
  { kind: 'cam', label: 'Camera' },
  { kind: 'mic', label: 'Microphone' },
  { kind: 'screen', label: 'Share screen' },
];

/** The connection's state in words. */
function statusText(s: RoomState): string {
  if (s.status === 'live') return `Connected as ${nameOf(s, s.self)}`;
  if (s.status === 'connecting') return 'Connecting…';
  if (s.status === 'reconnecting') return `Connection lost, reconnecting (${s.detail ?? ''})…`;
  if (s.detail === 'left') return 'You left the session.';
  if (s.detail === 'removed') return 'The host removed you from the call.';
  if (s.detail === 'replaced')
    return 'You joined this session again from another tab or device, so this one was disconnected. Carry on there, or reload this page to move the call back here.';
  return `Disconnected: ${s.detail ?? 'the connection closed'}`;
}

const TONE = { live: 'live', connecting: 'idle', reconnecting: 'warn', closed: 'idle' } as const;

/** Said in place of the room once the host removed this participant; `children`: where to go from there. */
function Removed({ children }: { children?: ReactNode }) {
  return (
    <div className="card removed" role="alert">
      <h2>You were removed from the call</h2>
      <p>
        The host removed you from this session. Your camera and microphone are off, and nothing more of yours
        is sent.
      </p>
      {children}
    </div>
  );
}

/**
 * Inside a live session: whether it is being recorded, tiles, device toggles, the people present,
 * the recording rules, chat, director controls and Leave. `canRemove`: this person is the
 * session's owner or an admin, who may remove others, pause the recording and change its rules.
 * `exit`: where to go once the call is over for them (shown when removed).
 */
export function RoomView({
  room,
  sessionId,
  title = 'Live session',
  canRemove = false,
  exit,
  onLeave,
}: {
  room: LiveRoom;
  sessionId: string;
  title?: string;
  canRemove?: boolean;
  exit?: ReactNode;
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

  const sub = (
    <>
      <Badge tone={TONE[state.status]}>{state.status}</Badge> <span className="mono">{sessionId}</span>
    </>
  );
  if (state.detail === 'removed')
    return (
      <div className="live-page">
        <PageHeader title={title} sub={sub} />
        <Removed>{exit}</Removed>
      </div>
    );
  return (
    <div className="live-page">
      <PageHeader title={title} sub={sub}>
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
      <RecordingBar sessionId={sessionId} state={state} canPause={canRemove} />
      <ErrorNote error={state.error} />
      {state.notice ? (
        <p className="notice" role="alert">
          {state.notice}
        </p>
      ) : null}
      {state.canPublish ? null : (
        <p className="muted">
          You can watch and chat: this invitation does not include a camera or microphone.
        </p>
      )}
      {state.canPublish ? (
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
      ) : null}
      <div className="live-layout">
        <Tiles room={room} state={state} />
        <div className="live-side">
          <PeoplePanel sessionId={sessionId} state={state} canRemove={canRemove} />
          <RulesPanel sessionId={sessionId} state={state} canChange={canRemove} />
          <ChatPanel room={room} chat={state.chat} names={state.names} live={live} />
          <DirectorPanel room={room} state={state} />
        </div>
      </div>
    </div>
  );
}
