import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE } from './support/app.js';
import { freePort, runServer, serverCommand, waitForHttp } from './support/process.js';

/** A running server, however its standard output is connected. */
interface Started {
  out: () => string;
  /** SIGTERM to the server process; resolves with its exit code */
  stop: () => Promise<number | null>;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

async function serverEnv(
  extra: Record<string, string>,
): Promise<{ env: Record<string, string>; base: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'vss-logs-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  return { env: { DATA_DIR: dir, PORT: String(port), ...extra }, base: `http://127.0.0.1:${port}` };
}

/** The server with standard output a pipe, as under a process manager or `| tee`. */
async function onPipe(extra: Record<string, string>): Promise<Started> {
  const { env, base } = await serverEnv(extra);
  const proc = runServer(env);
  cleanups.push(() => proc.child.kill('SIGKILL'));
  await waitForHttp(`${base}/health`);
  return {
    out: proc.out,
    stop: () => {
      proc.child.kill('SIGTERM');
      return proc.exited;
    },
  };
}

/**
 * The server with standard output a terminal, as when a person starts it in a shell: `script`
 * (util-linux) runs it on a pseudo-terminal and copies what it shows to our pipe.
 */
async function onTerminal(extra: Record<string, string>): Promise<Started> {
  const { env, base } = await serverEnv(extra);
  const command = `exec ${[process.execPath, ...serverCommand('main')].map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  cleanups.push(() => child.kill('SIGKILL'));
  await waitForHttp(`${base}/health`);
  // The signal goes to the server itself, as Ctrl-C's would; `script` then exits with its code
  // (-e). Signalling `script` instead would make it kill the server and stop copying its output.
  const server = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim());
  cleanups.push(() => {
    try {
      process.kill(server, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return {
    out: () => out,
    stop: () => {
      process.kill(server, 'SIGTERM');
      return exited;
    },
  };
}

/** The lines shown, without colours and carriage returns. */
function lines(out: string): string[] {
  return stripVTControlCharacters(out)
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
}

/** The line as a JSON object, or null when it is not one. */
function json(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A readable line as pino-pretty writes it: `[HH:MM:ss.mmm] LEVEL: message`. */
const readable = (level: string, message: string) =>
  new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] ${level}: ${message}`);

// How lines are written does not depend on the database: one run is enough.
describe.skipIf(ENGINE !== 'sqlite')('the log format', () => {
  it('is readable lines, not JSON, when standard output is a terminal and LOG_FORMAT is unset', async () => {
    const s = await onTerminal({});
    expect(await s.stop(), s.out()).toBe(0);
    const shown = lines(s.out());
    expect(shown.some((l) => readable('INFO', 'vss listening on http://127\\.0\\.0\\.1:\\d+').test(l))).toBe(
      true,
    );
    // The access log line, built by hand, is made readable too.
    expect(shown.some((l) => readable('INFO', 'request').test(l))).toBe(true);
    expect(
      shown.some((l) => readable('INFO', 'stopped').test(l)),
      s.out(),
    ).toBe(true);
    expect(shown.filter((l) => json(l) !== null)).toEqual([]);
  });

  it('is JSON lines when standard output is a pipe', async () => {
    const s = await onPipe({});
    expect(await s.stop(), s.out()).toBe(0);
    const shown = lines(s.out());
    expect(shown.filter((l) => json(l) === null)).toEqual([]);
    const parsed = shown.map((l) => json(l)!);
    expect(parsed.find((l) => String(l.msg).startsWith('vss listening on'))).toMatchObject({ level: 30 });
    expect(parsed.find((l) => l.msg === 'request')).toMatchObject({ level: 30, url: '/health', status: 200 });
    expect(parsed.at(-1)).toMatchObject({ level: 30, msg: 'stopped' });
  });

  it('is JSON on a terminal with LOG_FORMAT=json', async () => {
    const s = await onTerminal({ LOG_FORMAT: 'json' });
    expect(await s.stop(), s.out()).toBe(0);
    const shown = lines(s.out());
    expect(shown.filter((l) => json(l) === null)).toEqual([]);
    expect(shown.some((l) => String(json(l)!.msg).startsWith('vss listening on'))).toBe(true);
  });

  it('is readable lines, without colour codes, into a pipe with LOG_FORMAT=pretty', async () => {
    const s = await onPipe({ LOG_FORMAT: 'pretty' });
    expect(await s.stop(), s.out()).toBe(0);
    // Colours are for terminals: in a file they would be escape codes.
    expect(s.out()).not.toContain('\u001b[');
    const shown = lines(s.out());
    expect(shown.some((l) => readable('INFO', 'vss listening on').test(l))).toBe(true);
    expect(shown.some((l) => readable('INFO', 'stopped').test(l))).toBe(true);
    expect(shown.filter((l) => json(l) !== null)).toEqual([]);
  });

  it('leaves out the info lines with LOG_LEVEL=warn', async () => {
    const s = await onPipe({ LOG_LEVEL: 'warn' });
    expect(await s.stop(), s.out()).toBe(0);
    const shown = lines(s.out());
    expect(shown.filter((l) => json(l) === null)).toEqual([]);
    expect(shown.filter((l) => Number(json(l)!.level) < 40)).toEqual([]);
    expect(s.out()).not.toContain('vss listening on');
    expect(s.out()).not.toContain('request');
  });
});
