import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../lib/metrics.js';

/** The route label of a request no route matched: its path is not a label value (it is unbounded). */
const UNMATCHED = '(unmatched)';

/**
 * One observation per answered request in `vss_http_request_duration_seconds`, labelled with the
 * route's template (`/v1/sessions/:sessionId`, never the path with its ids), the method and the
 * status. Only installed when metrics are kept: without them requests pay nothing.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const histogram = metrics.httpRequest;
  app.addHook('onResponse', (request, reply, done) => {
    histogram.observe(
      {
        route: request.routeOptions.url ?? UNMATCHED,
        method: request.method,
        status: reply.statusCode,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
