import { formatDuration } from '../ui/format';
import { describeEvent } from './labels';
import type { Envelope } from './types';

/**
 * The chat as it stood at the playhead: earlier messages only, newest last. `pending`: some of
 * the recording before the playhead is still being read (after a seek forward), so messages may
 * still come in above the last one shown.
 */
export function ChatLog({
  chat,
  pending,
  start,
  names,
}: {
  chat: Envelope[];
  pending: boolean;
  start: number;
  names: Record<string, string>;
}) {
  return (
    <section className="chat player-chat" aria-labelledby="player-chat-title" aria-busy={pending}>
      <h2 id="player-chat-title">Chat</h2>
      {pending ? <p className="muted">Reading the chat up to this point…</p> : null}
      {chat.length === 0 ? (
        pending ? null : (
          <p className="muted">No messages up to this point.</p>
        )
      ) : (
        <ol role="log" aria-label="Chat messages">
          {chat.map((m) => (
            <li key={m.seq}>
              <span className="muted mono">{formatDuration(m.ts - start)}</span>{' '}
              <strong>
                <bdi>{names[m.actor] ?? m.actor}</bdi>
              </strong>{' '}
              {typeof m.data.text === 'string' ? m.data.text : <em className="muted">(removed)</em>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The timeline's events as a list: each one a button that jumps there. */
export function EventList({
  markers,
  start,
  names,
  onSeek,
}: {
  markers: Envelope[];
  start: number;
  names: Record<string, string>;
  onSeek(ts: number): void;
}) {
  return (
    <section className="player-events" aria-labelledby="player-events-title">
      <h2 id="player-events-title">Timeline</h2>
      {markers.length === 0 ? (
        <p className="muted">No events read yet.</p>
      ) : (
        <ol>
          {markers.map((m) => (
            <li key={m.seq}>
              <button type="button" className="secondary event-jump" onClick={() => onSeek(m.ts)}>
                <span className="mono">{formatDuration(m.ts - start)}</span> {describeEvent(m, names)}
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
