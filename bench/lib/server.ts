import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProcSampler } from './proc.ts';

/** The repository root (bench/lib/../..). */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * The arguments that run the compiled server as `npm start` does: the Node flags of the root
 * package.json's `start` script, then `entry` (default: packages/server/dist/main.js). Read from the
 * script so that a benchmark always measures the process users run.
 */
export function vssArgs(entry = join(ROOT, 'packages/server/dist/main.js')): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const m = /\bnode((?:\s+--[\w-]+(?:=\S+)?)*)\s+packages\/server\/dist\/main\.js/.exec(pkg.scripts.start);
  if (!m) throw new Error(`the start script does not run packages/server/dist/main.js: ${pkg.scripts.start}`);
  return [...m[1]!.trim().split(/\s+/).filter(Boolean), entry];
}

/** A server process started by a benchmark. */
export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** the fresh DATA_DIR given to it, removed on stop; null when it has none */
  dataDir: string | null;
  /** CPU time and RSS of the process, sampled until it stops */
  sampler: ProcSampler;
  child: ChildProcess;
  /** the last few KiB of its stdout and stderr */
  output(): string;
  /** the file its stdout and stderr go to, removed on stop */
  logFile: string;
  /** throws (with its output) if the process has exited */
  assertAlive(): void;
  /** SIGTERM, then SIGKILL after `graceMs`; removes its DATA_DIR. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  /** added to the inherited environment; PORT and HOST are set by startProcess */
  env?: Record<string, string>;
  /** give the process a fresh temporary DATA_DIR */
  dataDir?: boolean;
  /** path answering 200 once the server is ready; default /health */
  healthPath?: string;
  timeoutMs?: number;
}

const live = new Set<ServerProcess>();
const HOST = '127.0.0.1';

/** A TCP port free right now on 127.0.0.1 (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

/** Starts a server process on a free port and resolves once GET healthPath answers 200. */
export async function startProcess(options: StartOptions): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://${HOST}:${port}`;
  const dataDir = options.dataDir
    ? mkdtempSync(join(tmpdir(), `vss-bench-${options.name.replace(/[^\w.-]+/g, '_')}-`))
    : null;
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...options.env,
    PORT: String(port),
    HOST,
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  };
  // Its output goes to a file, not through a pipe to this process: reading a busy server's log here
  // would take CPU from the load generator that shares the machine.
  const logDir = mkdtempSync(join(tmpdir(), 'vss-bench-log-'));
  const logFile = join(logDir, 'output.log');
  const logFd = openSync(logFile, 'a');
  const child = spawn(options.command, options.args, { cwd: ROOT, env, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const tail = () => {
    try {
      const text = readFileSync(logFile, 'utf8');
      return text.slice(-8192);
    } catch {
      return '';
    }
  };
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  if (child.pid === undefined) {
    await new Promise((r) => child.once('error', r));
    throw new Error(`${options.name}: could not start ${options.command}`);
  }

  let stopped = false;
  const server: ServerProcess = {
    name: options.name,
    pid: child.pid,
    port,
    url,
    dataDir,
    sampler: new ProcSampler(child.pid),
    child,
    output: tail,
    logFile,
    assertAlive() {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `${options.name} (pid ${child.pid}) exited (${child.exitCode ?? child.signalCode}); its output:\n${tail()}`,
        );
    },
    async stop(graceMs = 5000) {
      if (stopped) return;
      stopped = true;
      server.sampler.stop();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(server);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      rmSync(logDir, { recursive: true, force: true });
    },
  };
  live.add(server);

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const health = url + (options.healthPath ?? '/health');
  for (;;) {
    try {
      server.assertAlive();
    } catch (err) {
      await server.stop();
      throw err;
    }
    try {
      const res = await fetch(health, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(
        `${options.name} did not answer ${health} within ${options.timeoutMs ?? 30_000} ms; its output:\n${tail()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The compiled vss server (run `npm run build` first) with a fresh DATA_DIR and SQLite, started as
 * `npm start` starts it: its defaults, LOG_LEVEL=info included. Server settings inherited from the
 * caller's environment are blanked (empty means unset), so that a DATABASE_URL, REDIS_URL or
 * LOG_LEVEL in the shell does not change what is measured; a benchmark passes what it changes in
 * `env`, and names it beside its figures. Its standard output, the log, goes to a file, as with
 * `npm start > vss.log`.
 */
export function startVss(
  env: Record<string, string> = {},
  name = 'vss',
  /** Node flags added before the start script's own (a profiler, say); named beside the figures */
  nodeFlags: string[] = [],
): Promise<ServerProcess> {
  return startProcess({
    name,
    command: process.execPath,
    args: [...nodeFlags, ...vssArgs()],
    dataDir: true,
    env: { DATABASE_URL: '', REDIS_URL: '', PUBLIC_BASE_URL: '', SECRET_KEY: '', LOG_LEVEL: '', ...env },
  });
}

/** A TypeScript file run by Node through tsx (its own process, like the real server). */
export function startTsServer(
  file: string,
  env: Record<string, string> = {},
  name = file,
): Promise<ServerProcess> {
  return startProcess({
    name,
    command: process.execPath,
    args: ['--import', 'tsx', resolve(ROOT, file)],
    env,
  });
}

/** Stops every process started here that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((s) => s.stop()));
}

// Nothing outlives the benchmark: Ctrl-C and termination stop the servers first; a plain exit kills them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping ${live.size} server process(es)`);
    void stopAll().finally(() => process.exit(130));
  });
}
process.once('exit', () => {
  for (const s of live) {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    if (s.dataDir) rmSync(s.dataDir, { recursive: true, force: true });
  }
});
