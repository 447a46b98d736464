/** The one way tests wait: poll a condition with a deadline, never a fixed sleep. */

/** Polls `fn` until it returns a truthy value, or fails after `ms`. */
export async function eventually<T>(
  fn: () => T | Promise<T>,
  ms = 10_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
