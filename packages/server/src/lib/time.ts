/** Durations in milliseconds: the one place they are spelled out. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Milliseconds since 1970 as stored in every `*_at` column. */
export function now(): number {
  return Date.now();
}

/** The API's timestamp format: ISO 8601 UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Like iso() but null stays null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/** Rejects after `ms`: a dependency that hangs is as unavailable as one that refuses. */
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}

/**
 * Whether a credential's `last_used_at` is due to be written again at `at`: when it was never
 * written, or last written more than a minute ago. Every credential (API keys, agent tokens, OAuth
 * grants) follows this one rule, so that authenticating stays a read: a key used a thousand times
 * a minute costs one write a minute, and "last used" is still right to the minute.
 */
export function touchDue(lastUsed: number | null, at: number): boolean {
  return lastUsed === null || at - lastUsed > MINUTE_MS;
}
