/** Sustained client messages a connection may send per second, and the burst allowed above it. */
export const RATE_PER_S = 200;
export const RATE_BURST = 400;
/** Invalid messages a connection may send within STRIKE_WINDOW_MS before it is closed with 1008. */
export const MAX_STRIKES = 20;
export const STRIKE_WINDOW_MS = 10_000;
/** The reason of the 1008 close of a connection that sent too many invalid messages. */
export const TOO_MANY_INVALID = 'too many invalid messages';

/**
 * What one connection may send: every message it sends, valid or not, JSON or binary, takes a
 * token (a bucket refilled at RATE_PER_S up to RATE_BURST), so that garbage costs the sender as
 * much as a publish does; and its invalid messages are counted, so that one that keeps sending
 * them is closed rather than answered forever. An honest client with a bug gets an `error`
 * control message for each of its first MAX_STRIKES mistakes in a window first.
 */
export class MessageGuard {
  private tokens = RATE_BURST;
  private refilledAt: number;
  /** messages allowed beyond the burst: what the client could send while the gateway paused it */
  private credit = 0;
  /** when the credit lapses: the backlog of a pause arrives right after it */
  private creditUntil = 0;
  private strikes = 0;
  private strikesSince = 0;

  constructor(now = Date.now()) {
    this.refilledAt = now;
  }

  /** Takes a token for one message; false when the connection is over its rate. */
  take(now = Date.now()): boolean {
    this.tokens = Math.min(RATE_BURST, this.tokens + ((now - this.refilledAt) / 1000) * RATE_PER_S);
    this.refilledAt = now;
    if (this.credit > 0 && now > this.creditUntil) this.credit = 0;
    if (this.tokens >= 1) this.tokens -= 1;
    else if (this.credit >= 1) this.credit -= 1;
    else return false;
    return true;
  }

  /**
   * The gateway did not read from this connection for `ms` (storage was behind): the client could
   * send at the allowed rate meanwhile, and what it sent arrives at once when reading resumes. That
   * arrival is not a burst of the client's making, so it is not refused.
   */
  creditPause(ms: number, now = Date.now()): void {
    this.credit += Math.ceil((ms / 1000) * RATE_PER_S);
    // As long again as the pause (at least a second) to read and take what queued up meanwhile.
    this.creditUntil = now + Math.max(1000, ms);
  }

  /** Counts one invalid message; true when the connection has sent too many and must be closed. */
  strike(now = Date.now()): boolean {
    if (now - this.strikesSince > STRIKE_WINDOW_MS) {
      this.strikes = 0;
      this.strikesSince = now;
    }
    this.strikes += 1;
    return this.strikes > MAX_STRIKES;
  }
}
