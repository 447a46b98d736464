import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { EventType as DomainEventType } from '../../bus/events.js';
import { emptyDoc, type WebhookDoc } from '../../http/openapi-docs.js';
import { Nullable, StringEnum } from '../../http/schema-types.js';

/** Event types a webhook may subscribe to: domain events (the compiler checks each is one). */
export const EVENT_TYPES = [
  'session.created',
  'session.started',
  'session.ended',
  'recording.ready',
  'export.completed',
  'participant.joined',
  'participant.left',
  'recording.failed',
  'export.failed',
] as const satisfies readonly DomainEventType[];
export type EventType = (typeof EVENT_TYPES)[number];

const EventType = Type.Unsafe<EventType>({ ...StringEnum(EVENT_TYPES), title: 'WebhookEventType' });
/** The same schema, read back from storage as text (every stored type was checked on the way in). */
const StoredEventType = Type.Unsafe<string>({ ...StringEnum(EVENT_TYPES), title: 'WebhookEventType' });

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'receiver address: `https://…`; no user name or password in it. Unless the server runs with `WEBHOOK_ALLOW_PRIVATE_URLS=true` (which also allows plain `http`), a host may not be, or resolve to, an address that is not globally reachable: every special-purpose range of the IANA IPv4 and IPv6 registries (loopback, private, shared, link-local with the cloud metadata addresses, unspecified, documentation, benchmarking, reserved), multicast, and IPv6 outside 2000::/3. The IPv6 ranges that embed an IPv4 address (IPv4-compatible `::/96`, IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo in `2001::/23`) are refused whole, whatever the IPv4 address inside. A literal address or a `localhost` name is refused here with 400; a name is resolved and checked at every delivery attempt, and an attempt to a refused address fails without connecting.',
});
const Events = Type.Array(EventType, {
  minItems: 1,
  uniqueItems: true,
  description: 'the event types to receive, at least one, each once',
});
const Description = Nullable(Type.String({ maxLength: 500 }), {
  description:
    'free text, up to 500 characters; tab, line feed and carriage return are kept, other control characters refused',
});

const fields = {
  id: Type.String(),
  project_id: Type.String(),
  url: Type.String(),
  events: Type.Array(StoredEventType),
  is_active: Type.Boolean(),
  description: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
};

export const Webhook = Type.Object(fields, { title: 'Webhook' });
export const WebhookWithSecret = Type.Object(
  {
    ...fields,
    secret: Type.String({
      description:
        'shown here only: `whsec_` + base64 of 32 random bytes. `X-Service-Signature` is HMAC-SHA256 keyed with this whole string; the Standard Webhooks `webhook-signature` is keyed with the bytes of its base64 part',
    }),
  },
  { title: 'WebhookWithSecret' },
);

export const CreateWebhook = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    is_active: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false, title: 'CreateWebhookRequest' },
);

export const UpdateWebhook = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    is_active: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, minProperties: 1, title: 'UpdateWebhookRequest' },
);

export const WebhookParams = Type.Object({ webhookId: Type.String({ format: 'uuid' }) });
export const DeliveryParams = Type.Object({
  webhookId: Type.String({ format: 'uuid' }),
  deliveryId: Type.String({ format: 'uuid', description: 'a row of the delivery log (its `id`)' }),
});
export const WebhookListQuery = Type.Object({
  include_inactive: Type.Boolean({ default: false, description: 'also list paused webhooks' }),
});

/** A delivery's body, any type (`webhook.test` included): what `eventBody` in service.ts writes. */
const EventPayload = Type.Object(
  {
    id: Type.String({ description: 'the event id (`X-Service-Event-Id`, `webhook-id`)' }),
    type: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    project_id: Type.String(),
    session_id: Nullable(Type.String()),
    data: Type.Unknown({ description: 'by type: see the `webhooks` section of this document' }),
  },
  { title: 'WebhookEventPayload' },
);
export type EventPayload = Static<typeof EventPayload>;

export const Delivery = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String(),
    event_type: Type.String(),
    attempt: Type.Integer({
      description:
        '1 for the first attempt at this event, counting up with its retries; a redelivery is an attempt of its own, numbered 1',
    }),
    status: StringEnum(['succeeded', 'failed', 'pending'] as const, {
      description:
        'what happened to this attempt: `succeeded` (the receiver answered 2xx) or `failed` (anything else; `next_attempt_at` says when the next attempt is scheduled, null when none remains). `pending`: a redelivery asked for and not yet made; it becomes `succeeded` or `failed` once sent.',
    }),
    response_status: Nullable(Type.Integer(), {
      description: "the receiver's HTTP status, null when none came",
    }),
    error: Nullable(Type.String(), { description: 'why the attempt failed' }),
    duration_ms: Nullable(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    redelivery_of: Nullable(Type.String(), {
      description:
        'the `id` of the delivery this row sends again (`redeliverWebhookDelivery`); null for deliveries of the event as it happened and their retries',
    }),
    payload: Type.Union([EventPayload, Type.Null()], {
      description:
        'the body sent, parsed: the same bytes on every attempt at the event. Kept as long as a delivery of the event is in the log; null only if it is gone',
    }),
  },
  { title: 'WebhookDelivery' },
);

export const TestSent = Type.Object(
  { event_id: Type.String(), type: Type.Literal('webhook.test') },
  { title: 'WebhookTestQueued' },
);
/** The same shape as every delete's answer, and the same name in the OpenAPI document. */
export const WebhookDeleted = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { title: 'Deleted' },
);

/** A schema another module names; the OpenAPI document fails to build if no such component exists. */
const Named = (name: string) => Type.Unsafe<unknown>({ $ref: `#/components/schemas/${name}` });

/** What `recording.ready` carries: the recording's extent, once every stream is durably written. */
export const RecordingReadyData = Type.Object(
  {
    duration_ms: Type.Integer({
      description:
        "from the earliest to the latest recorded event over all the session's streams; 0 when nothing was recorded",
    }),
    stream_count: Type.Integer({
      description: 'recorded streams (media tracks, chat, director, the events timeline)',
    }),
    bytes: Type.Integer({ description: 'bytes of the recorded streams' }),
  },
  { title: 'RecordingReadyData' },
);

/** What `recording.failed` carries (recordings/jobs.ts). */
const RecordingFailedData = Type.Object(
  {
    stage: StringEnum(['finalize', 'seal'] as const, {
      description:
        '`finalize`: the recording could not be announced ready; `seal`: it could not be sealed and stored in object storage',
    }),
    error: Type.String({ description: 'why the last attempt failed' }),
  },
  { title: 'RecordingFailedData' },
);

/** The body of a delivery: the same fields for every type, `data` by type (service.ts, eventBody). */
function eventBodySchema(type: EventType, title: string, data: TSchema) {
  return Type.Object(
    {
      id: Type.String({
        format: 'uuid',
        description:
          'the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it',
      }),
      type: Type.Literal(type),
      timestamp: Type.String({
        format: 'date-time',
        description: 'when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent',
      }),
      project_id: Type.String({ format: 'uuid' }),
      session_id: Type.String({ format: 'uuid' }),
      data,
    },
    { title },
  );
}

/** The headers of every delivery attempt (deliver.ts, sign). */
const DeliveryHeaders = Type.Object({
  'X-Service-Signature': Type.String({
    pattern: '^[0-9a-f]{64}$',
    description:
      "lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401",
  }),
  'X-Service-Event-Id': Type.String({ format: 'uuid', description: "the event id (the body's `id`)" }),
  'X-Service-Timestamp': Type.String({
    pattern: '^[0-9]+$',
    description: 'Unix seconds of this attempt: reject old ones to refuse replays',
  }),
  'webhook-id': Type.String({ format: 'uuid', description: 'Standard Webhooks: the event id' }),
  'webhook-timestamp': Type.String({
    pattern: '^[0-9]+$',
    description: 'Standard Webhooks: Unix seconds of this attempt',
  }),
  'webhook-signature': Type.String({
    pattern: '^v1,[A-Za-z0-9+/]+={0,2}$',
    description:
      'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`)',
  }),
  'User-Agent': Type.String({ enum: ['vss-webhooks/1'] }),
});

const DELIVERY_RESPONSES = {
  '2XX': emptyDoc(
    'Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read).',
  ),
  '4XX': emptyDoc(
    'Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure.',
  ),
  default: emptyDoc(
    'Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log.',
  ),
};

const ParticipantData = Type.Object(
  {
    user_id: Type.String({ description: 'the participant (`guest-…` for a guest let in by a join link)' }),
    display_name: Type.String({
      description: 'the name they joined with, or their user_id when they gave none',
    }),
  },
  { title: 'ParticipantEventData' },
);

const EVENTS: Record<
  EventType,
  { title: string; operationId: string; summary: string; description: string; data: TSchema }
> = {
  'session.created': {
    title: 'SessionCreatedEvent',
    operationId: 'deliverSessionCreated',
    summary: 'A session was created',
    description:
      'Sent when `createSession` or `createProjectSession` creates a session (queued in the transaction that creates it). `data` is the session as `getSession` shows it (`started_at` and `ended_at` null).',
    data: Named('Session'),
  },
  'session.started': {
    title: 'SessionStartedEvent',
    operationId: 'deliverSessionStarted',
    summary: 'A session started',
    description:
      'Sent once, when the first participant joins (in whichever process). `data` is the session with `started_at` set.',
    data: Named('Session'),
  },
  'session.ended': {
    title: 'SessionEndedEvent',
    operationId: 'deliverSessionEnded',
    summary: 'A session ended',
    description:
      'Sent once, when the last participant has been gone `SESSION_DEPARTURE_TIMEOUT_S`. `data` is the session with `ended_at` set.',
    data: Named('Session'),
  },
  'recording.ready': {
    title: 'RecordingReadyEvent',
    operationId: 'deliverRecordingReady',
    summary: 'A recording is ready',
    description:
      'Sent after `session.ended`, once every stream of the session is durably written: the recording can be replayed and exported. Not sent for a session deleted before that.',
    data: RecordingReadyData,
  },
  'export.completed': {
    title: 'ExportCompletedEvent',
    operationId: 'deliverExportCompleted',
    summary: 'An MP4 export completed',
    description:
      'Sent when an export job completes. `data` is the job as `getExport` shows it (`status` `completed`, with `download_url`, `size_bytes` and `duration_ms`). An export that fails for good sends `export.failed` instead.',
    data: Named('ExportJob'),
  },
  'export.failed': {
    title: 'ExportFailedEvent',
    operationId: 'deliverExportFailed',
    summary: 'An MP4 export failed',
    description:
      "Sent once when an export job fails for good: the render failed in a way another attempt would repeat (ffmpeg refused the recording's media), or its attempts ran out. `data` is the job as `getExport` shows it: `status` `failed`, with `error` (why, in words) and `error_log` (the end of ffmpeg's log, or null). The session's timeline records it too.",
    data: Named('ExportJob'),
  },
  'participant.joined': {
    title: 'ParticipantJoinedEvent',
    operationId: 'deliverParticipantJoined',
    summary: 'A participant joined a live session',
    description:
      'Sent for each live connection that joins (a participant who reconnects, or opens a second tab, joins again). `data` is `{ user_id, display_name }`.',
    data: ParticipantData,
  },
  'participant.left': {
    title: 'ParticipantLeftEvent',
    operationId: 'deliverParticipantLeft',
    summary: 'A participant left a live session',
    description:
      'Sent for each live connection that leaves: it closed, was cut, was replaced by a newer one of the same user, or the participant was removed. `data` is `{ user_id, display_name }`.',
    data: ParticipantData,
  },
  'recording.failed': {
    title: 'RecordingFailedEvent',
    operationId: 'deliverRecordingFailed',
    summary: 'A recording could not be sealed or stored',
    description:
      "Sent once when a step that makes an ended session's recording ready (`finalize`, which announces `recording.ready`) or keeps it (`seal`: its segments closed and stored in object storage) has failed its last attempt, after the retries of `RECORDING_RETRY_DELAYS_S`. `data` is `{ stage, error }`. After a failed `seal` the recording stays readable from this server's own storage, and may still be stored by a later pass.",
    data: RecordingFailedData,
  },
};

/** The document's `webhooks`: one POST per event type, as the service delivers it. */
export const WEBHOOK_EVENT_DOCS: Record<string, WebhookDoc> = Object.fromEntries(
  EVENT_TYPES.map((type) => {
    const e = EVENTS[type];
    return [
      type,
      {
        operationId: e.operationId,
        summary: e.summary,
        description: `${e.description} Delivered only to active webhooks of the project that list \`${type}\` in \`events\`; a failed attempt is retried, so a receiver may see an event more than once (same \`id\`), and events of one session may arrive out of order.`,
        body: eventBodySchema(type, e.title, e.data),
        headers: DeliveryHeaders,
        responses: DELIVERY_RESPONSES,
      },
    ];
  }),
);
