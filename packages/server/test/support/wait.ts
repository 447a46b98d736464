/** The one way tests wait: poll a condition with a deadline, never a fixed sleep. */
import { vi } from 'vitest';

/**
 * Polls `fn` every `everyMs` until it returns a truthy value, or fails after `ms`. A condition that
 * costs the server work (a whole recording read back) is polled less often than every 20 ms.
 */
export async function eventually<T>(
  fn: () => T | Promise<T>,
  ms = 10_000,
  what = 'condition',
  everyMs = 20,
): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const realNow = Date.now.bind(Date);
let ahead = 0;

/**
 * Moves this process's clock `ms` ahead at once: `Date.now()`, which the app started in this
 * process (`startApp`) reads for every rule that counts time (a retry's grace, a pause's length).
 * Such a rule is met without sleeping through it. Time goes on at its pace from there, timers are
 * untouched, and the clock never goes back while the app runs: `realClock()` once it is closed.
 */
export function clockAhead(ms: number): void {
  ahead += ms;
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + ahead);
}

/** The real clock again (after the app that saw it ahead has closed). */
export function realClock(): void {
  ahead = 0;
  vi.mocked(Date.now).mockRestore?.();
}
