import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Metrics } from '../lib/metrics.js';
import type { RequestCell } from '../lib/request-histogram.js';

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
    // This route's series by method and status, found without building a key string.
    const cells = new Map<string, Map<number, RequestCell>>();
    return (request, reply, done) => {
      let byStatus = cells.get(request.method);
      if (!byStatus) cells.set(request.method, (byStatus = new Map()));
      const status = reply.statusCode;
      let cell = byStatus.get(status);
      if (!cell) byStatus.set(status, (cell = histogram.cell(route, request.method, status)));
      histogram.observe(cell, reply.elapsedTime / 1000);
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
