/** Where a fixed-window count stands after a hit or a look. */
export interface WindowCount {
  count: number;
  /** ms until the window ends and the count starts again from zero */
  resetInMs: number;
}

/**
 * Fixed-window counters: request rate limits and login throttling. In process by default;
 * in Redis when several server processes must share them.
 */
export interface Counters {
  /** Adds one to `key` in the current window of `windowMs` and returns the new count (at once, for in-process counters). */
  hit(key: string, windowMs: number): Promise<WindowCount> | WindowCount;
  /** The current count of `key` without adding to it. */
  peek(key: string, windowMs: number): Promise<WindowCount>;
  /** Forgets `key` in the current window. */
  clear(key: string, windowMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The window a moment falls in, and the ms left in it. */
export function windowOf(nowMs: number, windowMs: number): { index: number; resetInMs: number } {
  const index = Math.floor(nowMs / windowMs);
  return { index, resetInMs: (index + 1) * windowMs - nowMs };
}
