/**
 * The client's side of the server's publish rate limit (docs/protocol.md §2: 200 messages per
 * second sustained, 400 in a burst): a token bucket that media senders consult before encoding.
 */

/** Messages per second the client allows itself: a margin below the server's 200. */
const RATE = 170;
/** The bucket's size: below the server's burst of 400. */
const BURST = 300;

/** Who asks: video gives way first, so audio and chat keep flowing when the budget runs low. */
export type BudgetUse = 'video' | 'audio';

/** Tokens a use must leave in the bucket: what it cannot take is kept for the more important ones. */
const RESERVE: Record<BudgetUse, number> = { video: 120, audio: 20 };

/** A token bucket shared by everything one connection publishes. */
export class RateBudget {
  private tokens = BURST;
  private last = performance.now();

  /** Takes one message's token; false when `use` must skip this message. */
  take(use: BudgetUse): boolean {
    const now = performance.now();
    this.tokens = Math.min(BURST, this.tokens + ((now - this.last) / 1000) * RATE);
    this.last = now;
    if (this.tokens - 1 < RESERVE[use]) return false;
    this.tokens -= 1;
    return true;
  }
}
