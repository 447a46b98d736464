import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../../db/open.js';
import type { StorageWatch } from '../../db/storage-watch.js';

/** What the health routes need. */
export interface HealthRoutesOptions {
  database: Pick<Database, 'ping'>;
  storage: StorageWatch;
}

/** GET /health: plain text, 200 `ok` only while storage is intact and the database answers. */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, deps) => {
  app.get(
    '/health',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['Health'],
        summary: 'Liveness and database reachability',
        description:
          'Plain text, not the envelope: `ok` with 200, or 503 with a short reason while the database does not answer, or while the data directory (or, on the embedded default, a database file in it) was removed or replaced under the running server. In that last case every write is refused with 500 `SERVER_ERROR` and live publishes get an error instead of an acknowledgement, until the server is restarted on intact storage: what it would accept could not survive a restart.',
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      reply.type('text/plain; charset=utf-8');
      const problem = deps.storage.problem();
      if (problem) {
        reply.code(503);
        return problem;
      }
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
