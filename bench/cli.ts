/**
 * npm run bench -- cli [--quick]
 *
 * What the typed client and the command line cost over the bare minimum, against the server
 * started as `npm start` starts it:
 * - one `vss` command, timed as a shell runs it (process start to exit), beside the floor of any
 *   Node command line: `node -e` doing nothing, and `node -e` making the same request with a bare
 *   `fetch`;
 * - calls made in one process, one after another, through `VssClient` (openapi-fetch, the
 *   envelope unwrapped, retries armed) beside the same requests with a bare `fetch`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VssClient } from '@vss/client';
import type { BenchOptions } from './run.ts';
import { quantile } from './lib/load.ts';
import { ROOT, startVss } from './lib/server.ts';
import { fmt, printTable, round } from './lib/table.ts';
import { benchTenant } from './lib/tenant.ts';

const VSS = join(ROOT, 'packages/cli/bin/vss.js');

/** Milliseconds from spawning `node args…` to its exit; throws unless it exits 0. */
function timed(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((ok, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'pipe',
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.resume();
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) ok(ms);
      else fail(new Error(`node ${args.join(' ')} exited ${code}: ${err}`));
    });
  });
}

interface Stats {
  p50: number;
  p90: number;
}

async function repeat(runs: number, one: () => Promise<number>): Promise<Stats> {
  await one(); // warm the file cache
  const ms: number[] = [];
  for (let i = 0; i < runs; i += 1) ms.push(await one());
  ms.sort((a, b) => a - b);
  return { p50: quantile(ms, 0.5), p90: quantile(ms, 0.9) };
}

/** Calls per second of `call`, one after another, for `seconds`. */
async function rate(seconds: number, call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i += 1) await call(); // warm-up: JIT, keep-alive connection
  let n = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  while (performance.now() < until) {
    await call();
    n += 1;
  }
  return n / ((performance.now() - started) / 1000);
}

export default async function cli({ quick }: BenchOptions): Promise<void> {
  const runs = quick ? 10 : 40;
  const seconds = quick ? 3 : 10;
  // Changed for the measurement: the per-key rate limit (1,200 a minute) is raised, or the loop
  // below would measure 429s.
  const vss = await startVss({ RATE_LIMIT_PER_KEY: '100000000' });
  const config = mkdtempSync(join(tmpdir(), 'vss-bench-cli-'));
  try {
    const tenant = await benchTenant(vss.url, 'cli');
    const env = {
      VSS_BASE_URL: vss.url,
      VSS_API_KEY: tenant.secret,
      VSS_CONFIG: join(config, 'config.json'),
    };
    const url = `${vss.url}/v1/sessions/${tenant.sessionId}`;
    const bareFetch = `const r = await fetch(${JSON.stringify(url)}, { headers: { authorization: 'Bearer ${tenant.secret}' } }); if (!r.ok) process.exit(1); process.stdout.write(JSON.stringify((await r.json()).data));`;

    const nodeOnly = await repeat(runs, () => timed(['-e', ''], env));
    const version = await repeat(runs, () => timed([VSS, '--version'], env));
    const fetchOnce = await repeat(runs, () => timed(['--input-type=module', '-e', bareFetch], env));
    const get = await repeat(runs, () => timed([VSS, '--json', 'sessions', 'get', tenant.sessionId], env));
    printTable(
      ['command', 'p50 ms', 'p90 ms', 'floor', 'p50 ratio'],
      [
        ['node -e "" (the floor of any Node command)', fmt(nodeOnly.p50, 1), fmt(nodeOnly.p90, 1), '', ''],
        [
          'vss --version',
          fmt(version.p50, 1),
          fmt(version.p90, 1),
          'node -e ""',
          round(version.p50 / nodeOnly.p50),
        ],
        ['node -e "await fetch(GET session)"', fmt(fetchOnce.p50, 1), fmt(fetchOnce.p90, 1), '', ''],
        [
          'vss --json sessions get <id>',
          fmt(get.p50, 1),
          fmt(get.p90, 1),
          'node -e fetch',
          round(get.p50 / fetchOnce.p50),
        ],
      ],
      `One command, process start to exit (${runs} runs each, after one warm-up)`,
    );

    const client = new VssClient({ baseUrl: vss.url, apiKey: tenant.secret });
    const typed = await rate(seconds, () =>
      client.get('/v1/sessions/{sessionId}', { params: { path: { sessionId: tenant.sessionId } } }),
    );
    const bare = await rate(seconds, async () => {
      const r = await fetch(url, { headers: tenant.auth });
      if (!r.ok) throw new Error(`GET session: ${r.status}`);
      return ((await r.json()) as { data: unknown }).data;
    });
    printTable(
      ['client, one call after another', 'calls/s', 'ratio'],
      [
        ['bare fetch + JSON.parse', fmt(bare, 0), ''],
        ['VssClient.get (typed, unwrapped, retries armed)', fmt(typed, 0), round(typed / bare)],
      ],
      `GET a session in one process for ${seconds} s each (the server as npm start runs it, one access-log line per call; RATE_LIMIT_PER_KEY raised)`,
    );
  } finally {
    rmSync(config, { recursive: true, force: true });
    await vss.stop();
  }
}
