import { Link } from 'wouter';
import { vss } from '../../api';
import { useAuth } from '../../auth';
import type { Session } from '../../types';
import { PageHeader } from '../../ui/kit';
import { useJoin, type Credential, type Joined } from './joining';
import { NAME_MAX, PreJoin } from './pre-join';

export { release, type Joined } from './joining';

/** A member's name to start from: their email's local part. */
function defaultName(email: string | undefined): string {
  return [...((email ?? '').split('@')[0] ?? '')].slice(0, NAME_MAX).join('');
}

/**
 * A member's connection token, from the login cookie: the server gives it for their account (their
 * participant id is the account's, unique in the organisation), and `name` is only what others see.
 */
function memberCredential(sessionId: string, name: string): () => Promise<Credential> {
  const request = () =>
    vss.post('/v1/sessions/{sessionId}/connection', {
      params: { path: { sessionId } },
      body: { display_name: name },
    });
  return async () => {
    const first = await request();
    return {
      token: first.access_token,
      userId: first.user_id,
      displayName: name,
      canPublish: true,
      again: async () => (await request()).access_token,
    };
  };
}

/** A member before joining: the name to appear under (from their account), devices, Join. */
export function JoinForm({ session, onJoined }: { session: Session; onJoined(j: Joined): void }) {
  const { me } = useAuth();
  const join = useJoin(session.id, onJoined);
  return (
    <>
      <p>
        <Link href={`/sessions/${session.id}`}>← Session</Link>
      </p>
      <PageHeader
        title="Join live session"
        sub={`${session.name || 'Untitled session'}: others in the session see and hear you; everything is recorded.`}
      />
      <PreJoin
        initialName={defaultName(me?.email)}
        canPublish
        onJoin={(choice, step) => join(choice, step, memberCredential(session.id, choice.name))}
      />
    </>
  );
}
