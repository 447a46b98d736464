import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, errorMessage } from '../../api';
import { useAuth } from '../../auth';
import { LiveRoom } from '../../media/live-room';
import { ErrorNote, Field, PageHeader, Progress } from '../../ui/kit';

/** `POST /v1/sessions/{id}/connection` */
interface ConnectionToken {
  access_token: string;
  expires_in: number;
  session: string;
}

/** A joined room and the AudioContext its sound plays in (both the page's to close). */
export interface Joined {
  room: LiveRoom;
  audio: AudioContext | null;
}

/** Leaves a room and closes its sound; never rejects (a page being left has nobody to tell). */
export function release(j: Joined): void {
  void j.room
    .leave()
    .catch(() => undefined)
    .finally(() => j.audio?.close().catch(() => undefined));
}

/** A default participant name: the email's local part, without what a user_id may not hold ("/", spaces). */
function defaultName(email: string | undefined): string {
  const local = (email ?? '').split('@')[0] ?? '';
  return local.replace(/[/\s]+/g, '-').slice(0, 128);
}

/** An AudioContext started now, inside the click: browsers only let sound start from a gesture. */
function startAudio(): AudioContext | null {
  if (typeof AudioContext === 'undefined') return null;
  const ctx = new AudioContext({ latencyHint: 'interactive' });
  void ctx.resume().catch(() => undefined);
  return ctx;
}

/** Before joining: the name to appear under, which devices to start, and the Join button. */
export function JoinForm({ sessionId, onJoined }: { sessionId: string; onJoined(j: Joined): void }) {
  const { me } = useAuth();
  const [name, setName] = useState(() => defaultName(me?.email));
  const [cam, setCam] = useState(true);
  const [mic, setMic] = useState(true);
  const [step, setStep] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // A join still under way (token, connect): the form's to release if the page goes away first.
  const pending = useRef<Joined | null>(null);
  useEffect(
    () => () => {
      const p = pending.current;
      pending.current = null;
      if (p) release(p);
    },
    [],
  );

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (step) return;
    setError(null);
    const audio = startAudio();
    const userId = name;
    const fetchToken = async () =>
      (
        await api<ConnectionToken>('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/connection`, {
          body: { user_id: userId },
        })
      ).access_token;
    // Why the first token is fetched apart: the API's refusal (a bad name, an ended session) is
    // shown in this form before anything connects.
    let first: string | null = null;
    const token = async () => {
      const t = first ?? (await fetchToken());
      first = null;
      return t;
    };
    const room = new LiveRoom({ sessionId, userId, token, audio });
    const mine: Joined = { room, audio };
    pending.current = mine;
    // Left while waiting (unmounted): the cleanup above has released the room already.
    const abandoned = () => pending.current !== mine;
    try {
      setStep('Getting a connection token…');
      first = await fetchToken();
      if (abandoned()) return;
      setStep('Connecting…');
      await room.connect();
      if (abandoned()) return;
    } catch (err) {
      if (abandoned()) return;
      pending.current = null;
      release(mine);
      setError(errorMessage(err));
      setStep(null);
      return;
    }
    // From here the page owns the room (and leaves it when it goes away).
    pending.current = null;
    onJoined(mine);
    // One device after the other: each may ask the person for permission. A room left meanwhile
    // starts nothing (LiveRoom checks).
    if (mic) await room.setPublishing('mic', true);
    if (cam) await room.setPublishing('cam', true);
  };

  return (
    <>
      <p>
        <Link href={`/sessions/${sessionId}`}>← Session</Link>
      </p>
      <PageHeader
        title="Join live session"
        sub="Others in the session see and hear you; everything is recorded."
      />
      <form className="card join-form" onSubmit={(e) => void onSubmit(e)} aria-label="Join live session">
        <Field
          label="Name in this session"
          hint="Shown on your tile and in the recording; no “/” or spaces, up to 128 characters."
        >
          {(id, hint) => (
            <input
              id={id}
              value={name}
              required
              autoComplete="nickname"
              aria-describedby={hint}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <fieldset>
          <legend>Start with</legend>
          <label className="check">
            <input type="checkbox" checked={cam} onChange={(e) => setCam(e.target.checked)} /> Camera
          </label>
          <label className="check">
            <input type="checkbox" checked={mic} onChange={(e) => setMic(e.target.checked)} /> Microphone
          </label>
        </fieldset>
        <button type="submit" disabled={step !== null}>
          {step ? 'Joining…' : 'Join'}
        </button>
        {step ? <Progress label={step} /> : null}
        <ErrorNote error={error} />
      </form>
    </>
  );
}
