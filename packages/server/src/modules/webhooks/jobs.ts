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
  /**
   * A redelivery: its row in the log, written `pending` when it was asked for. It is sent once,
   * paused or not, and never retried (a worker that died mid-attempt is the one exception).
   */
  delivery_id?: string;
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
      const again = job.payload.delivery_id !== undefined;
      // Deleted since (a redelivery's row went with it): nothing to send, nothing to log.
      if (!hook) return { ok: true };
      // Its event forgotten (kept while the log refers to it): a redelivery's row says so.
      if (!event)
        return again ? { ok: false, final: true, error: 'the event is no longer kept' } : { ok: true };
      // Paused since, or no longer subscribed: nothing to send, nothing to log. A test event, or a
      // delivery sent again at a person's request, goes out all the same.
      const isTest = event.type === 'webhook.test';
      if (
        !isTest &&
        !again &&
        (hook.is_active !== 1 || !(JSON.parse(hook.events) as string[]).includes(event.type))
      )
        return { ok: true };
      const signed = await sign(
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
      return {
        ok: attempt.ok,
        error: attempt.error ?? undefined,
        // A redelivery is one attempt: its failure is final.
        final: again && !attempt.ok,
        detail: { attempt, type: event.type },
      };
    },
    async settle(trx, job, outcome, nextRunAt) {
      const detail = outcome.detail;
      const redelivery = job.payload.delivery_id;
      if (redelivery !== undefined) {
        // Its row was logged when asked for: now it says what happened. An attempt that could not
        // be made (the run threw) stays pending while it is retried, and fails with the last error.
        if (detail)
          await store.settleDelivery(trx, redelivery, {
            status: outcome.ok ? 'succeeded' : 'failed',
            response_status: detail.attempt.responseStatus,
            error: detail.attempt.error,
            duration_ms: detail.attempt.durationMs,
          });
        else if (!outcome.ok && nextRunAt === null)
          await store.settleDelivery(trx, redelivery, {
            status: 'failed',
            response_status: null,
            error: outcome.error ?? 'the attempt could not be made',
            duration_ms: null,
          });
        return;
      }
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
        redelivery_of: null,
      });
    },
  };
}
