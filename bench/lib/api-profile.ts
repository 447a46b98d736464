/**
 * `npm run bench -- api --profile=get|post`: one real server under `node --cpu-prof`, saturated on
 * one of bench/api.ts's routes, and the functions that took the most of its CPU.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_ENV, bootstrap, type Route } from './api-load.ts';
import { intFlag } from './args.ts';
import { summarize, type FunctionCost } from './cpu-profile.ts';
import { runLoad, type LoadOptions } from './load.ts';
import { freePort, startVss } from './server.ts';
import { fmt, printTable } from './table.ts';

/**
 * `--profile=get|post [--seconds=N] [--log=LEVEL]`: instead of the comparison, one server as shipped
 * (or at LOG_LEVEL) under `node --cpu-prof`, saturated on the one route for N seconds (default 15)
 * after a 3 s warm-up that the profile also holds, then the functions that took the most samples.
 */
export async function profile(route: Route, args: string[]): Promise<void> {
  const seconds = intFlag(args, 'seconds') ?? 15;
  const level = args.find((a) => a.startsWith('--log='))?.slice('--log='.length);
  const dir = mkdtempSync(join(tmpdir(), 'vss-cpu-prof-'));
  try {
    const env: Record<string, string> = { ...API_ENV };
    if (level) env.LOG_LEVEL = level;
    // --metrics: with Prometheus metrics kept (METRICS_PORT set), to see what they cost per request.
    if (args.includes('--metrics')) env.METRICS_PORT = String(await freePort());
    const server = await startVss(env, 'vss', ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const boot = await bootstrap(server.url);
    const opts: LoadOptions =
      route === 'get'
        ? { url: server.url + boot.getPath, headers: boot.auth, connections: 10, durationS: seconds }
        : {
            url: `${server.url}/v1/sessions`,
            method: 'POST',
            headers: { ...boot.auth, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'bench' }),
            connections: 10,
            durationS: seconds,
          };
    await runLoad({ ...opts, durationS: 3 });
    const load = await runLoad(opts);
    await server.stop(15_000);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server wrote no CPU profile');
    const { samples, functions } = summarize(join(dir, file));
    console.log(
      `profile: ${route.toUpperCase()} at ${Math.round(load.rps)} req/s for ${seconds} s, LOG_LEVEL=${level ?? 'info (shipped)'}${env.METRICS_PORT ? ', METRICS_PORT set' : ''}, ` +
        `10 connections, node --cpu-prof (it slows the server); ${samples} samples`,
    );
    const row = (f: FunctionCost) => [fmt(f.selfPct, 2), fmt(f.totalPct, 2), f.name];
    printTable(['self %', 'total %', 'function'], functions.slice(0, 30).map(row), 'Heaviest self time');
    const ours = [...functions]
      .filter((f) => f.name.includes('packages/server/'))
      .sort((a, b) => b.totalPct - a.totalPct);
    printTable(
      ['self %', 'total %', 'function'],
      ours.slice(0, 25).map(row),
      "Server's own functions by total time",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
