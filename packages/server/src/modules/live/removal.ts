import type { Db } from '../../db/types.js';
import { NotFound } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
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
 * one, lets it in again: a removal is not a ban of the user_id). The tokens are revoked first and
 * whether or not a connection is present at this instant: a participant reconnecting meanwhile
 * (its older connection gone, its newer one not yet announced) is refused or sent away as it joins
 * (SessionHub.join checks again once it is a member). Allowed to API keys, to the session's creator
 * and to the organisation's admins and owner; 404 when the participant is not present (revoked all
 * the same).
 */
export async function removeParticipant(
  deps: { db: Db; store: LiveStore; sessions: SessionsService; hub: Removing },
  principal: Principal,
  sessionId: string,
  userId: string,
) {
  const session = await deps.sessions.hosted(principal, sessionId, 'remove a participant');
  const now = Date.now();
  await deps.db
    .insertInto('removals')
    .values({ session_id: session.id, user_id: userId, removed_at: now })
    .onConflict((oc) => oc.columns(['session_id', 'user_id']).doUpdateSet({ removed_at: now }))
    .execute();
  const present = (await deps.store.present(session.id, Date.now())).some((p) => p.user_id === userId);
  const by = principal.userId ?? principal.kind;
  if (present)
    await deps.hub.appendTimeline(session.id, 'participant.removed', by, { user_id: userId, removed_by: by });
  // Sent away everywhere even when nobody is present: a connection may be joining right now.
  await deps.hub.remove(session.id, userId);
  if (!present)
    throw new NotFound(
      'this participant is not in the live session; their live tokens issued before now are refused all the same',
    );
  return { session_id: session.id, user_id: userId, removed: true as const };
}
