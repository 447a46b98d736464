/**
 * The baseline of the commit benchmark: the least a durable `POST /v1/sessions` can cost here.
 * Fastify 5 with the body and response schemas of the real route, and better-sqlite3 alone on a
 * fresh file configured as vss configures its own (WAL, synchronous=NORMAL, secure_delete): per
 * create, one insert into a `sessions` table with the real one's indexes and the webhook lookup
 * the real create makes. No auth, no Kysely, no log.
 *   COMMIT=each   a transaction and a commit per request
 *   COMMIT=shared the requests gathered in one turn of the event loop share a commit
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const shared = process.env.COMMIT === 'shared';
const dir = mkdtempSync(join(tmpdir(), 'vss-bench-commit-'));
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

const app = Fastify({ logger: false });
app.get('/health', async () => 'ok');
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
      insert.run(id, 'project', name, 'api_key', at);
      hooks.all('project');
    };
    if (shared) await inSharedCommit(work);
    else {
      begin.run();
      work();
      commit.run();
    }
    reply.code(201);
    const data = { id, project_id: 'project', name, created_by: 'api_key', started_at: null, ended_at: null };
    return { data: { ...data, created_at: new Date(at).toISOString(), is_public: false }, error: null };
  },
);

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close().finally(() => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}
