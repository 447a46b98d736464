import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Headers a web page on another site may read from a public answer (paging and rate limits). */
const EXPOSED = 'Link, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';
/** What the OpenAPI description of each such route says. */
const CORS_NOTE =
  'Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.';
/** How long a browser may keep a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 86_400;

/**
 * CORS for the public, credential-free routes (a route with `config.cors: true`): any origin may
 * read them, never with credentials (no `Access-Control-Allow-Credentials`), so a web player on
 * another site can show public sessions and replay links. Every other route sends no CORS
 * header, and a preflight to it finds no OPTIONS route (404 or 405, no allow headers): a browser
 * on another site can neither call a credentialed route with the user's cookie nor read it.
 *
 * Why not @fastify/cors: its preflight is one wildcard OPTIONS route for every path, which would
 * need our own per-path matching to stay off the credentialed routes; here each public route
 * gets its own OPTIONS twin at registration, and nothing is decided per request.
 */
export function installPublicCors(app: FastifyInstance): void {
  const allowOrigin = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED);
    done();
  };
  const twins = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (route.config?.cors !== true || route.method === 'OPTIONS') return;
    const existing = route.onRequest
      ? Array.isArray(route.onRequest)
        ? route.onRequest
        : [route.onRequest]
      : [];
    route.onRequest = [allowOrigin, ...existing];
    if (route.schema) route.schema.description = `${route.schema.description ?? ''} ${CORS_NOTE}`.trim();
    if (twins.has(route.url)) return;
    twins.add(route.url);
    app.options(
      route.url,
      { config: { auth: 'public', rateLimit: false }, schema: { hide: true } },
      async (request, reply) => {
        const asked = request.headers['access-control-request-headers'];
        reply
          .code(204)
          .header('access-control-allow-origin', '*')
          .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
          .header('access-control-max-age', PREFLIGHT_MAX_AGE_S);
        if (typeof asked === 'string' && asked) reply.header('access-control-allow-headers', asked);
        return reply.send();
      },
    );
  });
}
