import { Redis } from 'ioredis';
import { windowOf, type Counters } from './counter.js';
import { memoryCounters } from './memory.js';

/** A count not answered by Redis within this long is taken in process instead (a paused Redis). */
const COMMAND_TIMEOUT_MS = 300;
/** After Redis failed a count, counts stay in process this long before Redis is tried again. */
const BACK_OFF_MS = 1000;

/**
 * Counters shared by every server process through Redis: one key per window, expiring with it.
 * While Redis cannot be reached (down, unreachable, too slow to answer), each count is taken in
 * this process instead, at once (nothing waits for Redis), and `onLocal` is told why: the limits
 * go on, each process counting on its own, until Redis answers again.
 */
export function redisCounters(
  url: string,
  prefix: string,
  onLocal: (reason: string) => void = () => {},
): Counters {
  // No offline queue: a count never waits for a connection, it is taken in process.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  redis.on('error', () => {
    // Connection trouble shows as counts taken in process (onLocal).
  });
  const local = memoryCounters();
  let skipUntil = 0;
  /** `shared` through Redis, or `inProcess` while Redis is away; Redis's own refusals are thrown. */
  async function either<T>(shared: () => Promise<T>, inProcess: () => T | Promise<T>): Promise<T> {
    if (redis.status !== 'ready' || Date.now() < skipUntil) {
      onLocal(`redis ${redis.status === 'ready' ? 'too slow to answer' : redis.status}`);
      return inProcess();
    }
    try {
      return await shared();
    } catch (err) {
      if ((err as Error).name === 'ReplyError') throw err;
      skipUntil = Date.now() + BACK_OFF_MS;
      onLocal((err as Error).message);
      return inProcess();
    }
  }
  const name = (key: string, windowMs: number, index: number) => `${prefix}count:${windowMs}:${index}:${key}`;

  return {
    hit: (key, windowMs) =>
      either(
        async () => {
          const { index, resetInMs } = windowOf(Date.now(), windowMs);
          const k = name(key, windowMs, index);
          const res = await redis
            .multi()
            .incr(k)
            .pexpire(k, resetInMs + 1000)
            .exec();
          const count = Number(res?.[0]?.[1] ?? 0);
          return { count, resetInMs };
        },
        () => local.hit(key, windowMs),
      ),
    peek: (key, windowMs) =>
      either(
        async () => {
          const { index, resetInMs } = windowOf(Date.now(), windowMs);
          const v = await redis.get(name(key, windowMs, index));
          return { count: v === null ? 0 : Number(v), resetInMs };
        },
        () => local.peek(key, windowMs),
      ),
    clear: (key, windowMs) =>
      either(
        async () => {
          const { index } = windowOf(Date.now(), windowMs);
          await redis.del(name(key, windowMs, index));
        },
        () => local.clear(key, windowMs),
      ),
    async close() {
      await local.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
