import type { Schemas } from '@vss/client';

/** Webhooks as the API answers them. */

/** The event types a webhook may subscribe to, with what each one means. */
export const EVENT_TYPES = [
  ['session.created', 'a session was created'],
  ['session.started', 'its first participant joined'],
  ['session.ended', 'its last participant left'],
  ['recording.ready', 'its recording can be replayed'],
  ['recording.failed', 'its recording could not be made ready or stored, even after retrying'],
  ['export.completed', 'an MP4 export finished'],
  ['export.failed', 'an MP4 export could not be made (with the reason)'],
  ['participant.joined', 'someone joined a live call (with their name)'],
  ['participant.left', 'someone left a live call'],
] as const satisfies ReadonlyArray<readonly [Schemas['WebhookEventType'], string]>;

export type EventType = Schemas['WebhookEventType'];
export type Webhook = Schemas['Webhook'];
/** The answer of a create or a secret rotation: the only time the secret is shown. */
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
/**
 * One attempt at delivering one event; `redelivery_of` is the delivery this one sent again by
 * hand, `payload` the body that was sent (null once forgotten).
 */
export type Delivery = Schemas['WebhookDelivery'];
