/** How fresh the figure behind a budget is kept: refreshed in the background past this age. */
const REFRESH_MS = 5_000;

interface OrgBudget {
  /** bytes this organisation has stored, as far as this process knows */
  estimate: number;
  /** null: no limit (a subscription) */
  limit: number | null;
  readAt: number;
  refreshing: boolean;
  /** a take was refused since the limit was last read: the gate is closed */
  full: boolean;
}

/** What an organisation may store (the billing gate's storageAllowance). */
export type Allowance = (orgId: string) => Promise<{ stored: number; limit: number } | null>;

/**
 * Live ingest within the free tier's storage: an organisation without a subscription records
 * media only while what it stores stays within FREE_TIER_STORAGE_GB. The stored figure comes from
 * billing (a few seconds old, and behind what was recorded since); this process adds every byte
 * it accepts to it and never lets a later reading lower it below that, so one connection cannot
 * record far past the limit before the figures catch up. A decision never waits for the database:
 * the organisation's figure is loaded when its first session goes live here and refreshed in the
 * background.
 */
export class StorageBudget {
  private readonly orgs = new Map<string, OrgBudget>();

  constructor(private readonly allowance: Allowance | null) {}

  /** Reads the organisation's figure, once, before its first session here takes media. */
  async load(orgId: string): Promise<void> {
    if (!this.allowance || this.orgs.has(orgId)) return;
    const a = await this.allowance(orgId);
    if (this.orgs.has(orgId)) return;
    this.orgs.set(orgId, {
      estimate: a?.stored ?? 0,
      limit: a?.limit ?? null,
      readAt: Date.now(),
      refreshing: false,
      full: false,
    });
  }

  /** Whether `bytes` more may be recorded for the organisation; counts them when they may. */
  take(orgId: string, bytes: number): boolean {
    const b = this.orgs.get(orgId);
    if (!b) return true;
    if (!b.refreshing && Date.now() - b.readAt > REFRESH_MS) this.refresh(orgId, b);
    if (b.limit !== null && b.estimate + bytes > b.limit) {
      b.full = true;
      return false;
    }
    b.estimate += bytes;
    return true;
  }

  /**
   * Whether the gate is open: media that is relayed and not stored (a reduced video layer) passes
   * only while the organisation's recorded media would, so that no video goes on once storage is
   * used up. Closed at the limit, or once a take was refused, until a new limit is read.
   */
  open(orgId: string): boolean {
    const b = this.orgs.get(orgId);
    if (!b) return true;
    if (!b.refreshing && Date.now() - b.readAt > REFRESH_MS) this.refresh(orgId, b);
    return b.limit === null || (!b.full && b.estimate < b.limit);
  }

  /** The organisation has no live session here any more: its figure is read afresh next time. */
  forget(orgId: string): void {
    this.orgs.delete(orgId);
  }

  private refresh(orgId: string, b: OrgBudget): void {
    b.refreshing = true;
    this.allowance!(orgId).then(
      (a) => {
        b.estimate = Math.max(b.estimate, a?.stored ?? 0);
        const limit = a?.limit ?? null;
        if (limit !== b.limit) b.full = false;
        b.limit = limit;
        b.readAt = Date.now();
        b.refreshing = false;
      },
      () => {
        // Kept as it was, and asked again at the next publish past the age.
        b.refreshing = false;
      },
    );
  }
}
