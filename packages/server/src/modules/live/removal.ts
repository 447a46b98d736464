import type { Db, SessionsTable } from '../../db/types.js';
import { Forbidden, NotFound } from '../../http/errors.js';
import { roleAtLeast, type Principal } from '../../http/principal.js';
import type { SessionsService } from '../sessions/service.js';
import type { LiveStore } from './store.js';

/** Whether `userId` was removed from the session at or after `since` (ms): its token is then refused. */
export async function isRemovedSince(
  db: Db,
  sessionId: string,
  userId: string,
  since: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('removals')
    .select('removed_at')
    .where('session_id', '=', sessionId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined && row.removed_at >= since;
}

/**
 * The session, when `principal` may run it for everyone (remove a participant, decide what is
 * recorded): API keys, the session's creator, and the organisation's admins and owner; 403 for
 * other members, saying what they may not `do`.
 */
export async function hostedBy(
  sessions: SessionsService,
  principal: Principal,
  sessionId: string,
  doing: string,
): Promise<SessionsTable> {
  const session = await sessions.get(principal, sessionId);
  if (
    principal.kind === 'user' &&
    principal.userId !== session.created_by &&
    !roleAtLeast(principal.role, 'admin')
  )
    throw new Forbidden(`only the session's creator or an admin of the organisation may ${doing}`);
  return session;
}

/** What a removal closes: the hub's side of it. */
export interface Removing {
  /** closes the participant's connections in every process (`removed`, then 4403) */
  remove(sessionId: string, userId: string): Promise<void>;
  appendTimeline(
    sessionId: string,
    type: string,
    actor: string,
    data: Record<string, unknown>,
  ): Promise<void>;
}

/**
 * Removes a participant from a live session: its connections close with 4403 in every process,
 * and its live tokens issued before now are refused (a token issued later, by whoever may issue
 * one, lets it in again: a removal is not a ban of the user_id). Allowed to API keys, to the
 * session's creator and to the organisation's admins and owner; 404 when the participant is not
 * present.
 */
export async function removeParticipant(
  deps: { db: Db; store: LiveStore; sessions: SessionsService; hub: Removing },
  principal: Principal,
  sessionId: string,
  userId: string,
) {
  const session = await hostedBy(deps.sessions, principal, sessionId, 'remove a participant');
  const now = Date.now();
  const present = await deps.store.present(session.id, now);
  if (!present.some((p) => p.user_id === userId))
    throw new NotFound('this participant is not in the live session');
  await deps.db
    .insertInto('removals')
    .values({ session_id: session.id, user_id: userId, removed_at: now })
    .onConflict((oc) => oc.columns(['session_id', 'user_id']).doUpdateSet({ removed_at: now }))
    .execute();
  const by = principal.userId ?? principal.kind;
  await deps.hub.appendTimeline(session.id, 'participant.removed', by, { user_id: userId, removed_by: by });
  await deps.hub.remove(session.id, userId);
  return { session_id: session.id, user_id: userId, removed: true as const };
}
