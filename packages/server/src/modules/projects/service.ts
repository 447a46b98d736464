import type { RequestReads } from '../../db/request-reads.js';
import type { Db, ProjectsTable, Trx } from '../../db/types.js';
import { BadRequest, Forbidden, NotFound } from '../../http/errors.js';
import { embedOriginProblem } from './embed-origins.js';
import { decodeCursor } from '../../http/pagination.js';
import { roleAtLeast, type Principal, type Role } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { iso, now } from '../../lib/time.js';
import type { ProjectsStore } from './store.js';

/** The public shape of a project. */
export function presentProject(p: ProjectsTable) {
  return {
    id: p.id,
    name: p.name,
    org_id: p.org_id,
    environment: p.environment,
    embed_origins: readOrigins(p.embed_origins),
    created_at: iso(p.created_at),
  };
}

/** The stored list of embed origins (a JSON array; anything else reads as none). */
function readOrigins(json: string | undefined): string[] {
  try {
    const v: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(v) ? v.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}

/** Refuses with 403 when the principal's role is below `min`. */
export function requireRole(principal: Principal, min: Role): void {
  if (!roleAtLeast(principal.role, min)) throw new Forbidden(`this needs the ${min} role or higher`);
}

const projectNotFound = () => new NotFound('project not found');

/** What a caller acts on: a project's id and organisation. */
export interface ProjectRef {
  id: string;
  org_id: string;
}

/** Projects, and the rules that decide which project a caller acts on. */
export function projectsService(deps: { store: ProjectsStore; reads: RequestReads }) {
  const { store } = deps;
  return {
    /** Inserts a project (used by create and by registration's Default project). */
    async insert(
      q: Db | Trx,
      orgId: string,
      input: { name: string; environment: string | null },
    ): Promise<ProjectsTable> {
      const row: ProjectsTable = {
        id: newId(),
        org_id: orgId,
        name: input.name,
        environment: input.environment,
        created_at: now(),
        embed_origins: '[]',
      };
      await store.insert(q, row);
      return row;
    },

    /**
     * A project of the caller's organisation, for management routes (a key acts
     * for its whole organisation there). Anything outside the organisation is 404. `q`: the
     * caller's transaction, when there is one.
     */
    async inOrg(
      principal: Principal,
      projectId: string,
      { q }: { q?: Db | Trx } = {},
    ): Promise<ProjectsTable> {
      const p = await (q
        ? store.byId(q, principal.orgId, projectId)
        : deps.reads.project(principal.orgId, projectId));
      if (!p) throw projectNotFound();
      return p;
    },

    /**
     * The project a project-scoped route acts on. Keys act on their own project only; dashboard
     * users on any project of their organisation: the one in the path, else `X-Project-Id`,
     * else the organisation's first project. Another project is 404, never 403.
     * `q` is the caller's transaction when there is one: on SQLite a read outside it would wait for it.
     */
    async scope(
      principal: Principal,
      { projectId, q }: { projectId?: string; q?: Db | Trx } = {},
    ): Promise<ProjectRef> {
      // A key's project is part of the key: projects are never deleted, so there is nothing to re-read.
      if (principal.keyProjectId !== null) {
        if (projectId !== undefined && projectId !== principal.keyProjectId) throw projectNotFound();
        return { id: principal.keyProjectId, org_id: principal.orgId };
      }
      const wanted = projectId ?? principal.projectHint;
      const p = wanted
        ? await (q ? store.byId(q, principal.orgId, wanted) : deps.reads.project(principal.orgId, wanted))
        : await store.first(q ?? store.db, principal.orgId);
      if (!p) throw projectNotFound();
      return p;
    },

    list(principal: Principal, limit: number, cursor?: string) {
      return store.list(principal.orgId, limit + 1, decodeCursor(cursor));
    },

    async create(q: Db | Trx, principal: Principal, input: { name: string; environment?: string | null }) {
      requireRole(principal, 'admin');
      return this.insert(q, principal.orgId, { name: input.name, environment: input.environment ?? null });
    },

    async update(
      principal: Principal,
      projectId: string,
      patch: { name?: string; environment?: string | null; embed_origins?: string[] },
    ) {
      requireRole(principal, 'admin');
      const p = await this.inOrg(principal, projectId);
      const { embed_origins, ...rest } = patch;
      const row: Partial<Pick<ProjectsTable, 'name' | 'environment' | 'embed_origins'>> = { ...rest };
      if (embed_origins) {
        embed_origins.forEach((o, i) => {
          const problem = embedOriginProblem(o);
          if (problem) throw new BadRequest(`body.embed_origins[${i}]: ${problem}`);
        });
        // The same origin twice is one.
        row.embed_origins = JSON.stringify([...new Set(embed_origins)]);
      }
      await store.update(principal.orgId, p.id, row);
      return { ...p, ...row } as ProjectsTable;
    },

    /** The origins that may frame a project's prebuilt room; null when there is no such project. */
    async embedOrigins(projectId: string): Promise<string[] | null> {
      const p = await store.anyById(projectId);
      return p ? readOrigins(p.embed_origins) : null;
    },
  };
}
export type ProjectsService = ReturnType<typeof projectsService>;
