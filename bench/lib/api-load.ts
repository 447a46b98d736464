/**
 * bench/api.ts's server and loads, which bench/metrics.ts's API part repeats: the one change to
 * the server's defaults, the tenant and session bootstrapped through the real API, and the two
 * routes the benchmark saturates.
 */
import { expectCall } from './http.ts';
import type { LoadOptions } from './load.ts';
import { benchTenant } from './tenant.ts';

const HIGH = '100000000';
/** What this benchmark changes from the defaults for the real server: the rate limits, out of the way. */
export const API_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_PER_KEY: HIGH,
  RATE_LIMIT_PER_IP: HIGH,
};

export type Route = 'get' | 'post';

/** A tenant and its session through the real API, and the GET the benchmark repeats. */
export async function bootstrap(base: string) {
  const { projectId, sessionId, auth } = await benchTenant(base, 'api');
  const getPath = `/v1/projects/${projectId}/sessions/${sessionId}`;
  const got = await expectCall(200, base + getPath, { headers: auth });
  return { projectId, sessionId, auth, getPath, getBody: got.text };
}

export type ApiBoot = Awaited<ReturnType<typeof bootstrap>>;

/**
 * One of the two loads against the server at `url`:
 *   GET  /v1/projects/{projectId}/sessions/{sessionId}   (API key)
 *   POST /v1/sessions {"name":"bench"}                    (API key)
 */
export function routeLoad(
  url: string,
  boot: ApiBoot,
  route: Route,
  connections: number,
  durationS: number,
): LoadOptions {
  return route === 'get'
    ? { url: url + boot.getPath, headers: boot.auth, connections, durationS, expectStatus: 200 }
    : {
        url: `${url}/v1/sessions`,
        method: 'POST',
        headers: { ...boot.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench' }),
        connections,
        durationS,
        expectStatus: 201,
      };
}
