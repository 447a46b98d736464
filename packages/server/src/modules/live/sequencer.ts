import { Redis } from 'ioredis';
import type { StreamStore } from '../../streams/store.js';

/**
 * Hands out each session's one sequence over all its streams, in arrival order.
 * In process, a counter seeded from the recording; across processes, a Redis counter seeded the
 * same way, so that seq stays unique per session whichever process accepts the message.
 */
export interface Sequencer {
  next(sessionId: string): Promise<number>;
  /** Forgets a session's counter in this process (after it ended, or was deleted). */
  forget(sessionId: string): void;
  close(): Promise<void>;
}

/** One process: a counter per session, seeded once from the store's highest seq. */
export function memorySequencer(store: StreamStore): Sequencer {
  const counters = new Map<string, Promise<{ value: number }>>();
  return {
    async next(sessionId) {
      let c = counters.get(sessionId);
      if (!c) {
        c = store.maxSeq(sessionId).then((value) => ({ value }));
        counters.set(sessionId, c);
      }
      const counter = await c;
      counter.value += 1;
      return counter.value;
    },
    forget: (sessionId) => void counters.delete(sessionId),
    close: async () => {},
  };
}

/** Several processes: INCR on `vss:seq:<session>`, seeded with SET NX from the store. */
export function redisSequencer(url: string, store: StreamStore): Sequencer {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  redis.on('error', () => {});
  const seeded = new Map<string, Promise<void>>();
  const highest = new Map<string, number>();
  const key = (sessionId: string) => `vss:seq:${sessionId}`;
  const seed = (sessionId: string, floor: number) =>
    store.maxSeq(sessionId).then(async (max) => {
      await redis.set(key(sessionId), String(Math.max(max, floor)), 'NX');
    });

  return {
    async next(sessionId) {
      let s = seeded.get(sessionId);
      if (!s) {
        s = seed(sessionId, 0);
        seeded.set(sessionId, s);
      }
      await s;
      let value = await redis.incr(key(sessionId));
      // Redis keeps nothing on disk here: after a Redis restart the counter starts again from 1.
      // Re-seed it from what this process and the store know, rather than reuse a seq.
      const known = highest.get(sessionId) ?? 0;
      if (value <= known) {
        await redis.set(key(sessionId), String(Math.max(known, await store.maxSeq(sessionId))));
        value = await redis.incr(key(sessionId));
      }
      highest.set(sessionId, value);
      return value;
    },
    forget(sessionId) {
      seeded.delete(sessionId);
      highest.delete(sessionId);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
