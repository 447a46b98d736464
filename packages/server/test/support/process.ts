import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { ENGINE, PG_URL } from './app.js';

const SERVER = resolve(__dirname, '../..');
const PROTOCOL = resolve(SERVER, '../protocol');

/**
 * The command line (after `node`) that runs one of the server's entry points: its build in `dist/`
 * when that was built after the last change to any source it comes from (`npm test` builds first),
 * else the TypeScript through tsx, so that a test run straight after an edit never runs old code.
 * The build answers its first request in 1.6–1.7 s on a quiet 2-core machine, tsx in 2.5–2.7 s,
 * and the command line's, the dashboard's and the process tests each start their own.
 */
export function serverCommand(entry: 'main' | 'worker'): string[] {
  built ??= builtAfter(
    [join(SERVER, 'dist/.tsbuildinfo'), join(PROTOCOL, 'dist/.tsbuildinfo')],
    [join(SERVER, 'src'), join(PROTOCOL, 'src')],
  );
  return built ? [join(SERVER, `dist/${entry}.js`)] : ['--import', 'tsx', join(SERVER, `src/${entry}.ts`)];
}
let built: boolean | undefined;

/** Whether every build record exists and is newer than every file under the source folders. */
function builtAfter(records: string[], sources: string[]): boolean {
  const mtime = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const oldestBuild = Math.min(...records.map(mtime));
  const newest = (dir: string): number =>
    Math.max(
      mtime(dir),
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(join(dir, e.name)) : mtime(join(dir, e.name)),
      ),
    );
  return oldestBuild > 0 && sources.every((dir) => newest(dir) < oldestBuild);
}

/**
 * A port nobody listens on right now, for a server a test starts (or a child process it starts)
 * on a port it must know first. Taken from a block of 1000 below the kernel's range of ephemeral
 * ports (32768 and up), one block per vitest worker: a port the kernel hands out at random
 * (`listen(0)`) and frees again can be taken by any outgoing connection, or by another worker's
 * freePort, before the test listens on it (EADDRINUSE under load); here no other worker and no
 * outgoing connection takes it.
 */
let nextPort = 0;
export async function freePort(): Promise<number> {
  const block = 20_000 + (Number(process.env.VITEST_POOL_ID ?? 0) % 12) * 1000;
  for (let tries = 0; tries < 1000; tries++) {
    const port = block + (nextPort++ % 1000);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${block}–${block + 999}`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const srv = createServer();
    srv.once('error', () => ok(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => ok(true)));
  });
}

/** A server process started from the real entry point. */
export interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts the server's `main` (see `serverCommand`) with exactly this environment, plus PATH and,
 * unless `env` sets it, DRAIN_GRACE_MS=0: no balancer watches a test's process, so SIGTERM need
 * not wait for one.
 */
export function runServer(env: Record<string, string>): Proc {
  const child = spawn(process.execPath, serverCommand('main'), {
    env: { PATH: process.env.PATH ?? '', DRAIN_GRACE_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  return { child, out: () => out, exited };
}

/** Waits until `url` answers 2xx. */
export async function waitForHttp(url: string, deadlineMs = 20_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer in time`);
}

/** Creates a PostgreSQL schema and returns a URL whose connections use it. */
export async function pgSchemaUrl(baseUrl: string, schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`create schema if not exists "${schema}"`);
  } finally {
    await client.end();
  }
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Drops a PostgreSQL schema. */
export async function dropPgSchema(baseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** A JSON request to a running server; throws with the answer unless it is 2xx. */
export async function httpJson(
  base: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ res: Response; data: any }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return { res, data: ((await res.json()) as { data: unknown }).data };
}

/** Registers an account on a running server and issues an API key of its Default project. */
export async function httpTenant(base: string): Promise<{ key: string; projectId: string }> {
  const reg = await httpJson(base, 'POST', '/v1/auth/register', {
    email: `p-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'process password',
  });
  const cookie = reg.res.headers.get('set-cookie')!.split(';')[0]!;
  const key = (await httpJson(base, 'POST', `/v1/projects/${reg.data.project_id}/api-keys`, {}, { cookie }))
    .data.secret as string;
  return { key, projectId: reg.data.project_id };
}

/**
 * Storage for the server processes of one test: a data directory, and on PostgreSQL a schema of
 * its own. Returns their environment; what to remove afterwards is pushed onto `cleanups`.
 */
export async function processStorage(
  prefix: string,
  cleanups: Array<() => Promise<void> | void>,
): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), `vss-${prefix}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // Its own keys and channels in the shared Redis, as startApp's apps have.
  const own = { DATA_DIR: dir, REDIS_KEY_PREFIX: `${basename(dir)}:` };
  if (ENGINE !== 'postgres') return own;
  const schema = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  cleanups.push(() => dropPgSchema(PG_URL, schema));
  return { ...own, DATABASE_URL: await pgSchemaUrl(PG_URL, schema) };
}

/**
 * Every event of a session read through a server process's playback route (with an API key),
 * window after window, by seq; each seq must come once.
 */
export async function playback(base: string, key: string, sessionId: string, fromTs: number) {
  const out = new Map<number, { stream: string; ts: number; body: Buffer }>();
  let baseSeq: number | null = null;
  for (;;) {
    const q = `from_ts=${fromTs}&window_size=300000${baseSeq === null ? '' : `&base_seq=${baseSeq}`}`;
    const res = await fetch(`${base}/v1/sessions/${sessionId}/playback?${q}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`playback from ${base}: ${res.status} ${text}`);
    const data = JSON.parse(text).data as {
      events: Array<{ seq: number; timestamp_ms: number; stream_id: string; body_base64: string }>;
      next_base_seq: number | null;
    };
    for (const e of data.events) {
      expect(out.has(e.seq), `seq ${e.seq} once`).toBe(false);
      out.set(e.seq, { stream: e.stream_id, ts: e.timestamp_ms, body: Buffer.from(e.body_base64, 'base64') });
    }
    if (data.next_base_seq === null) return out;
    baseSeq = data.next_base_seq;
  }
}
