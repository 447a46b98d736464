import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api';
import type { LiveRoom } from '@vss/sdk';
import { nameOf, type ChatLine } from '@vss/sdk';
import { Empty, ErrorNote, Field } from '../../ui/kit';

/** The server's limit on one chat message. */
const MAX_CHAT = 4000;

function timeOf(ts: number): string {
  return new Date(ts).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** The session's chat since joining, and a form to write to it. */
export function ChatPanel({
  room,
  chat,
  names,
  live,
}: {
  room: LiveRoom;
  chat: ChatLine[];
  /** the names people joined with, by user_id */
  names: Record<string, string>;
  live: boolean;
}) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    // Keep the newest message in view.
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [chat.length]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      await room.sendChat(text);
      setText('');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card chat" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat</h2>
      {chat.length === 0 ? (
        <Empty title="No messages yet">Messages sent after you joined appear here.</Empty>
      ) : null}
      <ol ref={list} aria-live="polite" aria-labelledby="chat-title" hidden={chat.length === 0}>
        {chat.map((m) => (
          <li key={m.key} className={m.own ? 'own' : undefined}>
            <strong>
              <bdi>{nameOf({ names }, m.actor)}</bdi>
            </strong>{' '}
            <small className="muted">{timeOf(m.ts)}</small>
            <div className="chat-text">{m.text}</div>
          </li>
        ))}
      </ol>
      <form className="chat-form" onSubmit={(e) => void onSubmit(e)}>
        <Field label="Message">
          {(id) => (
            <input
              id={id}
              value={text}
              maxLength={MAX_CHAT}
              autoComplete="off"
              onChange={(e) => setText(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy || !live || !text.trim()}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
