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
