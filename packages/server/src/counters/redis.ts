import { Redis } from 'ioredis';
import { windowOf, type Counters } from './counter.js';

/** Counters shared by every server process through Redis: one key per window, expiring with it. */
export function redisCounters(url: string): Counters {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', () => {
    // Connection trouble surfaces as a failed command on the request that needed it.
  });
  const name = (key: string, windowMs: number, index: number) => `vss:count:${windowMs}:${index}:${key}`;

  return {
    async hit(key, windowMs) {
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
    async peek(key, windowMs) {
      const { index, resetInMs } = windowOf(Date.now(), windowMs);
      const v = await redis.get(name(key, windowMs, index));
      return { count: v === null ? 0 : Number(v), resetInMs };
    },
    async clear(key, windowMs) {
      const { index } = windowOf(Date.now(), windowMs);
      await redis.del(name(key, windowMs, index));
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
