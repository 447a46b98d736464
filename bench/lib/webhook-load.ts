/**
 * The webhook benchmark's two ends (bench/webhooks.ts): the receivers the server delivers to, the
 * events it is sent (sessions created through the API, at a rate or as fast as it takes them), the
 * baseline's signed POSTs straight to the receiver, and the latencies of what arrived.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { quantile } from './load.ts';
import type { ServerProcess } from './server.ts';

export interface Arrival {
  phase: string;
  latencyMs: number;
  at: number;
}

/** The receivers: one healthy (200 at once), one that never answers. */
export async function receivers() {
  const arrivals: Arrival[] = [];
  let deadHits = 0;
  const healthy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        timestamp: string;
        data: { name?: string };
      };
      arrivals.push({
        phase: String(body.data?.name ?? '').split(':')[0]!,
        latencyMs: at - Date.parse(body.timestamp),
        at,
      });
    });
  });
  const hanging: http.ServerResponse[] = [];
  const dead = http.createServer((req, res) => {
    deadHits++;
    req.resume();
    hanging.push(res);
  });
  await Promise.all([
    new Promise<void>((ok) => healthy.listen(0, '127.0.0.1', ok)),
    new Promise<void>((ok) => dead.listen(0, '127.0.0.1', ok)),
  ]);
  const port = (s: http.Server) => (s.address() as { port: number }).port;
  return {
    arrivals,
    deadHits: () => deadHits,
    healthyUrl: `http://127.0.0.1:${port(healthy)}`,
    deadUrl: `http://127.0.0.1:${port(dead)}`,
    async close() {
      for (const r of hanging) r.destroy();
      healthy.closeAllConnections();
      dead.closeAllConnections();
      await Promise.all([new Promise((ok) => healthy.close(ok)), new Promise((ok) => dead.close(ok))]);
    },
  };
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One POST with keep-alive; resolves with the status. */
function post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Creates `count` sessions, at `rate` per second (or as fast as `inFlight` allows when rate is 0). */
export async function events(
  server: ServerProcess,
  keys: string[],
  phase: string,
  count: number,
  rate: number,
  inFlight: number,
): Promise<{ startedAt: number; seconds: number }> {
  const startedAt = Date.now();
  const t0 = performance.now();
  let sent = 0;
  let running = 0;
  let failed = 0;
  await new Promise<void>((done) => {
    const pump = () => {
      const due =
        rate > 0 ? Math.min(count, Math.floor(((performance.now() - t0) / 1000) * rate) + 1) : count;
      while (sent < due && running < inFlight) {
        const i = sent++;
        running++;
        post(`${server.url}/v1/sessions`, JSON.stringify({ name: `${phase}:${i}` }), {
          authorization: `Bearer ${keys[i % keys.length]}`,
        })
          .then((status) => {
            if (status !== 201) failed++;
          })
          .catch(() => failed++)
          .finally(() => {
            running--;
            if (sent >= count && running === 0) done();
            else if (rate === 0) pump();
          });
      }
      if (sent < count && rate > 0) setTimeout(pump, 2);
    };
    pump();
  });
  if (failed) throw new Error(`${failed} of ${count} session creates failed in phase ${phase}`);
  return { startedAt, seconds: (performance.now() - t0) / 1000 };
}

export async function waitFor(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The baseline: signed POSTs straight to the receiver, no API, no database, no queue. */
export async function direct(url: string, count: number, inFlight: number): Promise<number> {
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const at = Date.now();
      const body = Buffer.from(
        JSON.stringify({
          id: `direct-${i}`,
          type: 'session.created',
          timestamp: new Date(at).toISOString(),
          project_id: 'p',
          session_id: 's',
          data: { name: `direct:${i}` },
        }),
      );
      const sig = createHmac('sha256', secret).update(body).digest('hex');
      await post(`${url}/direct`, body, { 'x-service-signature': sig, 'x-service-event-id': `direct-${i}` });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (performance.now() - t0) / 1000;
}

export function latencies(arrivals: Arrival[], phase: string) {
  const mine = arrivals.filter((a) => a.phase === phase);
  const sorted = Float64Array.from(mine.map((a) => a.latencyMs)).sort();
  return {
    n: mine.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? NaN,
    lastAt: Math.max(...mine.map((a) => a.at)),
  };
}
