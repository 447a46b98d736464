import { VssError } from '@vss/client';

/** Exit codes: 0 done, 1 the service answered an error (or could not be reached), 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_SERVICE = 1;
export const EXIT_USAGE = 2;

/** A mistake in the command line or the local setup (no key, bad value): exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The one line printed for an error, and the exit code it gives. */
export function describeError(err: unknown): { line: string; code: number } {
  if (err instanceof UsageError) return { line: `vss: ${err.message}`, code: EXIT_USAGE };
  if (err instanceof VssError) {
    const where = err.status ? ` (HTTP ${err.status})` : '';
    return { line: `vss: ${err.code}${where}: ${err.message}`, code: EXIT_SERVICE };
  }
  const e = err as Error;
  return { line: `vss: ${e?.message ?? String(err)}`, code: EXIT_SERVICE };
}
