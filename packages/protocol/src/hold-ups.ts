/**
 * Whether a thread (a server's event loop, a page's main thread) is busy, from how late its
 * regular ticks come. Busy means held up for a good share of the last few seconds, or held up
 * right now: a loaded machine stops any process for a few hundred milliseconds now and then (a
 * garbage collection, another process's burst), and one such pause must not be taken for a busy
 * machine, or a receiver behind a slow link would be told the server (or its device) is to blame.
 */
export class HoldUps {
  private readonly seen: { at: number; ms: number }[] = [];

  constructor(
    private readonly rule: {
      /** how far back hold-ups count (ms) */
      windowMs: number;
      /** the share of the window held up that makes the thread busy (0–1) */
      share: number;
      /** a tick this overdue now makes the thread busy at once (ms) */
      overdueMs: number;
      /** a tick less late than this is the timer's own jitter, not a hold-up (ms) */
      minMs: number;
    },
  ) {}

  /** A tick `lateMs` later than due, seen at `now` (ms). */
  late(lateMs: number, now: number): void {
    if (lateMs < this.rule.minMs) return;
    this.seen.push({ at: now, ms: lateMs });
    this.prune(now);
  }

  /** Busy at `now`, given when the last tick came (`lastTickAt`) and how often they come (`tickMs`). */
  busy(now: number, lastTickAt: number, tickMs: number): boolean {
    if (now - lastTickAt - tickMs >= this.rule.overdueMs) return true;
    this.prune(now);
    // A hold-up counts for the part of it inside the window.
    let held = 0;
    for (const h of this.seen) held += Math.min(h.ms, h.at - (now - this.rule.windowMs));
    return held >= this.rule.share * this.rule.windowMs;
  }

  private prune(now: number): void {
    while (this.seen.length > 0 && now - this.seen[0]!.at > this.rule.windowMs) this.seen.shift();
  }
}
