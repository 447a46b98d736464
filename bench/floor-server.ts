/**
 * The baseline of the floor benchmark: the least a server doing vss's work for the two session
 * routes can cost here. Fastify 5 with the real routes' schemas, and better-sqlite3 alone on a fresh
 * file configured as vss configures its own (WAL, synchronous=NORMAL, secure_delete), with a
 * `sessions` table carrying the real one's indexes. No auth, no Kysely, no log.
 *   GET  /v1/projects/:projectId/sessions/:sessionId  the row read by a prepared statement on a
 *        second, read-only connection (as vss reads it), presented as the real route presents it
 *   POST /v1/sessions  one insert and the webhook lookup the real create makes, then
 *        COMMIT=each   a transaction and a commit per request
 *        COMMIT=shared the requests gathered in one turn of the event loop share a commit
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const shared = process.env.COMMIT === 'shared';
/** The one project every session of this server belongs to. */
const PROJECT = '00000000-0000-4000-8000-000000000001';
const dir = mkdtempSync(join(tmpdir(), 'vss-bench-floor-'));
const db = new SQLite(join(dir, 'floor.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('secure_delete = ON');
db.exec(`
  create table sessions (id text primary key, project_id text not null, name text not null,
    created_by text not null, is_public integer default 0 not null, created_at bigint not null,
    started_at bigint, ended_at bigint);
  create index sessions_project_created on sessions (project_id, created_at, id);
  create index sessions_public_created on sessions (is_public, created_at, id);
  create table webhooks (id text primary key, project_id text not null, is_active integer, events text);
  create index webhooks_project on webhooks (project_id);
`);
const reader = new SQLite(join(dir, 'floor.sqlite'), { readonly: true });
const read = reader
  .prepare(
    'select id, project_id, name, created_by, is_public, created_at, started_at, ended_at from sessions where project_id = ? and id = ?',
  )
  .raw(true);
const insert = db.prepare('insert into sessions values (?, ?, ?, ?, 0, ?, null, null)');
const hooks = db.prepare('select id, events from webhooks where project_id = ? and is_active = 1');
const begin = db.prepare('begin');
const commit = db.prepare('commit');

let waiting: Array<() => void> = [];
/** Runs `work` in the next shared commit; resolves after that commit. */
function inSharedCommit(work: () => void): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(() => {
      work();
      resolve();
    });
    if (waiting.length > 1) return;
    setImmediate(() => {
      const group = waiting;
      waiting = [];
      begin.run();
      for (const w of group) w();
      commit.run();
    });
  });
}

const Session = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    project_id: { type: 'string' },
    name: { type: 'string' },
    created_by: { type: 'string' },
    started_at: { type: ['string', 'null'] },
    ended_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    is_public: { type: 'boolean' },
  },
};

const Uuid = { type: 'string', format: 'uuid' };
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const app = Fastify({ logger: false });
app.get('/health', async () => 'ok');
app.get(
  '/v1/projects/:projectId/sessions/:sessionId',
  {
    schema: {
      params: {
        type: 'object',
        properties: { projectId: Uuid, sessionId: Uuid },
        required: ['projectId', 'sessionId'],
      },
      response: {
        200: { type: 'object', properties: { data: Session, error: { type: 'null' } } },
        404: { type: 'object', properties: { data: { type: 'null' }, error: { type: 'object' } } },
      },
    },
  },
  async (request, reply) => {
    const { projectId, sessionId } = request.params as { projectId: string; sessionId: string };
    const c = read.get(projectId, sessionId) as
      [string, string, string, string, number, number, number | null, number | null] | undefined;
    if (!c)
      return reply.code(404).send({ data: null, error: { code: 'NOT_FOUND', message: 'session not found' } });
    return {
      data: {
        id: c[0],
        project_id: c[1],
        name: c[2],
        created_by: c[3],
        started_at: iso(c[6]),
        ended_at: iso(c[7]),
        created_at: iso(c[5]),
        is_public: c[4] === 1,
      },
      error: null,
    };
  },
);
app.post(
  '/v1/sessions',
  {
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { name: { type: 'string', maxLength: 200 } },
      },
      response: { 201: { type: 'object', properties: { data: Session, error: { type: 'null' } } } },
    },
  },
  async (request, reply) => {
    const id = randomUUID();
    const name = (request.body as { name?: string } | undefined)?.name ?? '';
    const at = Date.now();
    const work = () => {
      insert.run(id, PROJECT, name, 'api_key', at);
      hooks.all(PROJECT);
    };
    if (shared) await inSharedCommit(work);
    else {
      begin.run();
      work();
      commit.run();
    }
    reply.code(201);
    const data = { id, project_id: PROJECT, name, created_by: 'api_key', started_at: null, ended_at: null };
    return { data: { ...data, created_at: new Date(at).toISOString(), is_public: false }, error: null };
  },
);

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close().finally(() => {
      reader.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}
