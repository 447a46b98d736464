import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type { ApiKeysTable, Db, Engine, ProjectsTable, SessionsTable } from './types.js';

/** The key columns authentication needs. */
export type KeyRow = Pick<ApiKeysTable, 'id' | 'org_id' | 'project_id' | 'kind' | 'last_used_at'>;

/**
 * The lookups on every authenticated request, prepared once. On SQLite they run on a second,
 * read-only connection: in WAL mode it sees every committed write, and it never queues behind
 * the write connection's transactions (Kysely serialises everything on that one). On PostgreSQL
 * they are compiled once and run on the pool.
 */
export interface RequestReads {
  keyByHash(hash: string): Promise<KeyRow | undefined>;
  session(projectId: string, id: string): Promise<SessionsTable | undefined>;
  project(orgId: string, id: string): Promise<ProjectsTable | undefined>;
  close(): void;
}

const SQL = {
  key: 'select id, org_id, project_id, kind, last_used_at from api_keys where secret_hash = ?',
  session:
    'select id, project_id, name, created_by, is_public, created_at, started_at, ended_at from sessions where project_id = ? and id = ?',
  project: 'select * from projects where org_id = ? and id = ?',
};

type SessionColumns = [string, string, string, string, number, number, number | null, number | null];

/**
 * A session row from the columns of SQL.session, in order. better-sqlite3 builds a row object
 * through V8's API one named property at a time, which cost a cached GET more than the query
 * itself (about 5 of its 10 µs, measured with perf); an array of the columns, shaped here by one
 * object literal, costs a fraction of that.
 */
function sessionRow(c: SessionColumns | undefined): SessionsTable | undefined {
  if (c === undefined) return undefined;
  return {
    id: c[0],
    project_id: c[1],
    name: c[2],
    created_by: c[3],
    is_public: c[4],
    created_at: c[5],
    started_at: c[6],
    ended_at: c[7],
  };
}

/** Opens the hot reads of a metadata database. */
export function requestReads(
  engine: Engine,
  db: Db,
  dataDir: string,
  sqliteFile = 'vss.sqlite',
): RequestReads {
  if (engine === 'sqlite') {
    const conn = new SQLite(join(dataDir, sqliteFile), { readonly: true, fileMustExist: true });
    conn.pragma('busy_timeout = 5000');
    const key = conn.prepare(SQL.key);
    const session = conn.prepare(SQL.session).raw(true);
    const project = conn.prepare(SQL.project);
    return {
      keyByHash: async (hash) => key.get(hash) as KeyRow | undefined,
      session: async (projectId, id) => sessionRow(session.get(projectId, id) as SessionColumns | undefined),
      project: async (orgId, id) => project.get(orgId, id) as ProjectsTable | undefined,
      close: () => conn.close(),
    };
  }
  const pg = (text: string) =>
    text.replace(
      /\?/g,
      (
        (n) => () =>
          `$${++n}`
      )(0),
    );
  const run = async <T>(text: string, params: unknown[]) =>
    (await db.executeQuery<T>(CompiledQuery.raw(text, params))).rows[0];
  const key = pg(SQL.key);
  const session = pg(SQL.session);
  const project = pg(SQL.project);
  return {
    keyByHash: (hash) => run<KeyRow>(key, [hash]),
    session: (projectId, id) => run<SessionsTable>(session, [projectId, id]),
    project: (orgId, id) => run<ProjectsTable>(project, [orgId, id]),
    close: () => {},
  };
}
