import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';

/** Event types a webhook may subscribe to. */
export const EVENT_TYPES = [
  'session.created',
  'session.started',
  'session.ended',
  'recording.ready',
  'export.completed',
] as const;

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'receiver address: `https://…`; no user name or password in it. Unless the server runs with `WEBHOOK_ALLOW_PRIVATE_URLS=true` (which also allows plain `http`), a host may not be, or resolve to, an address that is not globally reachable: every special-purpose range of the IANA IPv4 and IPv6 registries (loopback, private, shared, link-local with the cloud metadata addresses, unspecified, documentation, benchmarking, reserved), multicast, and IPv6 outside 2000::/3. The IPv6 ranges that embed an IPv4 address (IPv4-compatible `::/96`, IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo in `2001::/23`) are refused whole, whatever the IPv4 address inside. A literal address or a `localhost` name is refused here with 400; a name is resolved and checked at every delivery attempt, and an attempt to a refused address fails without connecting.',
});
const Events = Type.Array(StringEnum(EVENT_TYPES), {
  minItems: 1,
  uniqueItems: true,
  description: 'the event types to receive, at least one, each once',
});
const Description = Nullable(Type.String({ maxLength: 500 }), {
  description: 'free text, up to 500 characters',
});

const fields = {
  id: Type.String(),
  project_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  description: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
};

export const Webhook = Type.Object(fields);
export const WebhookWithSecret = Type.Object({
  ...fields,
  secret: Type.String({
    description:
      'shown here only: `whsec_` + base64 of 32 random bytes. `X-Service-Signature` is HMAC-SHA256 keyed with this whole string; the Standard Webhooks `webhook-signature` is keyed with the bytes of its base64 part',
  }),
});

export const CreateWebhook = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    is_active: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const UpdateWebhook = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    is_active: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookParams = Type.Object({ webhookId: Type.String({ format: 'uuid' }) });
export const WebhookListQuery = Type.Object({
  include_inactive: Type.Boolean({ default: false, description: 'also list paused webhooks' }),
});

export const Delivery = Type.Object({
  id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  attempt: Type.Integer({ description: '1 for the first attempt at this event' }),
  status: StringEnum(['succeeded', 'failed', 'pending'] as const, {
    description:
      'what happened to this attempt: `succeeded` (the receiver answered 2xx) or `failed` (anything else; `next_attempt_at` says when the next attempt is scheduled, null when none remains). `pending` stands only for an attempt not yet made: the log lists attempts made, so its rows are `succeeded` or `failed`.',
  }),
  response_status: Nullable(Type.Integer(), {
    description: "the receiver's HTTP status, null when none came",
  }),
  error: Nullable(Type.String(), { description: 'why the attempt failed' }),
  duration_ms: Nullable(Type.Integer()),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
});

export const TestSent = Type.Object({
  event_id: Type.String(),
  type: Type.Literal('webhook.test'),
});
export const WebhookDeleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
