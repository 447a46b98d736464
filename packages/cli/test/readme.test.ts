import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  httpTenant,
  runServer,
  waitForHttp,
  type Proc,
} from '../../server/test/support/process.js';
import { findFfmpeg } from '../src/bot/ffmpeg.js';

const ROOT = resolve(__dirname, '../../..');

/** The README's command-line walkthrough: `$ command` lines, each followed by what it prints. */
function walkthrough(): Array<{ command: string; expected: string[] }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const part = readme.slice(
    readme.indexOf('### The command line'),
    readme.indexOf('### First steps with curl'),
  );
  const block = /```console\n([\s\S]*?)```/.exec(part);
  if (!block) throw new Error('README: the command-line walkthrough moved');
  const steps: Array<{ command: string; expected: string[] }> = [];
  for (const line of block[1]!.trimEnd().split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
    else steps.at(-1)!.expected.push(line);
  }
  return steps;
}

/** A shown line as a pattern: `…` stands for any text within the line. */
function linePattern(shown: string): RegExp {
  const parts = shown.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*?')}$`);
}

let ffmpeg = true;
try {
  findFfmpeg(process.env);
} catch {
  ffmpeg = false;
  console.error(
    '[vss] the README command-line walkthrough is skipped: no ffmpeg (vss bot and export need it).',
  );
}

describe.skipIf(!ffmpeg)('the README command-line walkthrough', () => {
  let server: Proc;
  let base: string;
  let port: number;
  let dataDir: string;
  let work: string;
  let home: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vss-readme-cli-data-'));
    home = mkdtempSync(join(tmpdir(), 'vss-readme-cli-home-'));
    // Inside the repository, so that `npx vss` finds the repository's vss, as it does from its folder.
    work = mkdtempSync(join(ROOT, '.readme-'));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // As `npm start` runs it; only the departure timeout is shortened (20 s) to keep the test short.
    server = runServer({ PORT: String(port), DATA_DIR: dataDir, SESSION_DEPARTURE_TIMEOUT_S: '3' });
    await waitForHttp(`${base}/health`, 90_000);
  }, 120_000);

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    for (const dir of [dataDir, work, home]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs each command as written and prints what the README shows', async () => {
    const steps = walkthrough();
    expect(steps.length).toBeGreaterThanOrEqual(5);
    const { key } = await httpTenant(base);
    // One shell, so that SESSION carries over; a marker after each command splits the output.
    const script = steps
      .map((s, i) => `${s.command.replace('sk_live_…', key)}\necho "@@step ${i} exit $?"`)
      .join('\n');
    const out = await new Promise<string>((ok) => {
      const child = spawn('bash', ['-c', `exec 2>&1\n${script}`], {
        cwd: work,
        // The README's server is http://localhost:8080; this one listens elsewhere.
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          NPM_CONFIG_UPDATE_NOTIFIER: 'false',
          VSS_BASE_URL: `http://localhost:${port}`,
        },
      });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.on('exit', () => ok(text));
    });
    const shown = out
      .split('\n')
      // npm's own notices about this machine's configuration are not vss's output.
      .filter((l) => !/^npm (warn|notice)/.test(l))
      .map((l) =>
        l.replaceAll(`localhost:${port}`, 'localhost:8080').replaceAll(`127.0.0.1:${port}`, '127.0.0.1:8080'),
      )
      .join('\n');
    const outputs = shown.split(/^@@step (\d+) exit (\d+)$/m);
    steps.forEach((step, i) => {
      const [printed, index, code] = [outputs[i * 3]!, outputs[i * 3 + 1], outputs[i * 3 + 2]];
      expect(index, shown).toBe(String(i));
      expect(code, `${step.command}\n${printed}`).toBe('0');
      const lines = printed
        .replace(/^\n/, '')
        .replace(/\n$/, '')
        .split('\n')
        .filter((l, n, a) => l || a.length > 1);
      expect(lines.length, `${step.command}\n${printed}`).toBe(step.expected.length);
      step.expected.forEach((e, n) => expect(lines[n], step.command).toMatch(linePattern(e)));
    });
    // The MP4 the walkthrough wrote.
    expect(readFileSync(join(work, 'demo.mp4')).subarray(4, 8).toString('latin1')).toBe('ftyp');
  }, 120_000);
});
