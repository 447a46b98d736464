import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StorageWatch } from '../db/storage-watch.js';
import { ApiError } from './errors.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses every write with 500 `SERVER_ERROR` while storage cannot be trusted (its files were
 * removed or replaced): accepting it would lose it at the next start. Only routes of writing
 * methods get the hook, so reads pay nothing for it.
 */
export function installStorageGuard(app: FastifyInstance, storage: StorageWatch): void {
  const guard = (_request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const problem = storage.problem();
    done(problem ? new ApiError(500, 'SERVER_ERROR', `${problem}; nothing was written`) : undefined);
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => WRITES.has(m.toUpperCase()))) return;
    const existing = route.onRequest
      ? Array.isArray(route.onRequest)
        ? route.onRequest
        : [route.onRequest]
      : [];
    route.onRequest = [guard, ...existing];
  });
}
