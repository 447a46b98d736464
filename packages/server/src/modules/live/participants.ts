import { recordStartState, recordingData } from './recording.js';
import { sessionHosts } from '../../lib/recording.js';
import type { EventBus } from '../../bus/events.js';
import type { Db, SessionsTable } from '../../db/types.js';
import type { LiveConnection, LiveSession, SendControl } from './connection.js';
import { sendControl } from './delivery.js';
import type { SessionLifecycle } from './lifecycle.js';
import type { ConnectionMeter } from './service.js';
import type { LiveStore } from './store.js';
import type { Timeline } from './timeline.js';

/** What `participant.joined` and `participant.left` carry. */
export interface ParticipantData {
  user_id: string;
  /** the name shown in the session (the user id when none was given) */
  display_name: string;
}

declare module '../../bus/events.js' {
  interface DomainEvents {
    'participant.joined': ParticipantData;
    'participant.left': ParticipantData;
  }
}

/** The name a participant is shown by: the display name it joined with, else its user_id. */
export const shownName = (conn: LiveConnection): string => conn.displayName ?? conn.userId;

/** What a join and a leave tell: the timeline, the webhooks (through the bus), the others. */
export interface Announcing {
  db: Db;
  bus: EventBus;
  store: LiveStore;
  lifecycle: SessionLifecycle;
  events: Timeline;
  nodeId: string;
  meter?: ConnectionMeter;
  control: SendControl;
}

/**
 * `participant.joined` or `participant.left` for webhooks: `{ user_id, display_name }`, published
 * on the bus (a domain event, not the timeline's entry of the same name).
 */
export async function publishParticipant(
  a: Pick<Announcing, 'db' | 'bus'>,
  type: 'participant.joined' | 'participant.left',
  live: LiveSession,
  conn: LiveConnection,
  at: number,
): Promise<void> {
  await a.bus.emit(a.db, type, {
    at,
    orgId: live.orgId,
    projectId: live.session.project_id,
    sessionId: live.session.id,
    data: { user_id: conn.userId, display_name: shownName(conn) },
  });
}

/**
 * A member's join, told: its presence row, the session's start (the first join anywhere), the
 * timeline, the webhooks, its `welcome` (who is present, in every process, and by which name) and
 * the others' `join`. Metered last: a join that failed on the way is never metered.
 */
export async function announceJoin(
  a: Announcing,
  live: LiveSession,
  conn: LiveConnection,
  session: SessionsTable,
  orgId: string,
): Promise<void> {
  const now = Date.now();
  await a.store.addMember({
    connId: conn.id,
    sessionId: session.id,
    userId: conn.userId,
    displayName: conn.displayName,
    credential: conn.credential ?? null,
    nodeId: a.nodeId,
    at: now,
  });
  if (await a.lifecycle.start(session, orgId, now)) {
    live.session = { ...live.session, started_at: now };
    await a.events.append(live, 'session.started', 'system', {}, now);
    await recordStartState(a.events, live, now);
  }
  const display_name = shownName(conn);
  await a.events.append(live, 'participant.joined', conn.userId, { user_id: conn.userId, display_name }, now);
  await publishParticipant(a, 'participant.joined', live, conn, now);
  const present = await a.store.present(session.id, now);
  sendControl(conn, 'welcome', conn.userId, {
    session_id: session.id,
    user_id: conn.userId,
    display_name,
    can_publish: conn.canPublish,
    mode: 'live',
    participants: present.map((p) => p.user_id),
    names: Object.fromEntries(present.map((p) => [p.user_id, p.display_name ?? p.user_id])),
    recording: recordingData(live.recording, sessionHosts(session.created_by)),
  });
  a.control(live, conn.id, 'join', conn.userId, { display_name }, now);
  a.meter?.joined(conn.id, session, orgId, now);
}
