import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Metrics } from '../lib/metrics.js';

/** The route label of a request no route matched: its path is not a label value (it is unbounded). */
const UNMATCHED = '(unmatched)';

type OnResponse = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * One observation per answered request in `vss_http_request_duration_seconds`, labelled with the
 * route's template (`/v1/sessions/:sessionId`, never the path with its ids), the method and the
 * status. Only installed when metrics are kept: without them requests pay nothing. Each route gets
 * a hook of its own that knows its template: `request.routeOptions`, the public way to read it in a
 * shared hook, builds and freezes a new object on every read. Requests no route matched are counted
 * by one shared hook, which looks only at `request.is404`. Must run before any route is added.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const histogram = metrics.httpRequest;
  const observer = (route: string): OnResponse => {
    const cellOf = histogram.route(route);
    return (request, reply, done) => {
      histogram.observe(cellOf(request.method, reply.statusCode), reply.elapsedTime / 1000);
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    const hook = observer(route.url);
    const existing = route.onResponse;
    route.onResponse = existing ? [...(Array.isArray(existing) ? existing : [existing]), hook] : [hook];
  });
  const unmatched = observer(UNMATCHED);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request, reply, done);
    else done();
  });
}
