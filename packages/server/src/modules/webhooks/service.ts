import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { EventBus, DomainEvent } from '../../bus/events.js';
import type { Config } from '../../config.js';
import type { Counters } from '../../counters/counter.js';
import { transaction } from '../../db/transaction.js';
import type { Db, Trx, WebhookDeliveriesTable, WebhooksTable } from '../../db/types.js';
import { BadRequest, NotFound, RateLimited } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import type { JobQueue } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import { seal } from '../../lib/seal.js';
import { DAY_MS, MINUTE_MS, iso, now } from '../../lib/time.js';
import { requireRole, type ProjectsService } from '../projects/service.js';
import { bareHost, isPrivateAddress } from '../../lib/address.js';
import { DELIVER_JOB, type DeliverPayload } from './jobs.js';
import { EVENT_TYPES, type EventPayload } from './schemas.js';
import type { WebhooksStore } from './store.js';

/** Events and log rows are kept this long (the default retry schedule spans about 8.5 hours). */
const RETENTION_MS = 30 * DAY_MS;
const SUBSCRIBABLE = new Set<string>(EVENT_TYPES);

/** The public shape of a webhook: never its secret. */
export function presentWebhook(w: WebhooksTable) {
  return {
    id: w.id,
    project_id: w.project_id,
    url: w.url,
    events: JSON.parse(w.events) as string[],
    is_active: w.is_active === 1,
    description: w.description,
    created_at: iso(w.created_at),
  };
}

/** A log row with its event's body (null when the event is no longer kept). */
export type DeliveryRow = WebhookDeliveriesTable & { body: string | null };

export function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    attempt: d.attempt,
    status: d.status as 'succeeded' | 'failed' | 'pending',
    response_status: d.response_status,
    error: d.error,
    duration_ms: d.duration_ms,
    created_at: iso(d.created_at),
    next_attempt_at: d.next_attempt_at === null ? null : iso(d.next_attempt_at),
    redelivery_of: d.redelivery_of,
    payload: d.body === null ? null : (JSON.parse(d.body) as EventPayload),
  };
}

/** The webhook payload, serialised once: every attempt sends (and signs) these bytes. */
/** What a delivery says of an event: a domain event, or the test event of `POST …/test`. */
type OutgoingEvent = Pick<DomainEvent, 'id' | 'at' | 'projectId' | 'sessionId'> & {
  type: string;
  data: unknown;
};

export function eventBody(e: OutgoingEvent): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    timestamp: iso(e.at),
    project_id: e.projectId,
    session_id: e.sessionId,
    data: e.data,
  });
}

/** Webhook registrations, their outbox on the event bus, and the delivery job. */
/**
 * How many deliveries a webhook may be sent again by hand per minute: each is an immediate POST to
 * the receiver, outside the retry schedule, so a loop of requests must not turn into a flood.
 */
export const REDELIVERIES_PER_MINUTE = 10;

export function webhooksService(deps: {
  config: Config;
  counters: Counters;
  db: Db;
  store: WebhooksStore;
  projects: ProjectsService;
  bus: EventBus;
  jobs: JobQueue;
}) {
  const { config, store, projects, jobs } = deps;
  const key = config.keys.webhooks;

  const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

  /**
   * https only, unless private URLs are allowed; a literal refused address or a `localhost` name is
   * refused at once. Other names are not resolved here (DNS may be briefly down): every attempt
   * resolves and checks them.
   */
  const checkUrl = (text: string): string => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new BadRequest('body.url must be an absolute URL');
    }
    const allowed = config.webhookAllowPrivateUrls ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol))
      throw new BadRequest(
        config.webhookAllowPrivateUrls
          ? 'body.url must use https or http'
          : 'body.url must use https (http only with WEBHOOK_ALLOW_PRIVATE_URLS)',
      );
    if (url.username || url.password) throw new BadRequest('body.url must not carry a user name or password');
    const host = bareHost(url);
    const literal = isIP(host) !== 0;
    if (
      !config.webhookAllowPrivateUrls &&
      ((literal && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))
    )
      throw new BadRequest(
        `body.url points at a private or reserved address (${host}); set WEBHOOK_ALLOW_PRIVATE_URLS to allow it`,
      );
    return url.toString();
  };

  const hookOf = async (principal: Principal, id: string): Promise<WebhooksTable> => {
    const project = await projects.scope(principal);
    const hook = await store.byId(project.id, id);
    if (!hook) throw new NotFound(`webhook not found: this project has no webhook ${id}`);
    return hook;
  };

  /** Outbox: the deliveries of an event commit with the change that caused it, or not at all. */
  deps.bus.onAnyTransactional(async (trx, event) => {
    if (!SUBSCRIBABLE.has(event.type)) return;
    await enqueueEvent(trx, event, null);
  });

  async function enqueueEvent(q: Db | Trx, event: OutgoingEvent, only: string | null): Promise<number> {
    const hooks = only
      ? [{ id: only }]
      : (await store.active(q, event.projectId)).filter((h) =>
          (JSON.parse(h.events) as string[]).includes(event.type),
        );
    if (hooks.length === 0) return 0;
    await store.insertEvent(q, {
      id: event.id,
      project_id: event.projectId,
      type: event.type,
      body: eventBody(event),
      created_at: event.at,
    });
    for (const h of hooks)
      await jobs.enqueue(q, DELIVER_JOB, { webhook_id: h.id, event_id: event.id } satisfies DeliverPayload, {
        groupKey: h.id,
      });
    return hooks.length;
  }

  return {
    async create(
      q: Db | Trx,
      principal: Principal,
      input: { url: string; events: string[]; description?: string | null; is_active?: boolean },
    ) {
      requireRole(principal, 'admin');
      // Within the caller's transaction: on SQLite a read outside it would wait for it.
      const project = await projects.scope(principal, { q });
      const secret = newSecret();
      const at = now();
      const row: WebhooksTable = {
        id: newId(),
        project_id: project.id,
        url: checkUrl(input.url),
        events: JSON.stringify(input.events),
        is_active: input.is_active === false ? 0 : 1,
        description: input.description ?? null,
        secret_sealed: seal(key, secret),
        created_at: at,
        updated_at: at,
      };
      await store.insert(q, row);
      return { ...presentWebhook(row), secret };
    },

    async list(principal: Principal, includeInactive: boolean, limit: number, cursor: string | undefined) {
      const project = await projects.scope(principal);
      return store.list(project.id, includeInactive, limit + 1, decodeCursor(cursor));
    },

    async get(principal: Principal, id: string) {
      return presentWebhook(await hookOf(principal, id));
    },

    async update(
      principal: Principal,
      id: string,
      patch: { url?: string; events?: string[]; is_active?: boolean; description?: string | null },
    ) {
      requireRole(principal, 'admin');
      const hook = await hookOf(principal, id);
      const changes: Partial<WebhooksTable> = { updated_at: now() };
      if (patch.url !== undefined) changes.url = checkUrl(patch.url);
      if (patch.events !== undefined) changes.events = JSON.stringify(patch.events);
      if (patch.is_active !== undefined) changes.is_active = patch.is_active ? 1 : 0;
      if (patch.description !== undefined) changes.description = patch.description;
      await store.update(hook.project_id, id, changes);
      return presentWebhook({ ...hook, ...changes });
    },

    async delete(principal: Principal, id: string) {
      requireRole(principal, 'admin');
      const hook = await hookOf(principal, id);
      const deleted = await transaction(deps.db, async (trx) => {
        if (!(await store.delete(trx, hook.project_id, id))) return false;
        // Pending deliveries of the hook would find it gone and be dropped; drop them now.
        await jobs.cancelGroup(trx, DELIVER_JOB, id);
        return true;
      });
      if (!deleted) throw new NotFound(`webhook not found: this project has no webhook ${id}`);
      return { id, deleted: true as const };
    },

    /** A new secret signs every delivery from now on, retries of earlier events included. */
    async rotateSecret(principal: Principal, id: string) {
      requireRole(principal, 'admin');
      const hook = await hookOf(principal, id);
      const secret = newSecret();
      await store.update(hook.project_id, id, { secret_sealed: seal(key, secret), updated_at: now() });
      return { ...presentWebhook(hook), secret };
    },

    /** Queues a `webhook.test` event for this webhook alone (paused or not), through the same queue. */
    async test(principal: Principal, id: string) {
      requireRole(principal, 'admin');
      const hook = await hookOf(principal, id);
      const event = {
        id: newId(),
        type: 'webhook.test',
        at: now(),
        projectId: hook.project_id,
        sessionId: null,
        data: { webhook_id: hook.id },
      };
      await transaction(deps.db, (trx) => enqueueEvent(trx, event, hook.id));
      return { event_id: event.id, type: 'webhook.test' as const };
    },

    async deliveries(
      principal: Principal,
      id: string,
      limit: number,
      cursor: string | undefined,
    ): Promise<DeliveryRow[]> {
      const hook = await hookOf(principal, id);
      const rows = await store.deliveries(hook.id, limit + 1, decodeCursor(cursor));
      const bodies = await store.eventBodies([...new Set(rows.map((r) => r.event_id))]);
      return rows.map((r) => ({ ...r, body: bodies.get(r.event_id) ?? null }));
    },

    /**
     * Sends a logged delivery's event once more, now: the same event id and bytes, signed anew.
     * The new attempt is logged at once as `pending` (the row answered) and sent by the delivery
     * job, once, paused or not; the original's scheduled retries are left as they are. At most
     * REDELIVERIES_PER_MINUTE per webhook.
     */
    async redeliver(principal: Principal, id: string, deliveryId: string): Promise<DeliveryRow> {
      requireRole(principal, 'admin');
      const hook = await hookOf(principal, id);
      const original = await store.delivery(hook.id, deliveryId);
      if (!original) throw new NotFound(`delivery not found: this webhook has no delivery ${deliveryId}`);
      const [body] = (await store.eventBodies([original.event_id])).values();
      if (body === undefined) throw new NotFound(`the event of delivery ${deliveryId} is no longer kept`);
      // Counted per webhook once there is something to send: a 404 takes nothing from the allowance.
      const counted = await deps.counters.hit(`redeliver:${hook.id}`, MINUTE_MS);
      if (counted.count > REDELIVERIES_PER_MINUTE)
        throw new RateLimited(
          `too many redeliveries to this webhook: at most ${REDELIVERIES_PER_MINUTE} per minute`,
          Math.ceil(counted.resetInMs / 1000),
        );
      const row: WebhookDeliveriesTable = {
        ...original,
        id: newId(),
        attempt: 1,
        status: 'pending',
        response_status: null,
        error: null,
        duration_ms: null,
        created_at: now(),
        next_attempt_at: null,
        redelivery_of: original.id,
      };
      await transaction(deps.db, async (trx) => {
        await store.insertDelivery(trx, row);
        // No group: a person is waiting for it, so it does not queue behind the webhook's backlog.
        const job: DeliverPayload = { webhook_id: hook.id, event_id: row.event_id, delivery_id: row.id };
        await jobs.enqueue(trx, DELIVER_JOB, job);
      });
      return { ...row, body };
    },

    sweep: () => store.sweep(Date.now() - RETENTION_MS),
  };
}
export type WebhooksService = ReturnType<typeof webhooksService>;
