/**
 * `npm run bench -- api --sustained [--rounds=N] [--seconds=N] [--connections=N]`: whether the
 * server's rate holds under sustained load. One server as shipped and the bare baseline; after a
 * 5 s warm-up, GET /v1/projects/{p}/sessions/{s} (API key) saturated in N rounds (default 3) of N
 * seconds (default 60), each round bare then real, back to back, so that the noise of a shared
 * machine hits both alike. Target: the real server's last round within 10% of its first, by its
 * ratio to the bare round beside it (and by req/s).
 */
import { loadavg } from 'node:os';
import { API_ENV, bootstrap, routeLoad } from './api-load.ts';
import { intFlag } from './args.ts';
import { runLoad } from './load.ts';
import { startTsServer, startVss, stopAll } from './server.ts';
import { fmt, mib, printTable, round } from './table.ts';

export async function sustained(args: string[]): Promise<void> {
  const rounds = intFlag(args, 'rounds') ?? 3;
  const seconds = intFlag(args, 'seconds') ?? 60;
  const connections = intFlag(args, 'connections') ?? 10;
  const real = await startVss(API_ENV, 'vss');
  const boot = await bootstrap(real.url);
  const bare = await startTsServer('bench/bare-server.ts', { BARE_GET_BODY: boot.getBody }, 'bare');
  const load = (url: string, durationS: number) => routeLoad(url, boot, 'get', connections, durationS);
  console.log(
    `api --sustained: ${rounds} rounds × ${seconds} s, GET, ${connections} connections, bare then real; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  await runLoad(load(bare.url, 5));
  await runLoad(load(real.url, 5));
  const rows: Array<{ bare: number; real: number; p99: number; rssMib: number; load1: number }> = [];
  for (let r = 1; r <= rounds; r++) {
    const b = await runLoad(load(bare.url, seconds));
    const v = await runLoad(load(real.url, seconds));
    real.assertAlive();
    const rssMib = mib(real.sampler.sample()?.rssBytes ?? NaN);
    const row = { bare: b.rps, real: v.rps, p99: v.p99, rssMib, load1: loadavg()[0]! };
    rows.push(row);
    console.log(
      `  round ${r}/${rounds}: real ${fmt(v.rps)} req/s (p99 ${fmt(v.p99, 2)} ms), bare ${fmt(b.rps)}, ` +
        `÷ bare ${fmt(v.rps / b.rps, 3)}, real RSS ${fmt(rssMib, 1)} MiB, load average ${row.load1.toFixed(2)}`,
    );
  }
  await stopAll();
  printTable(
    ['round', 'real req/s', 'p99 ms', 'bare req/s', '÷ bare', 'real RSS MiB', 'load avg (1 min)'],
    rows.map((x, i) => [
      i + 1,
      Math.round(x.real),
      fmt(x.p99, 2),
      Math.round(x.bare),
      fmt(x.real / x.bare, 3),
      fmt(x.rssMib, 1),
      x.load1.toFixed(2),
    ]),
    `Sustained GET: ${rounds} rounds of ${seconds} s, bare then real in each`,
  );
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const byRatio = last.real / last.bare / (first.real / first.bare);
  const byRate = last.real / first.real;
  const met = byRatio >= 0.9 && byRatio <= 1.1;
  console.log(
    `target (last round within 10% of the first, by the ratio to bare): ${met ? 'MET' : 'NOT MET'} ` +
      `(last ÷ first: ${fmt(byRatio, 3)} by ratio, ${fmt(byRate, 3)} by req/s)`,
  );
  console.log(
    JSON.stringify({
      bench: 'api',
      mode: 'sustained',
      rounds,
      round_s: seconds,
      connections,
      per_round: rows.map((x) => ({
        real_rps: Math.round(x.real),
        real_p99_ms: round(x.p99),
        bare_rps: Math.round(x.bare),
        ratio: round(x.real / x.bare, 3),
        real_rss_mib: round(x.rssMib, 1),
      })),
      last_over_first_by_ratio: round(byRatio, 3),
      last_over_first_by_rps: round(byRate, 3),
      targets_met: met,
    }),
  );
}
