import { createServer, type Server } from 'node:http';
import Stripe from 'stripe';

/** A request the local Stripe received: method, path and its form-encoded parameters. */
export interface StripeRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  idempotencyKey: string | undefined;
}

/**
 * A local HTTP server speaking the part of Stripe's API the service uses (customers, billing
 * portal sessions), recording every request: the real `stripe` client talks to it, no network.
 * A repeated Idempotency-Key gets the first answer again, as Stripe does.
 */
export async function localStripe(): Promise<{
  url: string;
  requests: StripeRequest[];
  /** the subscriptions it holds, by id: what a retrieve answers (set by the test) */
  subscriptions: Map<string, { customer: string; status: string }>;
  close(): Promise<void>;
}> {
  const requests: StripeRequest[] = [];
  const subscriptions = new Map<string, { customer: string; status: string }>();
  const answered = new Map<string, unknown>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const params = new URLSearchParams(body);
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      requests.push({ method: req.method!, path: req.url!, params, idempotencyKey });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${n}` });
        res.end(JSON.stringify(json));
      };
      if (req.headers.authorization !== 'Bearer sk_test_local')
        return send(401, { error: { type: 'authentication_error', message: 'Invalid API Key provided' } });
      if (idempotencyKey && answered.has(idempotencyKey)) return send(200, answered.get(idempotencyKey));
      n += 1;
      let answer: unknown;
      const sub = req.method === 'GET' && req.url?.match(/^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/);
      if (sub) {
        const held = subscriptions.get(sub[1]!);
        if (!held)
          return send(404, {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: `No such subscription: '${sub[1]}'`,
            },
          });
        return send(200, { id: sub[1], object: 'subscription', ...held });
      }
      if (req.method === 'POST' && req.url === '/v1/customers')
        answer = { id: `cus_local${n}`, object: 'customer', metadata: Object.fromEntries(params) };
      else if (req.method === 'POST' && req.url === '/v1/billing_portal/sessions')
        answer = {
          id: `bps_local${n}`,
          object: 'billing_portal.session',
          customer: params.get('customer'),
          return_url: params.get('return_url'),
          url: `https://billing.stripe.test/p/session_${n}`,
        };
      else
        return send(404, {
          error: {
            type: 'invalid_request_error',
            message: `Unrecognized request URL (${req.method}: ${req.url})`,
          },
        });
      if (idempotencyKey) answered.set(idempotencyKey, answer);
      send(200, answer);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    subscriptions,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

export const STRIPE_WEBHOOK_SECRET = 'whsec_local_test_secret';

/** A subscription event body and its `Stripe-Signature`, made with the `stripe` package's test helper. */
export function signedSubscriptionEvent(input: {
  /** left out of the body when undefined */
  id: string | undefined;
  type: string;
  customer: string;
  subscription: string;
  status: string;
  createdS: number;
  secret?: string;
}): { body: string; signature: string } {
  const body = JSON.stringify({
    id: input.id,
    object: 'event',
    api_version: '2025-01-27',
    created: input.createdS,
    livemode: false,
    type: input.type,
    data: {
      object: {
        id: input.subscription,
        object: 'subscription',
        customer: input.customer,
        status: input.status,
      },
    },
  });
  const signature = new Stripe('sk_test_local').webhooks.generateTestHeaderString({
    payload: body,
    secret: input.secret ?? STRIPE_WEBHOOK_SECRET,
  });
  return { body, signature };
}
