import { windowOf, type Counters, type WindowCount } from './counter.js';
import { MINUTE_MS } from '../lib/time.js';

/** Counters for one process: a map of window-stamped counts, swept every minute. */
export function memoryCounters(): Counters {
  const counts = new Map<string, { index: number; count: number }>();
  const sweep = setInterval(() => {
    const t = Date.now();
    for (const [k, v] of counts) {
      const windowMs = Number(k.slice(0, k.indexOf('|')));
      if (windowOf(t, windowMs).index !== v.index) counts.delete(k);
    }
  }, MINUTE_MS);
  sweep.unref();

  function read(key: string, windowMs: number, add: number): WindowCount {
    const { index, resetInMs } = windowOf(Date.now(), windowMs);
    const k = `${windowMs}|${key}`;
    let entry = counts.get(k);
    if (!entry || entry.index !== index) {
      entry = { index, count: 0 };
      if (add) counts.set(k, entry);
    }
    entry.count += add;
    return { count: entry.count, resetInMs };
  }

  return {
    hit: (key, windowMs) => read(key, windowMs, 1),
    peek: async (key, windowMs) => read(key, windowMs, 0),
    clear: async (key, windowMs) => {
      counts.delete(`${windowMs}|${key}`);
    },
    close: async () => clearInterval(sweep),
  };
}
