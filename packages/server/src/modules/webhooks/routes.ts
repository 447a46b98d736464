import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { KEY_OR_USER } from '../../http/principal.js';
import type { WebhooksService } from './service.js';
import type { Idempotency } from '../../http/idempotency.js';
import {
  CreateWebhook,
  Delivery,
  DeliveryParams,
  TestSent,
  UpdateWebhook,
  Webhook,
  WebhookDeleted,
  WebhookListQuery,
  WebhookParams,
  WebhookWithSecret,
  WEBHOOK_EVENT_DOCS,
} from './schemas.js';
import { REDELIVERIES_PER_MINUTE, presentDelivery, presentWebhook } from './service.js';

const SCOPE =
  ' An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation. Changes need the admin role (API keys have it).';

const DELIVERY_RULES = `

Delivery: a POST of \`{ id, type, timestamp, project_id, session_id, data }\` with \`X-Service-Signature\` (lowercase hex HMAC-SHA256 of the raw body, keyed with the whole \`whsec_…\` secret), \`X-Service-Event-Id\`, \`X-Service-Timestamp\` (Unix seconds of this attempt), and the Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">\` keyed with the bytes of the secret's base64 part. Only a 2xx answer within \`WEBHOOK_TIMEOUT_MS\` (5 s) is success; redirects are not followed; at most 64 KiB of the answer is read. A failed attempt is retried after each delay of \`WEBHOOK_RETRY_DELAYS_S\` (2, 4, 8 … minutes: 9 attempts by default) with the same event id and the same bytes; retries are kept in the database and survive restarts. Any logged delivery can be sent once more by hand (\`redeliverWebhookDelivery\`). A paused or deleted webhook, or one no longer subscribed to the type, gets no further attempts of pending events. The address the URL resolves to is checked at every attempt.`;

/** What the webhooks routes need. */
export interface WebhooksRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  idempotency: Idempotency;
  webhooks: WebhooksService;
}

/** Webhooks. */
export const webhooksRoutes: FastifyPluginAsyncTypebox<WebhooksRoutesOptions> = async (app, deps) => {
  const { webhooks } = deps;
  const tags = ['Webhooks'];
  const base = deps.baseUrl;

  app.get(
    '/v1/webhooks',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List webhooks',
        description: `The active webhooks of the project, oldest first; \`include_inactive=true\` lists paused ones too. Never a secret.${SCOPE}`,
        querystring: Type.Composite([PageQuery, WebhookListQuery]),
        response: { 200: okResponse('A page of webhooks, oldest first.', Type.Array(Webhook)) },
      },
    },
    async (request, reply) => {
      const { limit, cursor, include_inactive } = request.query;
      const rows = await webhooks.list(request.principal!, include_inactive, limit, cursor);
      return ok(paginate(rows, limit, request, reply, base).map(presentWebhook));
    },
  );

  app.post(
    '/v1/webhooks',
    {
      config: { auth: KEY_OR_USER, idempotent: true, freeText: ['body.description'] },
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Create a webhook',
        description: `Registers a receiver for the listed event types of the project. The \`secret\` is in this response only.${SCOPE}${DELIVERY_RULES}`,
        body: CreateWebhook,
        response: {
          201: okResponse('The new webhook, with its signing secret (shown this once).', WebhookWithSecret),
        },
        // What a webhook receives: the document's `webhooks`, one entry per event type.
        docs: { webhooks: WEBHOOK_EVENT_DOCS },
      },
    },
    async (request, reply) =>
      deps.idempotency.run(request, reply, async (trx) => ({
        status: 201,
        body: ok(await webhooks.create(trx, request.principal!, request.body)),
      })),
  );

  app.get(
    '/v1/webhooks/:webhookId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Get a webhook',
        params: WebhookParams,
        response: { 200: okResponse('The webhook.', Webhook) },
      },
    },
    async (request) => ok(await webhooks.get(request.principal!, request.params.webhookId)),
  );

  app.patch(
    '/v1/webhooks/:webhookId',
    {
      config: { auth: KEY_OR_USER, freeText: ['body.description'] },
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Update, pause or resume a webhook',
        description:
          'Changes any of `url`, `events`, `is_active` (false pauses: pending deliveries are dropped and new events are not queued; true resumes) and `description`. At least one field.',
        params: WebhookParams,
        body: UpdateWebhook,
        response: { 200: okResponse('The webhook as changed.', Webhook) },
      },
    },
    async (request) => ok(await webhooks.update(request.principal!, request.params.webhookId, request.body)),
  );

  app.delete(
    '/v1/webhooks/:webhookId',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        description: 'Deletes the webhook, its pending deliveries and its delivery log.',
        params: WebhookParams,
        response: { 200: okResponse('The webhook was deleted.', WebhookDeleted) },
      },
    },
    async (request) => ok(await webhooks.delete(request.principal!, request.params.webhookId)),
  );

  app.post(
    '/v1/webhooks/:webhookId/rotate-secret',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'Issues a new secret, shown in this response only. Every attempt from now on, retries of earlier events included, is signed with it; the old one stops at once.',
        params: WebhookParams,
        response: {
          200: okResponse('The webhook with its new secret (shown this once).', WebhookWithSecret),
        },
      },
    },
    async (request) => ok(await webhooks.rotateSecret(request.principal!, request.params.webhookId)),
  );

  app.post(
    '/v1/webhooks/:webhookId/test',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'sendWebhookTest',
        summary: 'Send a test event',
        description:
          'Queues a `webhook.test` event (`session_id` null, `data: { webhook_id }`) for this webhook alone, paused or not, delivered and retried like any other; its attempts appear in the delivery log.',
        params: WebhookParams,
        response: { 202: okResponse('Queued: the test event will be delivered like any other.', TestSent) },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(await webhooks.test(request.principal!, request.params.webhookId));
    },
  );

  app.get(
    '/v1/webhooks/:webhookId/deliveries',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'Delivery log',
        description:
          'Every attempt at delivering an event to this webhook, newest first: one row per attempt, with the answer or the error, its duration, when the next attempt is due, and the `payload` sent (the event body, the same bytes on every attempt at it). Redeliveries asked for by hand are rows of their own, marked by `redelivery_of`. Kept 30 days.',
        params: WebhookParams,
        querystring: PageQuery,
        response: { 200: okResponse('A page of delivery attempts, newest first.', Type.Array(Delivery)) },
      },
    },
    async (request, reply) => {
      const { limit, cursor } = request.query;
      const rows = await webhooks.deliveries(request.principal!, request.params.webhookId, limit, cursor);
      return ok(paginate(rows, limit, request, reply, base).map(presentDelivery));
    },
  );

  app.post(
    '/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again',
        description: `Sends the delivery's event to this webhook once more, now: the same event id (\`X-Service-Event-Id\`, \`webhook-id\`) and the same body bytes, signed with the current secret at a new \`X-Service-Timestamp\`, paused or not. Answers 202 with the new row of the delivery log: \`status\` \`pending\`, \`redelivery_of\` the delivery asked for; it becomes \`succeeded\` or \`failed\` once sent (read it in \`listWebhookDeliveries\`). It is one attempt: a failure is not retried. The original's schedule is untouched: its pending retries still happen when due. 404 names what is unknown: the webhook (in this project), or the delivery (of this webhook). At most ${REDELIVERIES_PER_MINUTE} redeliveries per webhook per minute (the requests answered 404 do not count); past it, 429 \`RATE_LIMITED\` with \`Retry-After\`, and nothing is sent or logged.`,
        params: DeliveryParams,
        response: {
          202: okResponse('Queued: the new attempt, logged as pending, is being sent.', Delivery),
        },
      },
    },
    async (request, reply) => {
      const { webhookId, deliveryId } = request.params;
      const row = await webhooks.redeliver(request.principal!, webhookId, deliveryId);
      reply.code(202);
      return ok(presentDelivery(row));
    },
  );
};
