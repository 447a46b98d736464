/**
 * floor: what the two hottest session routes cost at the least, beside the bare route and vss.
 *
 *   npm run bench -- floor [--quick]
 *
 * Processes, each saturated in interleaved rounds over 10 connections:
 *   bare    bench/bare-server.ts: Fastify answering the same bodies, nothing stored or read
 *   floor   bench/floor-server.ts: Fastify with the routes' schemas and better-sqlite3 alone (WAL,
 *           synchronous=NORMAL): the GET reads the row by a prepared statement; the POST inserts
 *           durably, with a commit each (`floor, a commit each`) or commits shared by the creates
 *           gathered in one turn of the event loop (`floor, shared commits`)
 *   vss     the real server as `npm start` runs it (LOG_LEVEL=info), rate limits raised
 * It shows how much of each route is the storage work itself, and so what ratio to the bare route
 * a server doing that work can reach at all on this machine. Prints a table, then one JSON line.
 */
import type { BenchOptions } from './run.ts';
import { expectCall } from './lib/http.ts';
import { median, runLoad, type LoadOptions } from './lib/load.ts';
import { startTsServer, startVss, stopAll, type ServerProcess } from './lib/server.ts';
import { fmt, printTable, round } from './lib/table.ts';
import { benchTenant } from './lib/tenant.ts';

const HIGH = '100000000';

interface Side {
  name: string;
  server: ServerProcess;
  headers: Record<string, string>;
  /** the GET path of one of its sessions; null: not measured on GET */
  getPath: string | null;
}

export default async function floor({ quick }: BenchOptions): Promise<void> {
  const rounds = quick ? 2 : 5;
  const roundS = quick ? 3 : 6;
  try {
    const vss = await startVss({ RATE_LIMIT_PER_KEY: HIGH, RATE_LIMIT_PER_IP: HIGH }, 'vss');
    const tenant = await benchTenant(vss.url, 'floor');
    const each = await startTsServer('bench/floor-server.ts', { COMMIT: 'each' }, 'floor-each');
    const shared = await startTsServer('bench/floor-server.ts', { COMMIT: 'shared' }, 'floor-shared');
    const made = await expectCall<{ data: { id: string; project_id: string } }>(
      201,
      `${shared.url}/v1/sessions`,
      {
        method: 'POST',
        json: { name: 'floor' },
      },
    );
    const floorGet = `/v1/projects/${made.json.data.project_id}/sessions/${made.json.data.id}`;
    const vssGet = `/v1/projects/${tenant.projectId}/sessions/${tenant.sessionId}`;
    const sides: Side[] = [
      {
        name: 'bare',
        server: await startTsServer('bench/bare-server.ts', {}, 'bare'),
        headers: {},
        getPath: vssGet,
      },
      { name: 'floor, a commit each', server: each, headers: {}, getPath: null },
      { name: 'floor, shared commits', server: shared, headers: {}, getPath: floorGet },
      { name: 'vss as shipped', server: vss, headers: tenant.auth, getPath: vssGet },
    ];
    const load = (side: Side, route: 'get' | 'post', durationS: number): LoadOptions =>
      route === 'get'
        ? {
            url: side.server.url + side.getPath,
            headers: side.headers,
            connections: 10,
            durationS,
            expectStatus: 200,
          }
        : {
            url: `${side.server.url}/v1/sessions`,
            method: 'POST',
            headers: { ...side.headers, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'bench' }),
            connections: 10,
            durationS,
            expectStatus: 201,
          };
    const plan = (['get', 'post'] as const).flatMap((route) =>
      sides.filter((s) => route === 'post' || s.getPath !== null).map((side) => ({ route, side })),
    );
    for (const { route, side } of plan) await runLoad(load(side, route, 2));
    const seen = plan.map(() => ({ rps: [] as number[], us: [] as number[], p99: [] as number[] }));
    for (let r = 1; r <= rounds; r++) {
      for (const [i, { route, side }] of plan.entries()) {
        const mark = side.server.sampler.mark();
        const result = await runLoad(load(side, route, roundS));
        side.server.assertAlive();
        if (result.failures > 0)
          throw new Error(`${side.name} ${route}: ${JSON.stringify(result.statusCounts)}`);
        seen[i]!.rps.push(result.rps);
        seen[i]!.p99.push(result.p99);
        seen[i]!.us.push((side.server.sampler.cpuSince(mark) / result.requests) * 1e6);
        console.log(`  round ${r}/${rounds} ${route.toUpperCase()} ${side.name}: ${fmt(result.rps)} req/s`);
      }
    }
    const bare = (route: 'get' | 'post') => median(seen[plan.findIndex((p) => p.route === route)]!.rps);
    const label = (route: 'get' | 'post') => (route === 'get' ? 'GET a session' : 'POST /v1/sessions');
    // A read commits nothing: on the GET the floor is just the floor.
    const serverName = (route: 'get' | 'post', side: Side) =>
      route === 'get' && side.server === shared ? 'floor' : side.name;
    printTable(
      ['route', 'server', 'req/s (median)', 'p99 ms', 'CPU µs/req', '÷ bare'],
      plan.map(({ route, side }, i) => [
        label(route),
        serverName(route, side),
        Math.round(median(seen[i]!.rps)),
        fmt(median(seen[i]!.p99), 2),
        Math.round(median(seen[i]!.us)),
        side.name === 'bare' ? '' : fmt(median(seen[i]!.rps) / bare(route), 3),
      ]),
      `10 connections, median of ${rounds} interleaved rounds of ${roundS} s`,
    );
    const figures = plan.map(({ route, side }, i) => ({
      route,
      server: serverName(route, side),
      rps: Math.round(median(seen[i]!.rps)),
      p99_ms: round(median(seen[i]!.p99)),
      cpu_us_per_req: Math.round(median(seen[i]!.us)),
      ratio: round(median(seen[i]!.rps) / bare(route), 3),
    }));
    await stopAll();
    console.log(JSON.stringify({ bench: 'floor', quick, rounds, round_s: roundS, figures }));
  } finally {
    await stopAll();
  }
}
