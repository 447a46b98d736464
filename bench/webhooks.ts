/**
 * webhooks: from a change to the receiver, through the outbox, the job queue and a signed POST.
 *
 *   npm run bench -- webhooks [--quick] [--cpu-prof=DIR]
 *
 * The compiled server (SQLite, its default) with 20 projects, one API key and one webhook each
 * (`session.created`), all pointing at one healthy receiver in this process (a path per hook, 200
 * at once). Events are sessions created through the API, round-robin over the 20 keys, so each
 * event is delivered to one hook. Phases of 10,000 deliveries (--quick: 2,000):
 *   paced     events at 1,000/s (--quick: 500/s); latency = arrival at the receiver − the event's
 *             `timestamp` (the session's created_at), one clock
 *   dead      the same, with a second webhook in every project that never answers (20 receivers
 *             that always time out, `WEBHOOK_TIMEOUT_MS` 5 s): the healthy hooks' latency again
 *   capacity  500 events (--quick: 100) as fast as the API takes them, in a 21st project whose
 *             20 webhooks all subscribe, so 10,000 deliveries: deliveries/s from the first event
 *             to the last delivery (one event to many hooks keeps the API's share of the work
 *             small, so this measures delivery)
 * Baseline for capacity: this process POSTing the same number of signed bodies straight to the
 * same receiver with keep-alive and 256 in flight (no API, no database, no queue): the HTTP
 * limit of this machine. `ratio` = vss capacity ÷ baseline.
 * Targets (issue): p99 event-to-delivery < 250 ms with healthy receivers; 1,000 deliveries/s;
 * a receiver that always times out does not delay the others.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig } from '@vss/server/tools';
import type { BenchOptions } from './run.ts';
import { strFlag } from './lib/args.ts';
import { expectCall } from './lib/http.ts';
import { waitForQuiet } from './lib/machine.ts';
import { startProcess, vssArgs } from './lib/server.ts';
import { fmt, mib, printTable, round } from './lib/table.ts';
import { agent, direct, events, latencies, receivers, waitFor } from './lib/webhook-load.ts';

const HOOKS = 20;
/** How long the server waits for a receiver's answer (WEBHOOK_TIMEOUT_MS, its default). */
const TIMEOUT_S = loadConfig({}).webhookTimeoutMs / 1000;

export default async function webhooks(options: BenchOptions): Promise<void> {
  const count = options.quick ? 2000 : 10_000;
  const rate = options.quick ? 500 : 1000;
  const started = Date.now();
  const rx = await receivers();
  const profDir = strFlag(options.args, 'cpu-prof');
  const server = await startProcess({
    name: 'vss',
    command: process.execPath,
    args: [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profDir)}`] : []), ...vssArgs()],
    dataDir: true,
    env: {
      DATABASE_URL: '',
      REDIS_URL: '',
      PUBLIC_BASE_URL: '',
      SECRET_KEY: '',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_PER_KEY: '100000000',
      RATE_LIMIT_PER_IP: '100000000',
    },
  });
  try {
    // An account, 20 projects with a key and a healthy webhook each, and a paused dead one.
    const reg = await expectCall<{ data: { project_id: string } }>(201, `${server.url}/v1/auth/register`, {
      method: 'POST',
      json: { email: `bench-${Date.now()}@example.com`, password: 'bench password 1' },
    });
    const cookie = reg.headers.get('set-cookie')!.split(';')[0]!;
    const keys: string[] = [];
    const deadHooks: Array<{ id: string; key: string }> = [];
    for (let i = 0; i < HOOKS; i++) {
      const projectId =
        i === 0
          ? reg.json.data.project_id
          : (
              await expectCall<{ data: { id: string } }>(201, `${server.url}/v1/projects`, {
                method: 'POST',
                headers: { cookie },
                json: { name: `bench ${i}` },
              })
            ).json.data.id;
      const key = (
        await expectCall<{ data: { secret: string } }>(
          201,
          `${server.url}/v1/projects/${projectId}/api-keys`,
          {
            method: 'POST',
            headers: { cookie },
            json: {},
          },
        )
      ).json.data.secret;
      keys.push(key);
      const auth = { authorization: `Bearer ${key}` };
      await expectCall(201, `${server.url}/v1/webhooks`, {
        method: 'POST',
        headers: auth,
        json: { url: `${rx.healthyUrl}/p${i}`, events: ['session.created'] },
      });
      const dead = await expectCall<{ data: { id: string } }>(201, `${server.url}/v1/webhooks`, {
        method: 'POST',
        headers: auth,
        json: { url: `${rx.deadUrl}/p${i}`, events: ['session.created'], is_active: false },
      });
      deadHooks.push({ id: dead.json.data.id, key });
    }
    // The capacity project: 20 webhooks on one project, each event goes to all of them.
    const fan = await expectCall<{ data: { id: string } }>(201, `${server.url}/v1/projects`, {
      method: 'POST',
      headers: { cookie },
      json: { name: 'bench fan-out' },
    });
    const fanKey = (
      await expectCall<{ data: { secret: string } }>(
        201,
        `${server.url}/v1/projects/${fan.json.data.id}/api-keys`,
        {
          method: 'POST',
          headers: { cookie },
          json: {},
        },
      )
    ).json.data.secret;
    for (let i = 0; i < HOOKS; i++)
      await expectCall(201, `${server.url}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fanKey}` },
        json: { url: `${rx.healthyUrl}/f${i}`, events: ['session.created'] },
      });
    const setDead = async (active: boolean) => {
      for (const h of deadHooks)
        await expectCall(200, `${server.url}/v1/webhooks/${h.id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${h.key}` },
          json: { is_active: active },
        });
    };

    // Warm-up: JIT, connections, statement caches.
    await events(server, keys, 'warmup', 500, 0, 16);
    await waitFor(
      'warm-up deliveries',
      () => rx.arrivals.filter((a) => a.phase === 'warmup').length >= 500,
      60_000,
    );

    const rows: Array<Array<string | number>> = [];
    const figures: Record<
      string,
      ReturnType<typeof latencies> & { sendS: number; deliveredPerS: number; cpuS: number }
    > = {};
    const phase = async (name: string, eventsPerS: number, inFlight: number, fanOut = false) => {
      // The machine is shared: wait (up to 60 s) for other work to calm down, and say how busy it was.
      const otherCores = await waitForQuiet(0.5, 60_000);
      const cpu0 = server.sampler.mark();
      const load = loadavg()[0]!;
      const sent = fanOut
        ? await events(server, [fanKey], name, count / HOOKS, eventsPerS, inFlight)
        : await events(server, keys, name, count, eventsPerS, inFlight);
      await waitFor(
        `${name} deliveries`,
        () => rx.arrivals.filter((a) => a.phase === name).length >= count,
        180_000,
      );
      const l = latencies(rx.arrivals, name);
      const span = (l.lastAt - sent.startedAt) / 1000;
      const cpuS = server.sampler.cpuSince(cpu0);
      figures[name] = { ...l, sendS: sent.seconds, deliveredPerS: count / span, cpuS };
      rows.push([
        name,
        eventsPerS
          ? `${fmt(eventsPerS)}/s`
          : `max, ${fanOut ? `${count / HOOKS} × ${HOOKS} hooks` : inFlight}`,
        l.n,
        round((fanOut ? count / HOOKS : count) / sent.seconds, 0),
        round(count / span, 0),
        round(l.p50, 1),
        round(l.p99, 1),
        round(l.max, 1),
        round(cpuS / span, 2),
        round((cpuS * 1e6) / count, 0),
        round(otherCores, 2),
        round(load, 2),
      ]);
    };

    await phase('paced', rate, 64);
    await setDead(true);
    const deadBefore = rx.deadHits();
    await phase('dead', rate, 64);
    const deadAttempts = rx.deadHits() - deadBefore;
    await setDead(false);
    await phase('capacity', 0, 32, true);

    const baselineS = await direct(rx.healthyUrl, count, 256);
    const baselinePerS = count / baselineS;
    rows.push([
      'baseline (direct POSTs)',
      'max (256 in flight)',
      count,
      '',
      round(baselinePerS, 0),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);

    printTable(
      [
        'phase',
        'events offered',
        'delivered',
        'events/s',
        'deliveries/s',
        'p50 ms',
        'p99 ms',
        'max ms',
        'server cores',
        'server CPU µs/delivery',
        'other cores before',
        'load avg',
      ],
      rows,
      `webhooks: ${count} events over ${HOOKS} webhooks, SQLite`,
    );
    const paced = figures.paced!;
    const dead = figures.dead!;
    const capacity = figures.capacity!;
    console.log(
      `\nDead receivers: ${deadAttempts} attempts reached them during the dead phase (each held until the ${TIMEOUT_S} s timeout).`,
    );
    console.log(`Server peak RSS: ${fmt(mib(server.sampler.peakRssBytes))} MiB`);
    const met = {
      p99: paced.p99 < 250,
      throughput: capacity.deliveredPerS >= 1000,
      dead: dead.p99 < 250,
    };
    console.log(
      `Targets: p99 < 250 ms healthy: ${met.p99 ? 'met' : 'NOT met'} (${fmt(paced.p99)} ms); ` +
        `1,000 deliveries/s: ${met.throughput ? 'met' : 'NOT met'} (${fmt(capacity.deliveredPerS)}); ` +
        `dead receivers do not delay the others: ${met.dead ? 'met' : 'NOT met'} (p99 ${fmt(dead.p99)} ms)`,
    );
    console.log(
      JSON.stringify({
        bench: 'webhooks',
        events: count,
        hooks: HOOKS,
        paced_rate: rate,
        p50_ms: round(paced.p50, 1),
        p99_ms: round(paced.p99, 1),
        cpu_us_per_delivery: round((paced.cpuS * 1e6) / count, 0),
        dead_p99_ms: round(dead.p99, 1),
        dead_attempts: deadAttempts,
        deliveries_per_s: round(capacity.deliveredPerS, 0),
        capacity_p99_ms: round(capacity.p99, 1),
        baseline_per_s: round(baselinePerS, 0),
        ratio: round(capacity.deliveredPerS / baselinePerS, 3),
        peak_rss_mib: round(mib(server.sampler.peakRssBytes), 1),
        targets_met: met.p99 && met.throughput && met.dead,
        duration_s: Math.round((Date.now() - started) / 1000),
      }),
    );
  } finally {
    await server.stop();
    await rx.close();
    agent.destroy();
  }
}
