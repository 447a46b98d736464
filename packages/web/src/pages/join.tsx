import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import { Loading, PageHeader } from '../ui/kit';
import { PublicFrame } from '../ui/public-frame';
import { guestCredential, readLink, type Stage } from './join-link';
import { useJoin, release, type Joined } from './live/joining';
import { PreJoin } from './live/pre-join';
import { RoomView } from './live/room-view';
import './live/live.css';

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
  /** the name last joined under: offered again after leaving */
  const lastName = useRef('');
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
  else if (stage.at === 'used-up')
    body = (
      <Message title="This invitation link has been used up">
        <p>
          It has been used as many times as it allows, so it lets nobody else into {name}. Ask whoever sent it
          for a new one.
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
          initialName={lastName.current}
          canPublish={stage.link.can_publish}
          onJoin={(choice, step) => {
            lastName.current = choice.name;
            return join(choice, step, guestCredential(token, choice.name, setStage));
          }}
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
