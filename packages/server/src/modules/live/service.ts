import type { Db, SessionsTable } from '../../db/types.js';
import { BadRequest, Conflict, UsageLimitsExceeded } from '../../http/errors.js';
import type { UsageGate } from '../billing/service.js';
import type { Principal } from '../../http/principal.js';
import type { SessionsService } from '../sessions/service.js';
import {
  mayReplace,
  TOKEN_TTL_S,
  type ConnectionTokens,
  type Credential,
  type VerifiedClaims,
} from './token.js';
import { displayName } from './schemas.js';
import { isRemovedSince, removeParticipant, type Removing } from './removal.js';
import { liveStore } from './store.js';
import type { Sequencer } from './sequencer.js';
import { recordingControl, recordingStore, type RecordingSwitch } from './recording-control.js';

/** The rule of a participant's id, for the other ways in than the connection route (MCP). */
export { USER_ID, USER_ID_MAX } from './schemas.js';
/** The rule of a display name, for the other ways in (join links). */
export { DisplayName, displayName } from './schemas.js';

/** What a verified `/ws` request is allowed to do. */
/**
 * What other modules may ask of live sessions (the hub implements it): add an event to a
 * session's timeline, in turn with its live messages, and refuse a participant's further media.
 */
export interface LiveEvents {
  appendTimeline(
    sessionId: string,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts?: number,
  ): Promise<void>;
  redact(sessionId: string, userId: string): void;
  /** Forgets the presence rows of a deleted session. */
  forgetSession(sessionId: string): Promise<void>;
  /** The name each participant of a session last joined with (those who gave one). */
  displayNames(sessionId: string): Promise<Map<string, string>>;
}

/** Told of every live connection's join and leave: billing meters streaming minutes with it. */
export interface ConnectionMeter {
  joined(connId: string, session: { id: string; project_id: string }, orgId: string, at: number): void;
  left(connId: string, at: number): void;
}

export interface Ticket {
  claims: VerifiedClaims;
  session: SessionsTable;
  orgId: string;
}

/** The prefix of the ids join links give their guests; no other way in may mint one. */
export const GUEST_PREFIX = 'guest-';
/** The prefix every id a restricted key mints must have: the ids of its app's own users. */
export const RESTRICTED_PREFIX = 'app-';

/**
 * The participant a connection request is for, and the credential it comes with: a dashboard
 * member is always their account (a name they type never chooses who they are), a restricted
 * key mints only ids under RESTRICTED_PREFIX, and nobody but a join link mints a guest's id.
 */
function whoConnects(
  principal: Principal,
  requested: string | undefined,
): { user_id: string; credential: Credential } {
  if (principal.kind === 'user') {
    const own = principal.userId!;
    if (requested !== undefined && requested !== own)
      throw new BadRequest(
        `body.user_id must be your own account's id (${own}) or left out: a dashboard member joins as their account`,
      );
    return { user_id: own, credential: 'member' };
  }
  if (requested === undefined) throw new BadRequest('body.user_id is required');
  if (requested.startsWith(GUEST_PREFIX))
    throw new BadRequest(
      `body.user_id must not begin with "${GUEST_PREFIX}": those ids are a join link's guests`,
    );
  if (principal.kind === 'restricted_key') {
    if (!requested.startsWith(RESTRICTED_PREFIX) || requested.length === RESTRICTED_PREFIX.length)
      throw new BadRequest(
        `body.user_id must begin with "${RESTRICTED_PREFIX}" for a restricted key (e.g. "${RESTRICTED_PREFIX}42"): it mints only its app's own users`,
      );
    return { user_id: requested, credential: 'restricted_key' };
  }
  return { user_id: requested, credential: 'api_key' };
}

/** Connection tokens: issued over REST, checked before every WebSocket upgrade. */
export function liveService(deps: {
  db: Db;
  sessions: SessionsService;
  tokens: ConnectionTokens;
  gate: UsageGate;
  /** the hub: closes a removed participant's connections, applies what a session records */
  hub: Removing & RecordingSwitch;
  /** the sessions' sequence, which a change written to a timeline needs */
  sequencer: Sequencer;
}) {
  const { db } = deps;
  const store = liveStore(db);
  /**
   * A session that has not started is a new meeting: refused (503) while the organisation is over
   * its free tier without a subscription. One under way may still be joined and rejoined, so that
   * a meeting is never cut off by the limits.
   */
  const mayStart = (orgId: string, session: SessionsTable) =>
    session.started_at === null
      ? deps.gate.assertWithinLimits(orgId, 'joining a session that has not started')
      : Promise.resolve();
  return {
    /** What a session records: its rules, pause and resume. */
    recording: recordingControl({
      store: recordingStore(db),
      sessions: deps.sessions,
      hub: deps.hub,
      sequence: deps.sequencer,
    }),

    /** A token for one participant of one session, live or replay. */
    async connect(
      principal: Principal,
      sessionId: string,
      input: {
        user_id?: string;
        display_name?: string;
        replay?: boolean;
        from_ts?: number;
        speed?: number;
        focus?: string;
      },
    ) {
      const name =
        input.display_name === undefined ? null : displayName(input.display_name, 'body.display_name');
      const { user_id, credential } = whoConnects(principal, input.user_id);
      const session = await deps.sessions.get(principal, sessionId);
      const mode = input.replay ? 'replay' : 'live';
      if (mode === 'live') {
        if (session.ended_at !== null)
          throw new Conflict('the session has ended; request a replay connection instead');
        await mayStart(principal.orgId, session);
      }
      const access_token = await deps.tokens.issue({
        sub: user_id,
        sid: session.id,
        pid: session.project_id,
        mode,
        from_ts: input.from_ts ?? null,
        speed: input.speed ?? 1,
        focus: input.focus ?? null,
        display_name: name,
        can_publish: true,
        credential,
        link: null,
      });
      return { access_token, expires_in: TOKEN_TTL_S, session: session.id, user_id };
    },

    /**
     * A live token for a guest let in by a join link: 409 once the session ended, 503 while the
     * organisation may not start a meeting (as for any participant).
     */
    async connectGuest(
      session: SessionsTable,
      orgId: string,
      guest: { user_id: string; display_name: string; can_publish: boolean },
      /** the join link it comes from: its live tokens are refused once it is revoked or expired */
      linkId: string,
      /** takes the link's use, once the session may be joined (409 when none is left) */
      take: () => Promise<void>,
    ) {
      if (session.ended_at !== null) throw new Conflict('the session has ended');
      await mayStart(orgId, session);
      await take();
      const access_token = await deps.tokens.issue({
        sub: guest.user_id,
        sid: session.id,
        pid: session.project_id,
        mode: 'live',
        from_ts: null,
        speed: 1,
        focus: null,
        display_name: guest.display_name,
        can_publish: guest.can_publish,
        credential: 'guest',
        link: linkId,
      });
      return { access_token, expires_in: TOKEN_TTL_S, session: session.id, ...guest };
    },

    /** Whether the participant was ever removed from the session. */
    wasRemoved: (sessionId: string, userId: string) => isRemovedSince(db, sessionId, userId, 0),

    /**
     * Removes a participant from the live session (see removeParticipant). Other processes are told
     * and the timeline written through Redis: while it is away, refused up front (503).
     */
    remove: async (principal: Principal, sessionId: string, userId: string) => {
      await deps.sequencer.assertAvailable();
      return removeParticipant(
        { db, store, sessions: deps.sessions, hub: deps.hub },
        principal,
        sessionId,
        userId,
      );
    },

    /** Checks a `/ws` request: a valid token for this session and this user; why not, otherwise. */
    async admit(query: {
      session?: string;
      access_token?: string;
      user_id?: string;
    }): Promise<Ticket | { problem: string; status: number }> {
      if (!query.access_token) return { problem: 'access_token is required', status: 401 };
      const verified = await deps.tokens.verify(query.access_token);
      if ('problem' in verified) return { problem: verified.problem, status: 401 };
      const { claims } = verified;
      if (!query.session || query.session !== claims.sid)
        return { problem: 'the token is for another session', status: 401 };
      if (!query.user_id || query.user_id !== claims.sub)
        return { problem: 'user_id differs from the token', status: 401 };
      const row = await db
        .selectFrom('sessions')
        .innerJoin('projects', 'projects.id', 'sessions.project_id')
        .selectAll('sessions')
        .select('projects.org_id')
        .where('sessions.id', '=', claims.sid)
        .where('sessions.project_id', '=', claims.pid)
        .executeTakeFirst();
      if (!row) return { problem: 'the session no longer exists', status: 401 };
      const { org_id, ...session } = row;
      if (claims.mode === 'live' && session.ended_at !== null)
        return { problem: 'the session has ended', status: 409 };
      if (claims.mode === 'live' && (await isRemovedSince(db, session.id, claims.sub, claims.issued_at)))
        return {
          problem: 'the participant was removed from the session; ask its host for a new invitation',
          status: 403,
        };
      if (claims.mode === 'live' && claims.link && !(await store.linkValid(claims.link, Date.now())))
        return { problem: 'the join link of this token was revoked or has expired', status: 403 };
      if (claims.mode === 'live') {
        const open = await store.openConnections(session.id, claims.sub, Date.now());
        if (open.some((c) => !mayReplace(claims.credential, c.credential)))
          return {
            problem:
              'user_id is connected with a stronger credential than a restricted key; a restricted key never replaces it',
            status: 409,
          };
      }
      // Checked again here: the token may have been issued before the organisation went over.
      if (claims.mode === 'live')
        try {
          await mayStart(org_id, session);
        } catch (err) {
          if (err instanceof UsageLimitsExceeded) return { problem: err.message, status: 503 };
          throw err;
        }
      return { claims, session, orgId: org_id };
    },
  };
}
export type LiveService = ReturnType<typeof liveService>;
