import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../../db/open.js';
import type { StorageWatch } from '../../db/storage-watch.js';
import { textDoc } from '../../http/openapi-docs.js';
import { within } from '../../lib/time.js';

/** What the health routes need. */
export interface HealthRoutesOptions {
  database: Pick<Database, 'ping'>;
  storage: StorageWatch;
  /** why this process cannot take work now, or null (the runtime's readiness) */
  unready: () => Promise<string | null>;
}

/** GET /health: plain text, 200 `ok` only while storage is intact and the database answers. */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, deps) => {
  app.get(
    '/health',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['Health'],
        operationId: 'getHealth',
        summary: 'Liveness and database reachability',
        description:
          'Plain text, not the envelope: `ok` with 200, or 503 with a short reason while the database does not answer, or while storage was removed or replaced under the running server (`storage unavailable: DATA_DIR/… was removed or replaced…`). Watched, by device and inode, at most a second late: `DATA_DIR` itself; on the embedded default its database files `vss.sqlite` and `streams.sqlite` and the `segments` folder of recorded media; and `secret.key` while the root secret is kept there (`SECRET_KEY` unset), since the next start needs it to recognize API keys. On PostgreSQL the metadata and recordings are not in `DATA_DIR`, so only the directory and the secret are watched (the directory also holds export files). While storage is unavailable every write (POST, PUT, PATCH, DELETE) is refused with 500 `SERVER_ERROR` and live publishes get an `error` instead of an `ack`, until the server is restarted on intact storage: what it would accept could not survive a restart. Reads keep answering.',
        docs: {
          responses: {
            200: textDoc('The service is up: storage is intact and the database answers.', {
              type: 'string',
              enum: ['ok'],
            }),
            503: textDoc(
              'Unavailable: `database unavailable`, or `storage unavailable: …` naming what was removed or replaced.',
            ),
          },
          // Failures of its own are plain text (503); only a request refused before any route
          // runs (not valid HTTP, headers too large, too slow) gets the envelope.
          envelopeErrors: ['4xx'],
        },
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
        await within(deps.database.ping(), 2000);
        return 'ok';
      } catch {
        reply.code(503);
        return 'database unavailable';
      }
    },
  );

  app.get(
    '/ready',
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['Health'],
        operationId: 'getReady',
        summary: 'Readiness: whether this process takes work',
        description:
          'Plain text, not the envelope, for a load balancer or an orchestrator deciding where to send traffic: `ready` with 200 only when this process can take work: it is not draining, its database answers, Redis answers when `REDIS_URL` is set, and `DATA_DIR` is intact and writable (a small file, `DATA_DIR/.ready`, is written). Otherwise 503 with the first reason found: `draining` (from the moment a SIGTERM or SIGINT arrives until the process exits; live participants are being sent to another server; after SIGTERM the port stays open, answering this, for at least DRAIN_GRACE_MS, 5 s by default), `database unavailable`, `redis unavailable`, `storage unavailable: …` or `storage not writable: …`. `/health` stays the liveness check: a draining process is alive, and is not restarted for it.',
        docs: {
          responses: {
            200: textDoc('This process takes work.', { type: 'string', enum: ['ready'] }),
            503: textDoc(
              'Not now: `draining`, `database unavailable`, `redis unavailable`, `storage unavailable: …` or `storage not writable: …`.',
            ),
          },
          envelopeErrors: ['4xx'],
        },
      },
    },
    async (_request, reply) => {
      reply.type('text/plain; charset=utf-8');
      const problem = await deps.unready();
      if (problem === null) return 'ready';
      reply.code(503);
      return problem;
    },
  );
};
