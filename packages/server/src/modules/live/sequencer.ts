import { Redis } from 'ioredis';
import { ServiceUnavailable } from '../../http/errors.js';
import type { StreamStore } from '../../streams/store.js';

/** A Redis command not answered within this long fails (a paused or unreachable Redis). */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * Hands out each session's one sequence over all its streams, in arrival order.
 * In process, a counter seeded from the recording; across processes, a Redis counter seeded the
 * same way, so that seq stays unique per session whichever process accepts the message.
 */
export interface Sequencer {
  next(sessionId: string): Promise<number>;
  /**
   * Rejects with 503 `SERVICE_UNAVAILABLE` ("redis unavailable: …") while the shared counter
   * cannot be reached (at once when disconnected, within a second when it does not answer), so
   * that a change that must be written to a timeline is refused before anything of it is done.
   * Resolves at once in process.
   */
  assertAvailable(): Promise<void>;
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
    assertAvailable: async () => {},
    close: async () => {},
  };
}

/**
 * Several processes: INCR on `<prefix>seq:<session>`, seeded with SET NX from the store. While Redis
 * is away, `next` fails at once (nothing is queued for it once it was reached: a timeline must
 * not wait seconds on it) with 503 `SERVICE_UNAVAILABLE`; before the first connection it waits.
 */
export function redisSequencer(url: string, prefix: string, store: StreamStore): Sequencer {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Tried again at least every second, so that timelines come back soon after Redis does.
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  redis.on('error', () => {});
  redis.once('ready', () => (redis.options.enableOfflineQueue = false));
  const unavailable = (why: string) => new ServiceUnavailable(`redis unavailable: ${why}`);
  const refuseWhileAway = () => {
    if (!redis.options.enableOfflineQueue && redis.status !== 'ready')
      throw unavailable(`a live session's sequence cannot be taken (${redis.status})`);
  };
  const assertAvailable = async () => {
    refuseWhileAway();
    await redis.ping().catch((err: Error) => {
      throw unavailable(`a live session's sequence cannot be taken (${err.message})`);
    });
  };
  const seeded = new Map<string, Promise<void>>();
  const highest = new Map<string, number>();
  const key = (sessionId: string) => `${prefix}seq:${sessionId}`;
  const seed = (sessionId: string, floor: number) =>
    store.maxSeq(sessionId).then(async (max) => {
      await redis.set(key(sessionId), String(Math.max(max, floor)), 'NX');
    });

  return {
    async next(sessionId) {
      refuseWhileAway();
      try {
        return await take(sessionId);
      } catch (err) {
        // Redis's own refusal is a bug to show as one; anything else is Redis out of reach (or paused).
        if (err instanceof ServiceUnavailable || (err as Error).name === 'ReplyError') throw err;
        throw unavailable(`a live session's sequence cannot be taken (${(err as Error).message})`);
      }
    },
    assertAvailable,
    forget(sessionId) {
      seeded.delete(sessionId);
      highest.delete(sessionId);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };

  async function take(sessionId: string): Promise<number> {
    let s = seeded.get(sessionId);
    if (!s) {
      s = seed(sessionId, 0);
      seeded.set(sessionId, s);
      // A seed that failed (Redis away) is tried again by the next message.
      s.catch(() => seeded.delete(sessionId));
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
  }
}
