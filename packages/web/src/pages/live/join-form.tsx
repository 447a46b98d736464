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
 * The participant id a member joins under, from the name they show: the same name is the same
 * participant (a second tab takes over from the first), and the id keeps to what the API allows
 * in one (no "/", white space or control character, at most 128 characters, not "." or "..").
 */
export function participantId(name: string): string {
  const id = [
    ...name
      .trim()
      .replace(/[\s/]+/gu, '-')
      // eslint-disable-next-line no-control-regex -- control characters are what is removed
      .replace(/[\u0000-\u001f\u007f]/g, ''),
  ]
    .slice(0, 128)
    .join('');
  return !id || id === '.' || id === '..' ? 'participant' : id;
}

/** A member's connection token for `name`, from the login cookie. */
function memberCredential(sessionId: string, name: string): () => Promise<Credential> {
  const userId = participantId(name);
  const fetchToken = async () =>
    (
      await vss.post('/v1/sessions/{sessionId}/connection', {
        params: { path: { sessionId } },
        body: { user_id: userId, display_name: name },
      })
    ).access_token;
  return async () => ({
    token: await fetchToken(),
    userId,
    displayName: name,
    canPublish: true,
    again: fetchToken,
  });
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
