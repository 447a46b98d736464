import type { Config } from '../../config.js';
import type { Counters } from '../../counters/counter.js';
import type { Db, Trx } from '../../db/types.js';
import { timingSafeEqual } from 'node:crypto';
import { BadRequest, Conflict, Forbidden, NotFound, RateLimited } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import { hmacHex, randomBase62, randomToken } from '../../lib/secrets.js';
import { iso, MINUTE_MS } from '../../lib/time.js';
import { newId } from '../../lib/ids.js';
import { displayName, type LiveService } from '../live/service.js';
import type { SessionsService } from '../sessions/service.js';
import type { GuestsStore, ListedJoinLink } from './store.js';

/** A link lives a day unless asked otherwise (1 minute to 30 days). */
export const DEFAULT_JOIN_LINK_MINUTES = 1440;
/** Join attempts (`POST /v1/join/{token}`) per client address per minute, whatever their outcome. */
export const JOIN_ATTEMPTS_PER_MINUTE = 30;
/** The one answer for a token that is unknown, revoked or expired: which of the three is not told. */
const NO_SUCH_LINK = 'this join link does not exist, was revoked or has expired';

/** A join link as the API shows it: never its token, which only its creation answer holds. */
export const presentJoinLink = (l: ListedJoinLink) => ({
  id: l.id,
  session_id: l.session_id,
  expires_at: iso(l.expires_at),
  max_uses: l.max_uses,
  uses: l.uses,
  can_publish: l.can_publish === 1,
  created_at: iso(l.created_at),
});

/**
 * Join links: a session's invitation to people without an account. Whoever holds the link's URL
 * joins under a new guest id (`guest-…`) with the name they type, until the link expires, is
 * revoked or its uses are spent. The token is random (256 bits) and kept only as an HMAC.
 */
export function guestsService(deps: {
  config: Pick<Config, 'publicBaseUrl' | 'keys'>;
  db: Db;
  store: GuestsStore;
  sessions: SessionsService;
  live: LiveService;
  counters: Counters;
}) {
  const { store } = deps;
  const hash = (token: string) => hmacHex(deps.config.keys.tokens, `join:${token}`);

  /**
   * What lets a guest come back as the same guest (a reconnect after the 300 s token expired, a
   * reload): its id with an HMAC binding it to the link. Valid as long as the link is.
   */
  const rejoinToken = (linkId: string, userId: string) =>
    `${userId}.${hmacHex(deps.config.keys.tokens, `rejoin:${linkId}:${userId}`)}`;
  /** The guest id a rejoin token names for this link; 400 naming the field when it is not one. */
  const rejoining = (linkId: string, value: string): string => {
    const userId = value.slice(0, Math.max(0, value.lastIndexOf('.')));
    const expected = rejoinToken(linkId, userId);
    if (
      userId.startsWith('guest-') &&
      value.length === expected.length &&
      timingSafeEqual(Buffer.from(value), Buffer.from(expected))
    )
      return userId;
    throw new BadRequest('body.rejoin_token is not one this join link gave');
  };

  /** The link of a token, or the one 404 for unknown, revoked and expired. */
  async function redeemable(token: string) {
    const found = await store.byHash(hash(token));
    if (!found || found.link.expires_at <= Date.now()) throw new NotFound(NO_SUCH_LINK);
    return found;
  }

  return {
    async create(
      q: Db | Trx,
      principal: Principal,
      sessionId: string,
      input: { expires_in_minutes?: number; max_uses?: number; can_publish?: boolean },
    ) {
      const session = await deps.sessions.hosted(principal, sessionId, 'invite guests to it', { q });
      if (session.ended_at !== null) throw new Conflict('the session has ended: nobody can join it any more');
      const token = randomToken(32);
      const now = Date.now();
      const row = {
        id: newId(),
        session_id: session.id,
        project_id: session.project_id,
        token_hash: hash(token),
        can_publish: input.can_publish === false ? 0 : 1,
        max_uses: input.max_uses ?? null,
        uses: 0,
        created_at: now,
        expires_at: now + (input.expires_in_minutes ?? DEFAULT_JOIN_LINK_MINUTES) * MINUTE_MS,
      };
      await store.insert(q, row);
      return {
        ...presentJoinLink(row),
        url: `${deps.config.publicBaseUrl}/join/${token}`,
        token,
      };
    },

    /** A page of a session's links (+1 row, for `paginate`), newest first. */
    async list(principal: Principal, sessionId: string, limit: number, cursor: string | undefined) {
      const session = await deps.sessions.get(principal, sessionId);
      return store.list(session.id, limit + 1, decodeCursor(cursor));
    },

    /**
     * Revokes a link at once: its token answers 404 from now on, and the live tokens it gave that
     * are not spent yet are refused (403). Guests already in stay (the host may remove them).
     */
    async revoke(principal: Principal, sessionId: string, linkId: string) {
      const session = await deps.sessions.hosted(principal, sessionId, 'revoke its join links');
      if (!(await store.delete(session.id, linkId))) throw new NotFound('join link not found');
      return { id: linkId, deleted: true as const };
    },

    /** What the join page shows before anyone types a name; takes no use. */
    async describe(token: string) {
      const { link, session } = await redeemable(token);
      return {
        session: {
          id: session.id,
          name: session.name,
          ended: session.ended_at !== null,
          is_public: session.is_public === 1,
        },
        can_publish: link.can_publish === 1,
        expires_at: iso(link.expires_at),
        used_up: link.max_uses !== null && link.uses >= link.max_uses,
      };
    },

    /**
     * Lets a guest in: a live token for a new guest id with the name given. Every attempt counts
     * against the address's limit first, so that tokens cannot be guessed at speed.
     */
    async join(token: string, input: { display_name: string; rejoin_token?: string }, address: string) {
      const counted = await deps.counters.hit(`join:${address}`, MINUTE_MS);
      if (counted.count > JOIN_ATTEMPTS_PER_MINUTE)
        throw new RateLimited(
          `too many join attempts from this address: at most ${JOIN_ATTEMPTS_PER_MINUTE} per minute`,
          Math.ceil(counted.resetInMs / 1000),
        );
      const name = displayName(input.display_name, 'body.display_name');
      const { link, session, orgId } = await redeemable(token);
      const back = input.rejoin_token === undefined ? null : rejoining(link.id, input.rejoin_token);
      if (back && (await deps.live.wasRemoved(session.id, back)))
        throw new Forbidden('you were removed from this session by its host');
      const guest = {
        user_id: back ?? `guest-${randomBase62(12)}`,
        display_name: name,
        can_publish: link.can_publish === 1,
      };
      const admitted = await deps.live.connectGuest(session, orgId, guest, link.id, async () => {
        // A guest coming back (a reconnect, a reload) is the same guest: no use is taken.
        if (!back && !(await store.takeUse(link.id)))
          throw new Conflict(`this join link has been used its ${link.max_uses} times`);
      });
      return { ...admitted, rejoin_token: rejoinToken(link.id, guest.user_id) };
    },
  };
}
export type GuestsService = ReturnType<typeof guestsService>;
