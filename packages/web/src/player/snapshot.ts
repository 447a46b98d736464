/** When the player's page must be drawn again. */
import type { PlayerSnapshot } from './types';

/** The page is redrawn when the playhead moved at least this much (or anything else changed). */
const REDRAW_MS = 100;

/**
 * True when `next` shows something `old` did not: the playhead moved far enough while playing (or
 * at all otherwise), or any other field changed. The engine keeps unchanged lists and objects
 * from one snapshot to the next, so comparing them by identity is enough.
 */
export function snapshotChanged(old: PlayerSnapshot, next: PlayerSnapshot): boolean {
  if (Math.abs(next.position - old.position) >= REDRAW_MS) return true;
  if (next.position !== old.position && next.status !== 'playing') return true;
  return (Object.keys(next) as Array<keyof PlayerSnapshot>).some(
    (k) => k !== 'position' && next[k] !== old[k],
  );
}

/** `old` when it holds the same items as `next` (so the page sees no change), else `next`. */
export function sameList<T>(old: T[] | undefined, next: T[]): T[] {
  return old && old.length === next.length && old.every((x, i) => x === next[i]) ? old : next;
}
