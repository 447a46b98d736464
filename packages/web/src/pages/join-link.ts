/** A join link as the guest's page uses it: what it opens, and joining with it (again). */
import { errorMessage, isStatus, vss, VssError, type Schemas } from '../api';
import type { Credential, Joined } from './live/joining';

/** `GET /v1/join/{token}`: what a join link opens. */
export type LinkInfo = Schemas['JoinLinkInfo'];

/** `POST /v1/join/{token}`: a guest's connection; `rejoin_token` comes back as the same guest. */
type GuestJoin = Schemas['GuestToken'];

/**
 * Where the page is: reading the link, the link does not work, its uses are spent, the session
 * ended, before joining, in the call, left.
 */
export type Stage =
  | { at: 'loading' }
  | { at: 'invalid' }
  | { at: 'used-up'; link: LinkInfo }
  | { at: 'failed'; error: string }
  | { at: 'ended'; link: LinkInfo }
  | { at: 'ready'; link: LinkInfo }
  | { at: 'joined'; link: LinkInfo; joined: Joined }
  | { at: 'left'; link: LinkInfo };

/** Reads a join link: its information, or the stage it leads to when it does not open a call. */
export async function readLink(token: string): Promise<Stage> {
  try {
    const link = await vss.get('/v1/join/{token}', { params: { path: { token } } });
    if (link.session.ended) return { at: 'ended', link };
    // Spent uses refuse a new guest only: this tab's guest coming back (a reload) takes no use.
    if (link.used_up && !stored(token)) return { at: 'used-up', link };
    return { at: 'ready', link };
  } catch (err) {
    if (isStatus(err, 404)) return { at: 'invalid' };
    if (isStatus(err, 429))
      return { at: 'failed', error: 'Too many attempts from here: wait a minute, then reload this page.' };
    return {
      at: 'failed',
      error: 'The invitation could not be read: check your connection and reload this page.',
    };
  }
}

/** Why a guest could not join, in words (or the stage to show instead, when the link or session changed). */
async function refusal(err: unknown, token: string): Promise<{ stage: Stage } | { words: string }> {
  if (!(err instanceof VssError)) return { words: err instanceof Error ? err.message : String(err) };
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
  if (err.status === 403)
    return { words: 'The host removed you from this session, so this link does not let you back in.' };
  if (err.status === 429)
    return { words: 'Too many attempts to join from here: wait a minute, then try again.' };
  if (err.status === 400) return { words: errorMessage(err) };
  return { words: 'Joining failed: check your connection and try again.' };
}

/** Where this tab keeps the guest it became through a link: coming back (a reload) is the same guest. */
const rejoinKey = (token: string) => `vss.rejoin.${token}`;

function stored(token: string): string | undefined {
  try {
    return sessionStorage.getItem(rejoinKey(token)) ?? undefined;
  } catch {
    return undefined;
  }
}

function keep(token: string, rejoin: string | null): void {
  try {
    if (rejoin) sessionStorage.setItem(rejoinKey(token), rejoin);
    else sessionStorage.removeItem(rejoinKey(token));
  } catch {
    // storage refused (private mode): a reload makes a new guest
  }
}

/** `POST /v1/join/{token}`, as the guest this tab already is when it is one. */
async function redeem(token: string, displayName: string): Promise<GuestJoin> {
  const rejoin = stored(token);
  try {
    const g = await vss.post('/v1/join/{token}', {
      params: { path: { token } },
      body: { display_name: displayName, rejoin_token: rejoin },
    });
    keep(token, g.rejoin_token);
    return g;
  } catch (err) {
    // A rejoin token the link does not know (another server's secret): join as a new guest.
    if (!(rejoin && isStatus(err, 400) && /rejoin_token/.test(err.message))) throw err;
    keep(token, null);
    return redeem(token, displayName);
  }
}

/**
 * A guest's credential through the link `token` under `displayName`. A refusal is thrown in
 * words, or, when the link or session changed (revoked, ended), `moved` is told the stage to show.
 * Later connections (a reconnect once the 300-second token expired) come back as the same guest.
 */
export function guestCredential(
  token: string,
  displayName: string,
  moved: (stage: Stage) => void,
): () => Promise<Credential> {
  return async () => {
    let g: GuestJoin;
    try {
      g = await redeem(token, displayName);
    } catch (err) {
      const r = await refusal(err, token);
      if ('stage' in r) {
        moved(r.stage);
        throw new Error('');
      }
      throw new Error(r.words);
    }
    return {
      token: g.access_token,
      userId: g.user_id,
      displayName: g.display_name,
      canPublish: g.can_publish,
      again: async () => (await redeem(token, displayName)).access_token,
    };
  };
}
