import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { KEY_OR_USER } from '../../http/principal.js';
import { ProjectParams } from '../../http/shared-schemas.js';
import {
  BillingLimits,
  BillingSummary,
  DailyQuery,
  DailyUsage,
  PortalRequest,
  PortalResponse,
  ProviderAck,
  UsageQuery,
  UsageResponse,
} from './schemas.js';
import { presentRecord, type BillingService } from './service.js';

/** What the billing routes need. */
export interface BillingRoutesOptions {
  /** the public base URL (next-page links) */
  baseUrl: string;
  billing: BillingService;
}

const tags = ['Usage and billing'];
const usageQuery = Type.Composite([PageQuery, UsageQuery]);
const METERING = `Streaming minutes are participant-minutes: each live connection (not replay) accrues from join to leave, fractionally, and is recorded per session when the participant leaves and every \`USAGE_FLUSH_INTERVAL_S\` (default 30 s) while connected, so a crash loses at most that much. Stored bytes are the recorded streams plus completed export files, recorded as changes (\`storage_bytes\` records, negative for deletions) when they change: while recording (same interval), at a session's end, after an export, a redaction, a session's deletion.`;
const BLOCKING = `Over either free-tier limit (\`FREE_TIER_STREAMING_MINUTES\` per calendar month UTC, \`FREE_TIER_STORAGE_GB\` stored, 1 GB = 10⁹ bytes; exceeding means strictly more) and without an active subscription, session creation and export enqueue answer 503 \`USAGE_LIMITS_EXCEEDED\`, read from figures at most 5 seconds old. Sessions already under way can still be joined and rejoined, but a session that has not started cannot (connection tokens and \`/ws\` answer 503), and live media is refused once the stored bytes reach the free tier's storage (chat is still recorded); replay and downloads keep working.`;

/** Usage, the billing summary and limits, the billing portal and the payment provider's webhook. */
export const billingRoutes: FastifyPluginAsyncTypebox<BillingRoutesOptions> = async (app, deps) => {
  const { billing } = deps;
  /** One page of records and the totals, for the organisation or one project. */
  async function usage(
    request: FastifyRequest,
    reply: FastifyReply,
    query: Static<typeof usageQuery>,
    scope: { projectId?: string } = {},
  ) {
    const { rows, summary } = await billing.usage(request.principal!, query, scope);
    const page = paginate(rows, query.limit, request, reply, deps.baseUrl);
    return ok({ summary, records: page.map(presentRecord) });
  }

  app.get(
    '/v1/usage',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getUsage',
        summary: "The organisation's usage",
        description: `Usage records of every project of the caller's organisation (an API key acts for its whole organisation here, as on the other management routes), newest first and paged, with totals over the same filters. Minutes are dated when written and split at midnight UTC, so each record falls in the day and month it was used. ${METERING} 400 naming the parameter for a malformed \`from\`, \`to\` or \`session_id\`, or \`from\` not before \`to\`.`,
        querystring: usageQuery,
        response: { 200: okResponse('A page of usage records, with the totals.', UsageResponse) },
      },
    },
    (request, reply) => usage(request, reply, request.query),
  );

  app.get(
    '/v1/projects/:projectId/usage',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getProjectUsage',
        summary: "A project's usage",
        description: `As \`GET /v1/usage\`, for one project of the caller's organisation (404 for any other). ${METERING}`,
        params: ProjectParams,
        querystring: usageQuery,
        response: { 200: okResponse('A page of usage records, with the totals.', UsageResponse) },
      },
    },
    (request, reply) => usage(request, reply, request.query, { projectId: request.params.projectId }),
  );

  app.get(
    '/v1/usage/daily',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getDailyUsage',
        summary: 'Daily usage totals',
        description:
          "One entry per UTC day from `from`'s day to `to`'s day (default the last 30 days), oldest first, with every day present: the participant-minutes recorded that day and the bytes stored at its end. For charts: nothing to sum on the client. At most 366 days; 400 naming the parameter otherwise.",
        querystring: DailyQuery,
        response: { 200: okResponse('One entry per day, oldest first.', DailyUsage) },
      },
    },
    async (request) => ok(await billing.daily(request.principal!, request.query)),
  );

  app.get(
    '/v1/billing/summary',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getBillingSummary',
        summary: 'This month: usage and cost',
        description:
          "The organisation's current calendar month (UTC): participant-minutes, bytes stored now, and their cost at `PRICE_PER_STREAMING_MINUTE` and `PRICE_PER_GB_MONTH` (USD), each part rounded to cents and `total_due` their sum. The free tier is an allowance before a subscription is needed, not a discount: the costs count every minute and byte. Read fresh, not cached.",
        response: { 200: okResponse("This month's usage and cost.", BillingSummary) },
      },
    },
    async (request) => ok(await billing.summary(request.principal!)),
  );

  app.get(
    '/v1/billing/limits',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'getBillingLimits',
        summary: 'Free-tier limits and whether the organisation is blocked',
        description: `${BLOCKING} \`status_message\` tells a person what to do when blocked (and notes usage beyond the free tier under a subscription); empty otherwise. Read fresh, not cached.`,
        response: { 200: okResponse('The limits and where the organisation stands.', BillingLimits) },
      },
    },
    async (request) => ok(await billing.limits(request.principal!)),
  );

  const portalErrors = `403 for a member (owners, admins and API keys only); 409 \`CONFLICT\` "billing is not configured" with \`BILLING_PROVIDER=none\`; 400 naming \`return_url\` when it is not an http(s) address, or its origin is neither \`PUBLIC_BASE_URL\`'s nor one \`BILLING_RETURN_ORIGINS\` lists; 500 with the provider's message when it refuses or does not answer.`;
  app.post(
    '/v1/billing/portal',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'openBillingPortal',
        summary: "Open the billing portal for the organisation's customer",
        description: `Makes the organisation's customer at the payment provider on first use (one per organisation, kept), then a portal session where a person adds a payment method and subscribes. Redirect them to \`portal_url\`. ${portalErrors}`,
        body: Type.Optional(PortalRequest),
        response: { 200: okResponse('The portal session to send the person to.', PortalResponse) },
      },
    },
    async (request) => ok(await billing.portal(request.principal!, null, request.body?.return_url)),
  );

  app.post(
    '/v1/projects/:projectId/billing/portal',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags,
        operationId: 'openProjectBillingPortal',
        summary: "Open the billing portal for a project's own customer",
        description: `As \`POST /v1/billing/portal\`, for a customer of the project's own (one per project, kept), so that a project can be paid for separately; its subscription lifts the organisation's limits too. 404 for a project outside the organisation. ${portalErrors}`,
        params: ProjectParams,
        body: Type.Optional(PortalRequest),
        response: { 200: okResponse('The portal session to send the person to.', PortalResponse) },
      },
    },
    async (request) =>
      ok(await billing.portal(request.principal!, request.params.projectId, request.body?.return_url)),
  );

  // The provider signs the raw bytes: this route alone takes its body unparsed.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    raw.post(
      '/v1/billing/stripe/webhook',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'receiveStripeEvent',
          summary: "Stripe's webhook",
          description:
            "For Stripe only: point a webhook endpoint of your Stripe account here with the `customer.subscription.*` events. The body is verified with the `Stripe-Signature` header and `STRIPE_WEBHOOK_SECRET` (400 when it does not verify, or the header is missing; 400 naming the field when a verified event has no `id` or `type`, or a subscription event no `data.object.id`); each event is applied once by its id (a redelivery answers 200 and changes nothing). For a subscription event the service asks Stripe for the subscription's current state rather than trusting the event's copy, since events arrive out of order and several in one second; when Stripe does not answer, the event gets 500 and Stripe delivers it again. Subscription statuses `active`, `trialing` and `past_due` lift the free-tier limits of the customer's organisation within seconds. 409 with `BILLING_PROVIDER=none`.",
          response: { 200: okResponse('The event was applied (or had been already).', ProviderAck) },
          docs: {
            body: Type.Object(
              {},
              {
                title: 'StripeEvent',
                description: 'a Stripe event, verified over its raw bytes with `Stripe-Signature`',
              },
            ),
          },
        },
      },
      async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers['stripe-signature'];
        return ok(await billing.providerEvent(body, typeof signature === 'string' ? signature : undefined));
      },
    );
  });
};
