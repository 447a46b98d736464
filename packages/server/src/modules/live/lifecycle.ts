import type { EventBus } from '../../bus/events.js';
import { transaction } from '../../db/transaction.js';
import type { Db, SessionsTable } from '../../db/types.js';
import { presentSession, type SessionData } from '../sessions/service.js';
import type { LiveStore } from './store.js';

declare module '../../bus/events.js' {
  interface DomainEvents {
    /** the session's first participant joined: the session, with its `started_at` */
    'session.started': SessionData;
    /** the session ended (nobody left, past the departure timeout, or ended by a call) */
    'session.ended': SessionData;
  }
}

/**
 * A session's start and end, each decided once whatever the number of processes: a conditional
 * update that one caller wins, committed together with its domain event (`session.started`,
 * `session.ended`), so that webhooks hear of exactly what happened.
 */
export class SessionLifecycle {
  constructor(
    private readonly db: Db,
    private readonly store: LiveStore,
    private readonly bus: EventBus,
  ) {}

  /** Starts the session at `now` unless it has started; true for the one caller that did. */
  start(session: SessionsTable, orgId: string, now: number): Promise<boolean> {
    return transaction(this.db, async (trx) => {
      if (!(await this.store.markStarted(trx, session.id, now))) return false;
      await this.bus.emit(trx, 'session.started', {
        at: now,
        orgId,
        projectId: session.project_id,
        sessionId: session.id,
        data: presentSession({ ...session, started_at: now }),
      });
      return true;
    });
  }

  /**
   * Ends the session when nobody is present in any process and the last departure is before
   * `cutoff`; true for the one caller that ended it.
   */
  end(sessionId: string, now: number, cutoff: number): Promise<boolean> {
    return transaction(this.db, async (trx) => {
      if (!(await this.store.markEnded(trx, sessionId, now, cutoff))) return false;
      const { org_id, ...session } = await this.store.withOrg(trx, sessionId);
      await this.bus.emit(trx, 'session.ended', {
        at: now,
        orgId: org_id,
        projectId: session.project_id,
        sessionId,
        data: presentSession(session),
      });
      return true;
    });
  }
}
