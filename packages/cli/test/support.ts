import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startApp, type TestApp } from '../../server/test/support/app.js';
import { freePort, httpTenant } from '../../server/test/support/process.js';

/** The built `vss` executable, as `npm ci` installs it. */
export const VSS_BIN = resolve(__dirname, '../bin/vss.js');

/** What one run of `vss` did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** text for standard input (default: none, stdin closed: not a terminal) */
  input?: string;
  timeoutMs?: number;
  cwd?: string;
}

/**
 * Runs `vss args…` as a subprocess with exactly this environment (plus PATH and a private
 * VSS_CONFIG unless given), and answers its exit code and output.
 */
export function vss(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [VSS_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`vss ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      ok({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A server listening on a real port, on fresh storage of the engine under test. */
export interface CliServer {
  app: TestApp;
  baseUrl: string;
  /** an API key of the first account's Default project */
  key: string;
  projectId: string;
  /** a private profile file for this test file */
  configFile: string;
  /** VSS_BASE_URL, VSS_API_KEY and VSS_CONFIG for `vss` */
  env: Record<string, string>;
}

/**
 * Starts the real app on a free port before the file's tests and stops it after. The CLI talks to
 * it over HTTP as it would to any server.
 */
export function useCliServer(env: Record<string, string> = {}): CliServer {
  const server = {} as CliServer;
  let dir = '';
  beforeAll(async () => {
    // The port is chosen first so that the addresses the server writes (export downloads, replay
    // links) point at itself.
    const port = await freePort();
    server.baseUrl = `http://127.0.0.1:${port}`;
    const app = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', PUBLIC_BASE_URL: server.baseUrl, ...env },
    });
    await app.app.listen({ port, host: '127.0.0.1' });
    server.app = app;
    const tenant = await httpTenant(server.baseUrl);
    server.key = tenant.key;
    server.projectId = tenant.projectId;
    dir = mkdtempSync(join(tmpdir(), 'vss-cli-'));
    server.configFile = join(dir, 'config.json');
    server.env = { VSS_BASE_URL: server.baseUrl, VSS_API_KEY: server.key, VSS_CONFIG: server.configFile };
  });
  afterAll(async () => {
    await server.app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return server;
}

/** Runs `vss --json args…` and parses its output; fails the test with the stderr otherwise. */
export async function vssJson<T = any>(
  server: CliServer,
  args: string[],
  options: CliOptions = {},
): Promise<T> {
  const r = await vss(['--json', ...args], { ...options, env: { ...server.env, ...options.env } });
  if (r.code !== 0) throw new Error(`vss ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/**
 * Calls the API directly, as a script would, to check what a command did: with the server's API
 * key unless `key` is given, and a JSON body when there is one.
 */
export async function api(
  server: CliServer,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<{ status: number; data: any }> {
  const { key = server.key, body } = options;
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, data: ((await res.json()) as { data: unknown }).data };
}
