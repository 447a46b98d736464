import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError, api, errorMessage } from '../api';
import { Loading, PageHeader } from '../ui/kit';
import { PublicFrame } from '../ui/public-frame';
import { useJoin, release, type Credential, type Joined } from './live/joining';
import { PreJoin } from './live/pre-join';
import { RoomView } from './live/room-view';
import './live/live.css';

/** `GET /v1/join/{token}`: what a join link opens. */
interface LinkInfo {
  session: { id: string; name: string; ended: boolean; is_public: boolean };
  can_publish: boolean;
  expires_at: string;
}

/** `POST /v1/join/{token}`: a guest's connection. */
interface GuestJoin {
  access_token: string;
  expires_in: number;
  session: string;
  user_id: string;
  display_name: string;
  can_publish: boolean;
}

/** Where the page is: reading the link, the link does not work, the session ended, before joining, in the call, left. */
type Stage =
  | { at: 'loading' }
  | { at: 'invalid' }
  | { at: 'failed'; error: string }
  | { at: 'ended'; link: LinkInfo }
  | { at: 'ready'; link: LinkInfo }
  | { at: 'joined'; link: LinkInfo; joined: Joined }
  | { at: 'left'; link: LinkInfo };

/** Reads a join link: its information, or the stage it leads to when it does not open a call. */
async function readLink(token: string): Promise<Stage> {
  try {
    const link = await api<LinkInfo>('GET', `/v1/join/${encodeURIComponent(token)}`);
    return link.session.ended ? { at: 'ended', link } : { at: 'ready', link };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { at: 'invalid' };
    if (err instanceof ApiError && err.status === 429)
      return { at: 'failed', error: 'Too many attempts from here: wait a minute, then reload this page.' };
    return {
      at: 'failed',
      error: 'The invitation could not be read: check your connection and reload this page.',
    };
  }
}

/** Why a guest could not join, in words (or the stage to show instead, when the link or session changed). */
async function refusal(err: unknown, token: string): Promise<{ stage: Stage } | { words: string }> {
  if (!(err instanceof ApiError)) return { words: err instanceof Error ? err.message : String(err) };
  if (err.status === 404) return { stage: { at: 'invalid' } };
  if (err.status === 409) {
    // Used up, or the session ended meanwhile: the link says which.
    const now = await readLink(token);
    if (now.at !== 'ready') return { stage: now };
    return {
      words:
        'This invitation link has been used as many times as it allows. Ask whoever sent it for a new one.',
    };
  }
  if (err.status === 503 && err.code === 'USAGE_LIMITS_EXCEEDED')
    return {
      words:
        "Nobody can join right now: the host's plan has reached its usage limit. Let the host know, or try again later.",
    };
  if (err.status === 429)
    return { words: 'Too many attempts to join from here: wait a minute, then try again.' };
  if (err.status === 400) return { words: errorMessage(err) };
  return { words: 'Joining failed: check your connection and try again.' };
}

function Message({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <>
      <PageHeader title={title} />
      <div className="card">{children}</div>
    </>
  );
}

/**
 * `/join/:token`: someone without an account joins a live session through a join link. The link
 * names the session; the pre-join screen takes their name and devices; then the call. A link that
 * does not work, and a session that ended, are said in words (with its replay when it is public).
 */
export function JoinPage() {
  const { token = '' } = useParams<{ token: string }>();
  const [stage, setStage] = useState<Stage>({ at: 'loading' });
  const current = useRef<Joined | null>(null);
  useEffect(() => {
    let gone = false;
    void readLink(token).then((s) => gone || setStage(s));
    return () => {
      gone = true;
    };
  }, [token]);
  // Leaving the page (a link, the back button) leaves the call too, at once (see useJoin).
  useLayoutEffect(
    () => () => {
      if (current.current) release(current.current);
    },
    [],
  );
  const link = 'link' in stage ? stage.link : null;
  const join = useJoin(link?.session.id ?? '', (joined) => {
    current.current = joined;
    if (link) setStage({ at: 'joined', link, joined });
  });
  const name = link?.session.name || 'Untitled session';

  const credential = (displayName: string) => async (): Promise<Credential> => {
    let g: GuestJoin;
    try {
      g = await api<GuestJoin>('POST', `/v1/join/${encodeURIComponent(token)}`, {
        body: { display_name: displayName },
      });
    } catch (err) {
      const r = await refusal(err, token);
      if ('stage' in r) {
        setStage(r.stage);
        throw new Error('');
      }
      throw new Error(r.words);
    }
    return {
      token: g.access_token,
      userId: g.user_id,
      displayName: g.display_name,
      canPublish: g.can_publish,
      // A guest has no account to ask for another: a reconnect uses the same token while it lasts.
      again: async () => g.access_token,
    };
  };

  let body: ReactNode;
  if (stage.at === 'loading') body = <Loading label="Opening the invitation…" />;
  else if (stage.at === 'failed') body = <Message title="Join a live session">{stage.error}</Message>;
  else if (stage.at === 'invalid')
    body = (
      <Message title="This invitation link does not work">
        <p>
          It may have expired, been used as many times as it allows, or been revoked. Ask whoever sent it for
          a new one.
        </p>
      </Message>
    );
  else if (stage.at === 'ended')
    body = (
      <Message title={`${name} has ended`}>
        <p>This session is over, so nobody can join it any more.</p>
        {stage.link.session.is_public ? (
          <p className="row">
            <Link className="button" href={`/watch/${stage.link.session.id}`}>
              Watch the replay
            </Link>
          </p>
        ) : null}
      </Message>
    );
  else if (stage.at === 'left')
    body = (
      <Message title="You left the call">
        <p>Thank you for joining {name}.</p>
        <p className="row">
          <button
            type="button"
            className="secondary"
            onClick={() => setStage({ at: 'ready', link: stage.link })}
          >
            Join again
          </button>
        </p>
      </Message>
    );
  else if (stage.at === 'ready')
    body = (
      <>
        <PageHeader
          title={`Join ${name}`}
          sub="You were invited to this live session: no account is needed. Everything in it is recorded."
        />
        <PreJoin
          initialName=""
          canPublish={stage.link.can_publish}
          onJoin={(choice, step) => join(choice, step, credential(choice.name))}
        />
      </>
    );
  else
    body = (
      <RoomView
        room={stage.joined.room}
        sessionId={stage.link.session.id}
        title={`Live: ${name}`}
        exit={<p className="muted">You can close this page.</p>}
        onLeave={async () => {
          await stage.joined.room.leave();
          await stage.joined.audio?.close().catch(() => undefined);
          current.current = null;
          setStage({ at: 'left', link: stage.link });
        }}
      />
    );
  return <PublicFrame>{body}</PublicFrame>;
}
