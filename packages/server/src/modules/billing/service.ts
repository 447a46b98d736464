import type { Db, Trx } from '../../db/types.js';

/**
 * The billing rule as the rest of the service sees it: may this organisation start something
 * that costs (a session, an export)? Throws UsageLimitsExceeded when not. The billing module
 * replaces the open gate with the metered one.
 */
export interface UsageGate {
  /** `q` is the caller's transaction, when there is one. */
  assertWithinLimits(orgId: string, q?: Db | Trx): Promise<void>;
}

/** Allows everything: the gate until usage is metered. */
export const openGate: UsageGate = { assertWithinLimits: async () => {} };
