import { useEffect } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { isStatus, vss, type Schemas } from '../api';
import { useAuth } from '../auth';
import { useAction, useLoad } from '../ui/hooks';
import { ErrorNote, Loading } from '../ui/kit';

type Offer = Schemas['InvitationDescription'];

/** What the link offers; a link nobody issued (or since revoked) is said in words. */
async function readOffer(token: string, signal: AbortSignal): Promise<Offer> {
  try {
    return await vss.get('/v1/invitations/lookup', { params: { query: { token } }, signal });
  } catch (err) {
    if (isStatus(err, 404))
      throw new Error(
        'This invitation link does not exist, or it was revoked: ask whoever invited you for a new one.',
      );
    throw err;
  }
}

/** "Ada invited you to join Acme as a member.": who, where and as what, before anything is pressed. */
function OfferText({ offer }: { offer: Offer }) {
  const role = offer.role === 'admin' ? 'an admin' : 'a member';
  return (
    <section aria-label="Invitation">
      <p>
        {offer.invited_by ? (
          <>
            <strong>{offer.invited_by.email}</strong> invited you
          </>
        ) : (
          'You were invited'
        )}{' '}
        to join <strong>{offer.organisation.name}</strong> as {role}.
      </p>
      <p>
        The invitation is for <strong>{offer.email}</strong>.
      </p>
    </section>
  );
}

/**
 * Where an invitation link leads (`/invite?token=…`). Signed out: sign in or create an account with
 * the invited email, and come back here. Signed in: join the inviting organisation.
 */
export function InvitePage() {
  const { me, refresh } = useAuth();
  const [, navigate] = useLocation();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  useEffect(() => {
    document.title = 'Join an organisation · vss';
  }, []);
  const offer = useLoad((signal) => (token ? readOffer(token, signal) : Promise.resolve(null)), [token]);
  const back = encodeURIComponent(`/invite?token=${encodeURIComponent(token)}`);
  const join = useAction(async () => {
    await vss.post('/v1/invitations/redeem', { body: { token } });
    // The account now belongs to the inviting organisation: its projects replace the old ones.
    await refresh();
    navigate('/sessions');
  });
  return (
    <main className="auth" id="main">
      <h1>
        <img src="/favicon.svg" alt="" width={32} height={32} /> Join an organisation on vss
      </h1>
      <div className="card">
        {!token ? (
          <ErrorNote error="This invitation link has no token: open the whole link you were sent." />
        ) : offer.error ? (
          <ErrorNote error={offer.error} />
        ) : me === undefined || !offer.data ? (
          <Loading />
        ) : me === null ? (
          <>
            <OfferText offer={offer.data} />
            <p>
              Sign in, or create an account, with the email address the invitation was sent to; you come back
              here to accept it.
            </p>
            <p className="row">
              <Link className="button" href={`/login?next=${back}`}>
                Sign in
              </Link>
              <Link className="button secondary" href={`/signup?next=${back}`}>
                Create an account
              </Link>
            </p>
          </>
        ) : (
          <>
            <OfferText offer={offer.data} />
            <p>
              You are signed in as <strong>{me.email}</strong>. Joining moves your account into the inviting
              organisation, with the role you were invited with; you then see its projects and sessions.
            </p>
            <ErrorNote error={join.error} />
            <button type="button" disabled={join.busy} onClick={() => void join.run()}>
              {join.busy ? 'Joining…' : 'Join organisation'}
            </button>
          </>
        )}
      </div>
      <p>
        <a href="/watch">Public sessions</a>
      </p>
    </main>
  );
}
