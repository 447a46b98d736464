import type { EventBus } from '../../bus/events.js';
import type { RequestReads } from '../../db/request-reads.js';
import { transaction } from '../../db/transaction.js';
import type { Db, SessionsTable, Trx } from '../../db/types.js';
import { Conflict, Forbidden, NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import { roleAtLeast, type Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { iso, isoOrNull, now } from '../../lib/time.js';
import type { UsageGate } from '../billing/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { SessionsStore } from './store.js';

/** A session as the API presents it. */
export type SessionData = ReturnType<typeof presentSession>;

declare module '../../bus/events.js' {
  interface DomainEvents {
    /** a session was created: the session as `GET /v1/sessions/{id}` shows it */
    'session.created': SessionData;
  }
}

/** The public shape of a session. */
export function presentSession(s: SessionsTable) {
  return {
    id: s.id,
    project_id: s.project_id,
    name: s.name,
    created_by: s.created_by,
    started_at: isoOrNull(s.started_at),
    ended_at: isoOrNull(s.ended_at),
    created_at: iso(s.created_at),
    is_public: s.is_public === 1,
  };
}

/** The public catalog entry: never the project. */
export function presentPublicSession(s: SessionsTable) {
  return {
    id: s.id,
    name: s.name,
    created_at: iso(s.created_at),
    started_at: isoOrNull(s.started_at),
    ended_at: isoOrNull(s.ended_at),
  };
}

const sessionNotFound = () => new NotFound('session not found');

/** Sessions: create (billing-gated, `session.created` on the bus), read, list, visibility, delete. */
export function sessionsService(deps: {
  reads: RequestReads;
  db: Db;
  store: SessionsStore;
  projects: ProjectsService;
  bus: EventBus;
  gate: UsageGate;
}) {
  const { store, projects, bus } = deps;

  return {
    async create(
      q: Db | Trx,
      principal: Principal,
      { projectId, name }: { projectId?: string; name: string },
    ) {
      const project = await projects.scope(principal, { projectId, q });
      await deps.gate.assertWithinLimits(project.org_id, 'session creation', { q });
      const row: SessionsTable = {
        id: newId(),
        project_id: project.id,
        name,
        created_by: principal.kind === 'user' ? principal.userId! : principal.kind,
        is_public: 0,
        created_at: now(),
        started_at: null,
        ended_at: null,
      };
      await transaction(q, async (trx) => {
        await store.insert(trx, row);
        await bus.emit(trx, 'session.created', {
          at: row.created_at,
          orgId: project.org_id,
          projectId: project.id,
          sessionId: row.id,
          data: presentSession(row),
        });
      });
      return row;
    },

    /** A public session, for readers without a credential; undefined when missing or private. */
    findPublic(sessionId: string): Promise<SessionsTable | undefined> {
      return store.byIdOnly(sessionId, true);
    },

    /**
     * A session by id alone, for access that proves itself otherwise (a replay link's token) or
     * for the system (a job): never for a credential's request, which goes through `get`.
     */
    findAny(sessionId: string): Promise<SessionsTable | undefined> {
      return store.byIdOnly(sessionId, false);
    },

    /**
     * A session of the caller's project scope; 404 when missing or in another project. `q`: the
     * caller's transaction, when there is one (on SQLite a read beside it would wait for it).
     */
    async get(
      principal: Principal,
      sessionId: string,
      { projectId, q }: { projectId?: string; q?: Db | Trx } = {},
    ): Promise<SessionsTable> {
      const project = await projects.scope(principal, { projectId, q });
      const s = await (q ? store.byId(q, project.id, sessionId) : deps.reads.session(project.id, sessionId));
      if (!s) throw sessionNotFound();
      return s;
    },

    async list(
      principal: Principal,
      { projectId, limit, cursor }: { projectId?: string; limit: number; cursor?: string },
    ) {
      const project = await projects.scope(principal, { projectId });
      return store.list(project.id, limit + 1, decodeCursor(cursor));
    },

    listPublic(limit: number, cursor: string | undefined) {
      return store.listPublic(limit + 1, decodeCursor(cursor));
    },

    /**
     * The session, when `principal` may change it for everyone. One rule for every such change
     * (its visibility, deleting it, redacting a participant, join and replay links, pausing it,
     * its recording rules, removing a participant): API keys of its project, the member who
     * created it, and the organisation's admins and owner. Other members may join, watch, read
     * and export it; a change answers 403 saying what they may not `do`.
     */
    async hosted(
      principal: Principal,
      sessionId: string,
      doing: string,
      opts: { q?: Db | Trx } = {},
    ): Promise<SessionsTable> {
      const session = await this.get(principal, sessionId, opts);
      if (
        principal.kind === 'user' &&
        principal.userId !== session.created_by &&
        !roleAtLeast(principal.role, 'admin')
      )
        throw new Forbidden(`only the session's creator or an admin of the organisation may ${doing}`);
      return session;
    },

    async setVisibility(principal: Principal, sessionId: string, isPublic: boolean): Promise<boolean> {
      const s = await this.hosted(principal, sessionId, 'make it public or private');
      if (!(await store.setPublic(s.project_id, s.id, isPublic))) throw sessionNotFound();
      return isPublic;
    },

    /** Deletes a session that is not live (409 while it is). */
    async delete(principal: Principal, sessionId: string) {
      const s = await this.hosted(principal, sessionId, 'delete it');
      if (!(await store.deleteIdle(deps.db, s.project_id, s.id)))
        throw new Conflict('the session is live; it can be deleted once it has ended');
      return { id: s.id, deleted: true as const };
    },
  };
}
export type SessionsService = ReturnType<typeof sessionsService>;
