/** Webhooks as the API answers them (packages/server/src/modules/webhooks/schemas.ts). */

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
] as const;

export interface Webhook {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  is_active: boolean;
  description: string | null;
  created_at: string;
}

/** The answer of a create or a secret rotation: the only time the secret is shown. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

/** One attempt at delivering one event. */
export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: 'succeeded' | 'failed' | 'pending';
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
  next_attempt_at: string | null;
  /** the delivery this one sent again by hand, else null */
  redelivery_of: string | null;
  /** the body that was sent (`{ id, type, timestamp, project_id, session_id, data }`); null once forgotten */
  payload: Record<string, unknown> | null;
}
