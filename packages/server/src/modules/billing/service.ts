import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Config } from '../../config.js';
import { transaction } from '../../db/transaction.js';
import type { Db, Trx, UsageRecordsTable } from '../../db/types.js';
import { BadRequest } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import type { Metrics } from '../../lib/metrics.js';
import { DAY_MS, iso, now } from '../../lib/time.js';
import type { StreamStore } from '../../streams/store.js';
import { requireRole, type ProjectsService } from '../projects/service.js';
import { GB, LimitsCache, limitsOf, monthStart, nextMonthStart, type FreeTier } from './limits.js';
import { UsageMeter } from './meter.js';
import type { BillingProvider } from './provider.js';
import { billingStore, STORAGE_BYTES, STREAMING_MINUTES, type UsageScope } from './store.js';

/**
 * The billing rule as the rest of the service sees it: may this organisation start something
 * that costs (a session, an export)? Throws UsageLimitsExceeded when not.
 */
export interface UsageGate {
  /** `what` names the refused action in the message; `q` is the caller's transaction, when there is one. */
  assertWithinLimits(orgId: string, what: string, opts?: { q?: Db | Trx }): Promise<void>;
  /**
   * What the organisation may store: its stored bytes (at most a few seconds old) and the free
   * tier's storage in bytes; null when a subscription lifts the limit.
   */
  storageAllowance(orgId: string): Promise<{ stored: number; limit: number } | null>;
}

/** The longest range of daily totals one request may ask for. */
export const MAX_DAYS = 366;

/** Money in the answer: cents, rounded half away from zero, as a number of dollars. */
function cents(amount: number): number {
  return Math.round(Number((amount * 100).toPrecision(12))) / 100;
}

function range(query: { from?: string; to?: string }): { from?: number; to?: number } {
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  if (from !== undefined && Number.isNaN(from)) throw new BadRequest('query.from is not a valid timestamp');
  if (to !== undefined && Number.isNaN(to)) throw new BadRequest('query.to is not a valid timestamp');
  if (from !== undefined && to !== undefined && from >= to)
    throw new BadRequest('query.from must be before query.to');
  return { from, to };
}

export function presentRecord(r: UsageRecordsTable) {
  return {
    id: r.id,
    project_id: r.project_id,
    session_id: r.session_id,
    usage_type: r.usage_type,
    value: r.value,
    recorded_at: iso(r.created_at),
  };
}

/** Bytes a session keeps somewhere, read with the transaction `q` of the sync. */
export type StoredBytes = (q: Db | Trx, sessionId: string) => Promise<number>;

/**
 * Usage metering, the free tier and billing: what each organisation used (participant-minutes of
 * live connections, bytes stored), its limits and costs, and the provider it pays through.
 */
export function billingService(deps: {
  config: Config;
  db: Db;
  engine: 'sqlite' | 'postgres';
  streams: StreamStore;
  projects: ProjectsService;
  provider: BillingProvider;
  bus: EventBus;
  nodeId: string;
  log: FastifyBaseLogger;
  /** counts the usage recorded (streaming minutes, stored bytes) once written */
  metrics?: Metrics | null;
}) {
  const { config, db } = deps;
  const store = billingStore(db, deps.engine);
  const limits = new LimitsCache(store);
  const tier: FreeTier = {
    streamingMinutes: config.freeTierStreamingMinutes,
    storageGb: config.freeTierStorageGb,
  };
  /** the other bytes a session keeps, beside its recording (export files), each read with `q` */
  const storedElsewhere: StoredBytes[] = [];
  /** one storage sync at a time per session in this process */
  const syncing = new Map<string, Promise<void>>();

  /**
   * Records a session's stored bytes (recording plus export files) as they are now: the change
   * since the last record becomes a `storage_bytes` usage record, in the transaction that moves
   * the session's level. The level is locked before the bytes are read, so of two syncs (in any
   * processes) the one that reads later also writes later: the level ends at the latest figure,
   * and a repeated sync records nothing.
   */
  async function syncStorageNow(sessionId: string): Promise<void> {
    const recorded = await transaction(db, async (trx) => {
      const at = now();
      let level = await store.level(trx, sessionId);
      if (!level) {
        const ref = await store.sessionRef(trx, sessionId);
        if (!ref) return 0; // deleted before anything of it was recorded
        level = {
          session_id: sessionId,
          org_id: ref.org_id,
          project_id: ref.project_id,
          bytes: 0,
          updated_at: at,
        };
      }
      level = await store.lockLevel(trx, level);
      const stats = await deps.streams.stats(sessionId);
      let bytes = stats.reduce((n, s) => n + s.bytes, 0);
      for (const of of storedElsewhere) bytes += await of(trx, sessionId);
      const delta = bytes - level.bytes;
      if (delta !== 0)
        await store.insertRecords(trx, [
          {
            id: newId(),
            org_id: level.org_id,
            project_id: level.project_id,
            session_id: sessionId,
            usage_type: STORAGE_BYTES,
            value: delta,
            // The level it moves from: two changes from the same level can never both be kept.
            dedupe_key: `storage:${sessionId}:${level.updated_at}:${level.bytes}`,
            created_at: at,
          },
        ]);
      // A deleted session's level, back at zero, is not kept.
      if (bytes === 0 && !(await store.sessionRef(trx, sessionId))) await store.deleteLevel(trx, sessionId);
      else if (delta !== 0) await store.setLevel(trx, sessionId, bytes, at);
      return delta;
    });
    // Counted once committed: a transaction that failed recorded nothing.
    deps.metrics?.usage('storage', recorded);
  }

  function syncStorage(sessionId: string): Promise<void> {
    const previous = syncing.get(sessionId) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => syncStorageNow(sessionId));
    const tail = run
      .catch(() => {})
      .finally(() => {
        if (syncing.get(sessionId) === tail) syncing.delete(sessionId);
      });
    syncing.set(sessionId, tail);
    return run;
  }

  const meter = new UsageMeter({
    nodeId: deps.nodeId,
    intervalMs: config.usageFlushIntervalS * 1000,
    write: async (rows) => {
      await store.insertRecords(db, rows);
      for (const r of rows) deps.metrics?.usage('streaming_minutes', r.value);
    },
    syncStorage,
    log: deps.log,
  });
  // A finished export adds its file; once a recording is ready its last frames are written. Synced
  // now, and again at the next tick: the timeline event that follows each adds a few bytes more.
  for (const type of ['export.completed', 'session.ended', 'recording.ready'] as const)
    deps.bus.on(type, (e) => {
      if (!e.sessionId) return;
      meter.touch(e.sessionId);
      void syncStorage(e.sessionId).catch((err: unknown) =>
        deps.log.warn({ err, session: e.sessionId }, 'recording stored bytes failed'),
      );
    });

  /** Whose usage a route reads: the organisation, or one project of it. */
  async function scopeOf(principal: Principal, projectId: string | undefined, sessionId?: string) {
    const scope: UsageScope = { orgId: principal.orgId };
    if (projectId !== undefined) scope.projectId = (await deps.projects.inOrg(principal, projectId)).id;
    if (sessionId !== undefined) scope.sessionId = sessionId;
    return scope;
  }

  const gate: UsageGate = {
    assertWithinLimits: (orgId, what, { q } = {}) => limits.assert(q ?? db, orgId, tier, what),
    async storageAllowance(orgId) {
      const usage = await limits.get(db, orgId);
      return usage.subscribed ? null : { stored: usage.bytes, limit: tier.storageGb * GB };
    },
  };

  return {
    gate,
    meter,
    syncStorage,

    /**
     * Counts more bytes a session keeps in its stored total (the exports module adds its files):
     * billing never knows who keeps them, so the dependency runs one way, toward billing.
     */
    countStored(of: StoredBytes): void {
      storedElsewhere.push(of);
    },

    /** Usage records (newest first, paged) and the totals over the same filters. */
    async usage(
      principal: Principal,
      query: { from?: string; to?: string; session_id?: string; limit: number; cursor?: string },
      { projectId }: { projectId?: string } = {},
    ) {
      const r = range(query);
      const after = decodeCursor(query.cursor);
      const scope = await scopeOf(principal, projectId, query.session_id);
      const [rows, minutes, bytes] = await Promise.all([
        store.records(scope, r, after, query.limit + 1),
        store.total(scope, STREAMING_MINUTES, r),
        // Storage is a level: what was stored at the end of the range (records before `to`).
        store.total(scope, STORAGE_BYTES, { to: r.to }),
      ]);
      return { rows, summary: { streaming_minutes_total: minutes, storage_bytes_total: bytes } };
    },

    /** Per UTC day of [from, to): participant-minutes, and bytes stored at the end of the day. */
    async daily(principal: Principal, query: { from?: string; to?: string; project_id?: string }) {
      const at = now();
      const r = range(query);
      const to = r.to ?? at;
      const from = r.from ?? to - 30 * DAY_MS;
      const firstDay = Math.floor(from / DAY_MS) * DAY_MS;
      const lastDay = Math.ceil(to / DAY_MS) * DAY_MS;
      if ((lastDay - firstDay) / DAY_MS > MAX_DAYS)
        throw new BadRequest(`query.from and query.to span more than ${MAX_DAYS} days`);
      const scope = await scopeOf(principal, query.project_id);
      const [sums, before] = await Promise.all([
        store.daily(scope, firstDay, lastDay),
        store.total(scope, STORAGE_BYTES, { to: firstDay }),
      ]);
      const days: Array<{ date: string; streaming_minutes: number; storage_bytes: number }> = [];
      let level = before;
      for (let day = firstDay; day < lastDay; day += DAY_MS) {
        const of = (type: string) => sums.find((s) => s.day === day && s.usage_type === type)?.total ?? 0;
        level += of(STORAGE_BYTES);
        days.push({
          date: iso(day).slice(0, 10),
          streaming_minutes: of(STREAMING_MINUTES),
          storage_bytes: level,
        });
      }
      return days;
    },

    /** The current calendar month (UTC): what was used and what it costs at the configured prices. */
    async summary(principal: Principal) {
      const at = now();
      const usage = await limits.read(db, principal.orgId);
      const streaming = cents(usage.minutes * config.pricePerStreamingMinute);
      const storage = cents((usage.bytes / GB) * config.pricePerGbMonth);
      return {
        period_start: iso(monthStart(at)),
        period_end: iso(nextMonthStart(at)),
        currency: 'usd' as const,
        streaming_minutes_used: usage.minutes,
        storage_bytes_used: usage.bytes,
        cost_breakdown: {
          streaming_cost: streaming,
          storage_cost: storage,
          total_due: cents(streaming + storage),
        },
      };
    },

    /** The free-tier limits and whether the organisation is blocked, read fresh. */
    async limits(principal: Principal) {
      return {
        ...limitsOf(await limits.read(db, principal.orgId), tier),
        billing_portal: deps.provider.name !== 'none',
      };
    },

    /** A billing portal address for the organisation's customer, or a project's own. */
    async portal(principal: Principal, projectId: string | null, returnUrl: string | undefined) {
      requireRole(principal, 'admin');
      if (returnUrl !== undefined) {
        // Only where the operator's own pages are: the portal is no open redirect to anywhere.
        const allowed = [new URL(config.publicBaseUrl).origin, ...config.billingReturnOrigins];
        if (!allowed.includes(new URL(returnUrl).origin))
          throw new BadRequest(
            `return_url must be on ${allowed.join(' or ')} (PUBLIC_BASE_URL's origin, or one BILLING_RETURN_ORIGINS lists)`,
          );
      }
      if (projectId !== null) await deps.projects.inOrg(principal, projectId);
      const projectKey = projectId ?? '';
      let customerId = (await store.customer(principal.orgId, projectKey))?.customer_id;
      if (!customerId) {
        const made = await deps.provider.createCustomer({ orgId: principal.orgId, projectId });
        customerId = await store.keepCustomer(principal.orgId, projectKey, made, now());
      }
      const url = await deps.provider.portalUrl(customerId, returnUrl ?? `${config.publicBaseUrl}/billing`);
      return { portal_url: url };
    },

    /**
     * Applies a provider webhook: verified, once per event id. A subscription event makes the
     * service ask the provider for the subscription's state now (events come in any order, and
     * several in one second), and that state is kept unless a later answer already was.
     */
    async providerEvent(body: Buffer, signature: string | undefined) {
      const event = deps.provider.verify(body, signature);
      // Asked before anything is recorded: if the provider does not answer, the event is refused
      // (500) and the provider delivers it again later.
      const current = event.subscription
        ? { ...(await deps.provider.subscription(event.subscription.subscriptionId)), at: now() }
        : null;
      const orgId = await transaction(db, async (trx) => {
        if (!(await store.claimEvent(trx, event.id, event.type, now()))) return null;
        if (!event.subscription || !current) return null;
        const owner = await store.customerOwner(trx, current.customerId);
        if (!owner) return null; // a customer made outside this service
        await store.setSubscription(trx, {
          id: event.subscription.subscriptionId,
          org_id: owner.org_id,
          customer_id: current.customerId,
          status: current.status,
          event_at: current.at,
        });
        return owner.org_id;
      });
      if (orgId) limits.forget(orgId);
      return { received: true as const, id: event.id };
    },

    /** Forgets provider event ids older than 30 days (providers redeliver for 3) and stale cache entries. */
    async sweep(): Promise<void> {
      limits.prune();
      await store.forgetEvents(now() - 30 * DAY_MS);
    },

    close: () => meter.close(),
  };
}
export type BillingService = ReturnType<typeof billingService>;
