import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';

/** Which engine this test run uses: the vitest project sets VSS_TEST_ENGINE. */
export const ENGINE = process.env.VSS_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
export const PG_URL = process.env.TEST_DATABASE_URL ?? '';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? '';
export const BASE = 'http://vss.test';

/** A running app over its own fresh storage (temp dir, or its own PostgreSQL schema). */
export interface TestApp {
  app: FastifyInstance;
  runtime: Runtime;
  config: Config;
  dataDir: string;
  pgSchema?: string;
  close(): Promise<void>;
}

export interface StartOptions extends RuntimeOptions {
  env?: Record<string, string>;
  /** reuse this data dir / schema (a restart on the same storage) */
  dataDir?: string;
}

/** Builds the real app on fresh storage of the engine under test. */
export async function startApp(options: StartOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'vss-test-'));
  const pgSchema =
    ENGINE === 'postgres' ? (options.pgSchema ?? `t_${Math.random().toString(36).slice(2, 12)}`) : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: BASE,
    // Exports find ffmpeg on PATH, as a server started from a shell does.
    PATH: process.env.PATH ?? '',
    // Its own keys and channels in the shared Redis (apps sharing storage share them too): other
    // files' requests must not count against this app's rate limits, nor its notices reach them.
    REDIS_KEY_PREFIX: `${basename(dataDir)}:`,
    ...(ENGINE === 'postgres' ? { DATABASE_URL: PG_URL } : {}),
    ...options.env,
  });
  const runtime = await openRuntime(config, { ...options, pgSchema });
  const app = await buildApp(runtime);
  await app.ready();
  return {
    app,
    runtime,
    config,
    dataDir,
    pgSchema,
    async close() {
      await app.close();
      await runtime.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (pgSchema && !options.pgSchema) await dropSchema(pgSchema);
    },
  };
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** What a test sees of an answer. */
export interface Res<T = any> {
  status: number;
  body: { data: T; error: { code: string; message: string } | null };
  headers: Record<string, string | string[] | number | undefined>;
  raw: string;
}

export interface Call {
  key?: string;
  cookie?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** raw payload, sent as is */
  payload?: string | Buffer;
}

/** Sends one request through the real HTTP pipeline (inject). */
export async function call<T = any>(
  t: TestApp,
  method: string,
  url: string,
  opts: Call = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.cookie) headers.cookie = `service_session=${opts.cookie}`;
  let payload: string | Buffer | undefined = opts.payload;
  if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await t.app.inject({ method: method as 'GET', url, headers, payload });
  let body: any = null;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = null;
  }
  return { status: res.statusCode, body, headers: res.headers as Res['headers'], raw: res.body };
}

/** The cookie value a response set, if any. */
export function sessionCookie(res: Res): string | undefined {
  const set = res.headers['set-cookie'];
  const all = Array.isArray(set) ? set : set ? [String(set)] : [];
  const line = all.find((c) => c.startsWith('service_session='));
  return line?.slice('service_session='.length).split(';')[0] || undefined;
}

let counter = 0;
/** A unique email for a test. */
export function email(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export const PASSWORD = 'correct horse battery';

/** A registered dashboard user with their organisation and Default project. */
export interface Account {
  email: string;
  cookie: string;
  userId: string;
  orgId: string;
  projectId: string;
}

/** Registers a new account through the API. */
export async function register(t: TestApp, address = email()): Promise<Account> {
  const res = await call(t, 'POST', '/v1/auth/register', { body: { email: address, password: PASSWORD } });
  if (res.status !== 201) throw new Error(`register failed: ${res.raw}`);
  return {
    email: address,
    cookie: sessionCookie(res)!,
    userId: res.body.data.id,
    orgId: res.body.data.org_id,
    projectId: res.body.data.project_id,
  };
}

/** A new account that joins `a`'s organisation through an invitation with `role`. */
export async function inviteMember(t: TestApp, a: Tenant, role = 'member'): Promise<Account> {
  const address = email(role);
  const inv = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
    key: a.key,
    body: { email: address, role },
  });
  if (inv.status !== 201) throw new Error(`invitation failed: ${inv.raw}`);
  const account = await register(t, address);
  const redeemed = await call(t, 'POST', '/v1/invitations/redeem', {
    cookie: account.cookie,
    body: { token: inv.body.data.token },
  });
  if (redeemed.status !== 200) throw new Error(`redeem failed: ${redeemed.raw}`);
  return { ...account, orgId: a.orgId, projectId: a.projectId };
}

/** Issues an API key for a project through the API, as the account's owner. */
export async function apiKey(t: TestApp, account: Account, projectId = account.projectId): Promise<string> {
  const res = await call(t, 'POST', `/v1/projects/${projectId}/api-keys`, {
    cookie: account.cookie,
    body: {},
  });
  if (res.status !== 201) throw new Error(`key create failed: ${res.raw}`);
  return res.body.data.secret;
}

/** An organisation ready to use: owner account, Default project and an API key of it. */
export interface Tenant extends Account {
  key: string;
}

export async function tenant(t: TestApp): Promise<Tenant> {
  const account = await register(t);
  return { ...account, key: await apiKey(t, account) };
}

/** Creates a session through the API. */
export async function createSession(t: TestApp, key: string, name = 'a session'): Promise<any> {
  const res = await call(t, 'POST', '/v1/sessions', { key, body: { name } });
  if (res.status !== 201) throw new Error(`session create failed: ${res.raw}`);
  return res.body.data;
}

/** Expects the error envelope with this status and code; returns the message. */
export function expectError(res: Res, status: number, code: string): string {
  if (res.status !== status || res.body?.error?.code !== code || res.body.data !== null) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.raw}`);
  }
  return res.body.error.message;
}

/**
 * The app fixture of a describe block: a fresh app on its own storage and a tenant of it, made
 * before its first test (handed to `bind`) and closed after its last.
 */
export function useApp(bind: (t: TestApp, a: Tenant) => void, options: StartOptions = {}): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startApp(options);
    bind(app, await tenant(app));
  });
  afterAll(async () => {
    await app?.close();
  });
}
