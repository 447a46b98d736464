import type { Config } from '../../config.js';
import type { JobKind } from '../../jobs/queue.js';
import type { Metrics } from '../../lib/metrics.js';
import { newId } from '../../lib/ids.js';
import { unseal } from '../../lib/seal.js';
import { now } from '../../lib/time.js';
import { post, sign, type Attempt } from './deliver.js';
import type { WebhooksStore } from './store.js';

/** One delivery attempt of one event to one webhook. */
export const DELIVER_JOB = 'webhook.deliver';

export interface DeliverPayload {
  webhook_id: string;
  event_id: string;
}

/** What a delivery attempt records in the log: the attempt, and the type of its event. */
type Delivered = { attempt: Attempt; type: string };

/**
 * The webhooks module's job: a delivery attempt, signed, sent to the address checked at this
 * attempt, and written to the delivery log in the transaction that settles it.
 */
export function deliveryJob(deps: {
  config: Config;
  store: WebhooksStore;
  /** counts attempts by outcome, and the latency of successful deliveries */
  metrics?: Metrics | null;
}): JobKind<DeliverPayload, Delivered> {
  const { config, store } = deps;
  const key = config.keys.webhooks;
  // Webhooks whose last attempt here failed: they get fewer attempts in flight (see perGroup).
  const failing = new Set<string>();
  return {
    kind: DELIVER_JOB,
    // Attempts mostly wait on the network: many may be in flight at little cost.
    concurrency: 256,
    perGroup: (hookId) => (failing.has(hookId) ? 2 : 8),
    // A failing webhook's queued events wait 10 s at a time rather than crowd the queue's head.
    deferGroup: (hookId) => (failing.has(hookId) ? 10_000 : undefined),
    leaseMs: config.webhookTimeoutMs + 30_000,
    retryDelayMs: (attempt) => {
      const s = config.webhookRetryDelaysS[attempt - 1];
      return s === undefined ? undefined : Math.round(s * 1000);
    },
    async run(job, signal) {
      const [hook, event] = await Promise.all([
        store.find(job.payload.webhook_id),
        store.event(job.payload.event_id),
      ]);
      // Deleted or paused since, or no longer subscribed: nothing to send, nothing to log.
      if (!hook || !event) return { ok: true };
      const isTest = event.type === 'webhook.test';
      if (!isTest && (hook.is_active !== 1 || !(JSON.parse(hook.events) as string[]).includes(event.type)))
        return { ok: true };
      const signed = sign(
        unseal(key, hook.secret_sealed),
        job.payload.event_id,
        Buffer.from(event.body),
        Date.now(),
      );
      const attempt = await post(hook.url, signed, {
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivateUrls,
        signal,
      });
      if (attempt.ok) failing.delete(hook.id);
      else failing.add(hook.id);
      if (deps.metrics) {
        deps.metrics.webhookDeliveries.inc({ outcome: attempt.ok ? 'succeeded' : 'failed' });
        if (attempt.ok)
          deps.metrics.webhookLatency.observe(Math.max(0, Date.now() - event.created_at) / 1000);
      }
      return { ok: attempt.ok, error: attempt.error ?? undefined, detail: { attempt, type: event.type } };
    },
    async settle(trx, job, outcome, nextRunAt) {
      const detail = outcome.detail;
      if (!detail) return;
      await store.insertDelivery(trx, {
        id: newId(),
        webhook_id: job.payload.webhook_id,
        event_id: job.payload.event_id,
        event_type: detail.type,
        attempt: job.attempt,
        // A row is one attempt made: what happened to it. Whether another follows is next_attempt_at.
        status: outcome.ok ? 'succeeded' : 'failed',
        response_status: detail.attempt.responseStatus,
        error: detail.attempt.error,
        duration_ms: detail.attempt.durationMs,
        created_at: now(),
        next_attempt_at: nextRunAt,
      });
    },
  };
}
