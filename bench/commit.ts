/**
 * commit: what a durable create costs on this machine, and what vss's create costs beside it.
 *
 *   npm run bench -- commit [--quick]
 *
 * Four processes, each saturated in interleaved rounds with `POST /v1/sessions {"name":"bench"}`
 * over 10 connections:
 *   bare          bench/bare-server.ts: Fastify answering a similar body, nothing stored
 *   floor, each   bench/commit-server.ts: Fastify with the route's schemas and better-sqlite3 alone,
 *                 a transaction and a commit per create (WAL, synchronous=NORMAL)
 *   floor, shared the same, the creates gathered in one turn of the event loop sharing a commit
 *   vss           the real server as `npm start` runs it (rate limits raised)
 * It shows how much of a create is the commit itself, and so what ratio to the bare route a
 * durable create can reach at all. Prints a table, then one JSON line of the figures.
 */
import type { BenchOptions } from './run.ts';
import { median, runLoad, type LoadOptions } from './lib/load.ts';
import { startTsServer, startVss, stopAll, type ServerProcess } from './lib/server.ts';
import { fmt, printTable, round } from './lib/table.ts';
import { benchTenant } from './lib/tenant.ts';

const HIGH = '100000000';

export default async function commit({ quick }: BenchOptions): Promise<void> {
  const rounds = quick ? 2 : 5;
  const roundS = quick ? 3 : 6;
  try {
    const vss = await startVss({ RATE_LIMIT_PER_KEY: HIGH, RATE_LIMIT_PER_IP: HIGH }, 'vss');
    const tenant = await benchTenant(vss.url, 'commit');
    const sides: Array<{ name: string; server: ServerProcess; headers: Record<string, string> }> = [
      { name: 'bare', server: await startTsServer('bench/bare-server.ts', {}, 'bare'), headers: {} },
      {
        name: 'floor, a commit each',
        server: await startTsServer('bench/commit-server.ts', { COMMIT: 'each' }, 'floor-each'),
        headers: {},
      },
      {
        name: 'floor, shared commits',
        server: await startTsServer('bench/commit-server.ts', { COMMIT: 'shared' }, 'floor-shared'),
        headers: {},
      },
      { name: 'vss as shipped', server: vss, headers: tenant.auth },
    ];
    const load = (side: (typeof sides)[number], durationS: number): LoadOptions => ({
      url: `${side.server.url}/v1/sessions`,
      method: 'POST',
      headers: { ...side.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
      connections: 10,
      durationS,
      expectStatus: 201,
    });
    for (const side of sides) await runLoad(load(side, 2));
    const seen = sides.map(() => ({ rps: [] as number[], us: [] as number[], p99: [] as number[] }));
    for (let r = 1; r <= rounds; r++) {
      for (const [i, side] of sides.entries()) {
        const mark = side.server.sampler.mark();
        const result = await runLoad(load(side, roundS));
        side.server.assertAlive();
        if (result.failures > 0) throw new Error(`${side.name}: ${JSON.stringify(result.statusCounts)}`);
        seen[i]!.rps.push(result.rps);
        seen[i]!.p99.push(result.p99);
        seen[i]!.us.push((side.server.sampler.cpuSince(mark) / result.requests) * 1e6);
        console.log(`  round ${r}/${rounds} ${side.name}: ${fmt(result.rps)} req/s`);
      }
    }
    const bareRps = median(seen[0]!.rps);
    const rows = sides.map((side, i) => [
      side.name,
      Math.round(median(seen[i]!.rps)),
      fmt(median(seen[i]!.p99), 2),
      Math.round(median(seen[i]!.us)),
      i === 0 ? '' : fmt(median(seen[i]!.rps) / bareRps, 3),
    ]);
    printTable(
      ['POST /v1/sessions', 'req/s (median)', 'p99 ms', 'CPU µs/req', '÷ bare'],
      rows,
      `10 connections, median of ${rounds} interleaved rounds of ${roundS} s`,
    );
    const figures = Object.fromEntries(
      sides.map((side, i) => [
        side.name,
        {
          rps: Math.round(median(seen[i]!.rps)),
          p99_ms: round(median(seen[i]!.p99)),
          cpu_us_per_req: Math.round(median(seen[i]!.us)),
          ratio: round(median(seen[i]!.rps) / bareRps, 3),
        },
      ]),
    );
    await stopAll();
    console.log(JSON.stringify({ bench: 'commit', quick, rounds, round_s: roundS, figures }));
  } finally {
    await stopAll();
  }
}
