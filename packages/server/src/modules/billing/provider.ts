import Stripe from 'stripe';
import type { Config } from '../../config.js';
import { ApiError, BadRequest, Conflict } from '../../http/errors.js';

/** Who pays: the organisation, or one project of it (a customer of its own at the provider). */
export interface BillingOwner {
  orgId: string;
  projectId: string | null;
}

/** A verified provider event: its id (applied once), type, and the subscription it is about. */
export interface ProviderEvent {
  id: string;
  type: string;
  subscription: { subscriptionId: string } | null;
}

/** The payment provider behind the billing routes. */
export interface BillingProvider {
  readonly name: 'none' | 'stripe';
  /** Creates the owner's customer at the provider; returns its id. */
  createCustomer(owner: BillingOwner): Promise<string>;
  /** A portal address where the customer manages payment and subscription. */
  portalUrl(customerId: string, returnUrl: string): Promise<string>;
  /** Checks the signature of a webhook body and reads it; 400 when it does not verify. */
  verify(body: Buffer, signature: string | undefined): ProviderEvent;
  /**
   * A subscription as the provider holds it now. Events arrive in any order, several in the same
   * second: the state is asked for rather than taken from the event.
   */
  subscription(id: string): Promise<{ customerId: string; status: string }>;
}

const notConfigured = () => new Conflict('billing is not configured (BILLING_PROVIDER=none)');

/** BILLING_PROVIDER=none: usage is metered and limits apply, but there is nowhere to pay. */
export const noProvider: BillingProvider = {
  name: 'none',
  createCustomer: () => Promise.reject(notConfigured()),
  portalUrl: () => Promise.reject(notConfigured()),
  verify: () => {
    throw notConfigured();
  },
  subscription: () => Promise.reject(notConfigured()),
};

/** The provider did not answer as it should: 500 with what it said, so a person can act on it. */
class ProviderFailed extends ApiError {
  constructor(message: string) {
    super(500, 'SERVER_ERROR', `the payment provider refused or did not answer: ${message}`);
  }
}

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
]);

/**
 * Stripe, through its official client. `apiUrl` points the client at another address speaking
 * Stripe's API (a proxy, or a local stand-in in tests); by default it is Stripe's own.
 */
export function stripeProvider(options: {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string | null;
}): BillingProvider {
  const at = options.apiUrl ? new URL(options.apiUrl) : null;
  const stripe = new Stripe(options.secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    telemetry: false,
    ...(at
      ? {
          host: at.hostname,
          port: at.port || (at.protocol === 'https:' ? 443 : 80),
          protocol: at.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  const fail = (err: unknown): never => {
    throw new ProviderFailed(err instanceof Error ? err.message : String(err));
  };
  return {
    name: 'stripe',
    async createCustomer(owner) {
      const projectKey = owner.projectId ?? '';
      const customer = await stripe.customers
        .create(
          {
            description: owner.projectId
              ? `vss organisation ${owner.orgId}, project ${owner.projectId}`
              : `vss organisation ${owner.orgId}`,
            metadata: { org_id: owner.orgId, ...(owner.projectId ? { project_id: owner.projectId } : {}) },
          },
          // Two first portal requests at once make one customer, not two.
          { idempotencyKey: `vss-customer-${owner.orgId}-${projectKey}` },
        )
        .catch(fail);
      return customer.id;
    },
    async portalUrl(customerId, returnUrl) {
      const session = await stripe.billingPortal.sessions
        .create({ customer: customerId, return_url: returnUrl })
        .catch(fail);
      return session.url;
    },
    verify(body, signature) {
      if (!signature) throw new BadRequest('the Stripe-Signature header is required');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(body, signature, options.webhookSecret);
      } catch (err) {
        throw new BadRequest(`Stripe-Signature does not verify: ${(err as Error).message}`);
      }
      // Signed yet malformed: each event is applied once by its id, so one without is refused.
      const fields = event as unknown as Record<string, unknown>;
      if (typeof fields.id !== 'string' || fields.id === '' || fields.id.length > 255)
        throw new BadRequest('the event needs an `id`: a string of 1 to 255 characters');
      if (typeof fields.type !== 'string' || fields.type === '')
        throw new BadRequest('the event needs a `type`: a string');
      let subscription: { subscriptionId: string } | null = null;
      if (SUBSCRIPTION_EVENTS.has(event.type)) {
        const id = (event.data as { object?: { id?: unknown } } | undefined)?.object?.id;
        if (typeof id !== 'string' || id === '')
          throw new BadRequest('a subscription event needs `data.object.id`: the subscription id');
        subscription = { subscriptionId: id };
      }
      return { id: event.id, type: event.type, subscription };
    },
    async subscription(id) {
      const sub = await stripe.subscriptions.retrieve(id).catch(fail);
      return {
        customerId: typeof sub.customer === 'string' ? sub.customer : sub.customer.id,
        status: sub.status,
      };
    },
  };
}

/** The payment provider BILLING_PROVIDER names. */
export function billingProvider(
  config: Pick<Config, 'billingProvider' | 'stripeSecretKey' | 'stripeWebhookSecret' | 'stripeApiUrl'>,
): BillingProvider {
  if (config.billingProvider === 'none') return noProvider;
  return stripeProvider({
    secretKey: config.stripeSecretKey!,
    webhookSecret: config.stripeWebhookSecret!,
    apiUrl: config.stripeApiUrl,
  });
}
