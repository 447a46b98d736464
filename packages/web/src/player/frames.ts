/** The video frames the player holds before they are due, or until a tile's canvas is on the page. */
import type { MediaEvent } from './types';

/**
 * Frames of a tile whose canvas is not on the page yet are kept from its latest key frame on,
 * until it is (then decoded at once); a chain longer than this is dropped until the next key frame.
 */
const MAX_WAITING_FRAMES = 300;

/** Adds `more` to `into`, keeping it in (ts, seq) order. */
export function merge(into: MediaEvent[], more: MediaEvent[]): void {
  if (!more.length) return;
  const sorted = !into.length || into.at(-1)!.ts <= more[0]!.ts;
  into.push(...more);
  if (!sorted) into.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
}

/** Keeps a frame for a tile whose canvas is not on the page yet: its latest key frame and what follows. */
export function keep(waiting: Map<string, MediaEvent[]>, e: MediaEvent): void {
  const list = waiting.get(e.streamId) ?? [];
  if (e.key) list.length = 0;
  // A delta frame with no key frame before it can never be decoded; a chain too long is let go.
  if ((!e.key && list.length === 0) || list.length >= MAX_WAITING_FRAMES) list.length = 0;
  else list.push(e);
  waiting.set(e.streamId, list);
}
