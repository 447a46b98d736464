import type { FastifyPluginAsync } from 'fastify';
import type { RouteDeps } from '../deps.js';

/** GET /health: plain text, 200 `ok` only while the database answers (decisions §0). */
export const healthRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.get(
    '/health',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['Health'],
        summary: 'Liveness and database reachability',
        description:
          'Plain text, not the envelope: `ok` with 200, or 503 with a short reason while the database does not answer.',
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      reply.type('text/plain; charset=utf-8');
      try {
        await Promise.race([
          deps.database.ping(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
        ]);
        return 'ok';
      } catch {
        reply.code(503);
        return 'database unavailable';
      }
    },
  );
};
