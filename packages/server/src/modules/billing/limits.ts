import { UsageLimitsExceeded } from '../../http/errors.js';
import { now } from '../../lib/time.js';
import type { Db, Trx } from '../../db/types.js';
import type { BillingStore } from './store.js';

/** Bytes in a gigabyte as the free tier and the prices count them (decimal, as providers bill). */
export const GB = 1_000_000_000;

/** How stale the limits read by session creation and export enqueue may be. */
export const LIMITS_TTL_MS = 5_000;

/**
 * Subscription statuses that lift the free-tier limits. `past_due` counts: the provider is still
 * collecting, and cutting a paying customer off on a failed card retry is worse than a few days'
 * usage.
 */
export const ACTIVE_STATUSES = ['active', 'trialing', 'past_due'] as const;

/** An organisation's usage as the limits see it. */
export interface OrgUsage {
  /** participant-minutes this calendar month (UTC) */
  minutes: number;
  /** bytes stored now */
  bytes: number;
  subscribed: boolean;
}

export interface FreeTier {
  streamingMinutes: number;
  storageGb: number;
}

/** The start of the calendar month (UTC) that holds `at`. */
export function monthStart(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The start of the next calendar month (UTC). */
export function nextMonthStart(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** Which free-tier limit is exceeded, said for a person; null when none is. */
export function exceeded(usage: OrgUsage, tier: FreeTier): string | null {
  if (usage.minutes > tier.streamingMinutes)
    return `the free tier's ${fmt(tier.streamingMinutes)} streaming minutes a month are used up (${fmt(usage.minutes)} used this month, UTC)`;
  if (usage.bytes / GB > tier.storageGb)
    return `the free tier's ${fmt(tier.storageGb)} GB of storage is exceeded (${fmt(usage.bytes / GB)} GB stored)`;
  return null;
}

/** The billing limits answer. */
export function limitsOf(usage: OrgUsage, tier: FreeTier) {
  const over = exceeded(usage, tier);
  const blocked = over !== null && !usage.subscribed;
  return {
    within_free_tier: over === null,
    streaming_minutes_used: usage.minutes,
    storage_bytes_used_gb: usage.bytes / GB,
    has_active_subscription: usage.subscribed,
    is_blocked: blocked,
    status_message: blocked
      ? `${capital(over)}. New sessions and exports are refused until the organisation subscribes: an owner or admin opens the billing portal (POST /v1/billing/portal, or Billing in the dashboard). Sessions already live continue.`
      : over !== null
        ? `${capital(over)}; usage beyond it is billed to the active subscription.`
        : '',
  };
}

const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/**
 * Each organisation's usage, read at most every LIMITS_TTL_MS: session creation and export enqueue
 * ask on every request, and must not sum records each time. Concurrent misses share one read.
 */
export class LimitsCache {
  private readonly entries = new Map<string, { usage: OrgUsage; at: number }>();
  private readonly loading = new Map<string, Promise<OrgUsage>>();

  constructor(private readonly store: BillingStore) {}

  /** `q`: the caller's transaction when there is one, else the database. */
  get(q: Db | Trx, orgId: string): OrgUsage | Promise<OrgUsage> {
    const e = this.entries.get(orgId);
    if (e && now() - e.at < LIMITS_TTL_MS) return e.usage;
    // Inside a transaction, read with it: waiting on a read made beside it could wait for it.
    if (q.isTransaction) return this.read(q, orgId);
    let pending = this.loading.get(orgId);
    if (!pending) {
      pending = this.read(q, orgId).finally(() => this.loading.delete(orgId));
      this.loading.set(orgId, pending);
    }
    return pending;
  }

  /** The organisation's usage read now, bypassing the cache (and refreshing it). */
  async read(q: Db | Trx, orgId: string): Promise<OrgUsage> {
    const at = now();
    const [minutes, bytes, subscribed] = await Promise.all([
      this.store.minutesSince(q, orgId, monthStart(at)),
      this.store.storedBytes(q, orgId),
      this.store.hasActiveSubscription(q, orgId, ACTIVE_STATUSES),
    ]);
    const usage = { minutes, bytes, subscribed };
    this.entries.set(orgId, { usage, at });
    return usage;
  }

  /** Drops entries too old to be used again (organisations no longer asking). */
  prune(): void {
    const at = now();
    for (const [orgId, e] of this.entries) if (at - e.at >= LIMITS_TTL_MS) this.entries.delete(orgId);
  }

  forget(orgId: string): void {
    this.entries.delete(orgId);
  }

  /** Throws 503 USAGE_LIMITS_EXCEEDED when the organisation is over the free tier without a subscription. */
  async assert(q: Db | Trx, orgId: string, tier: FreeTier, what: string): Promise<void> {
    const usage = await this.get(q, orgId);
    if (usage.subscribed) return;
    const over = exceeded(usage, tier);
    if (over)
      throw new UsageLimitsExceeded(
        `${what} refused: ${over} and the organisation has no active subscription; an owner or admin can subscribe through the billing portal (POST /v1/billing/portal)`,
      );
  }
}
