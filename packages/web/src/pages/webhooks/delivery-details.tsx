import { useState } from 'react';
import { errorMessage, isStatus, vss } from '../../api';
import { useAction } from '../../ui/hooks';
import { CopyButton, ErrorNote } from '../../ui/kit';
import type { Delivery } from './types';

/** What went wrong sending a delivery again, in words for a person. */
function sendAgainError(err: unknown): string {
  if (isStatus(err, 404))
    return /^webhook not found/.test(err.message)
      ? 'This webhook no longer exists: it may have been deleted.'
      : 'This delivery is no longer in the log (it is kept 30 days), so it cannot be sent again.';
  if (isStatus(err, 403)) return 'Only an admin of the project can send a delivery again.';
  return errorMessage(err);
}

/**
 * One delivery opened up: the payload that was sent, pretty-printed, and "Send again", which sends
 * the same event (same id and bytes, a new signature) once more; the new attempt goes to `onSent`.
 */
export function DeliveryDetails(props: { webhookId: string; delivery: Delivery; onSent(d: Delivery): void }) {
  const { delivery: d } = props;
  const [error, setError] = useState<string | null>(null);
  const send = useAction(async () => {
    setError(null);
    try {
      const fresh = await vss.post('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
        params: { path: { webhookId: props.webhookId, deliveryId: d.id } },
      });
      props.onSent(fresh);
    } catch (err) {
      setError(sendAgainError(err));
    }
  });
  const payload = d.payload === null ? null : JSON.stringify(d.payload, null, 2);
  return (
    <div className="delivery-details">
      <p className="muted">
        Event <code>{d.event_id}</code>
        {d.redelivery_of
          ? ' · sent again by hand: one attempt, not retried if it fails.'
          : ' · every attempt at this event sends these same bytes.'}
      </p>
      {payload === null ? (
        <p className="muted">The payload of this event is no longer kept.</p>
      ) : (
        <pre className="payload" tabIndex={0} aria-label={`Payload of ${d.event_type}`}>
          {payload}
        </pre>
      )}
      <div className="row">
        <button type="button" onClick={() => void send.run()} disabled={send.busy}>
          {send.busy ? 'Sending…' : 'Send again'}
        </button>
        {payload === null ? null : <CopyButton text={payload} label="Copy payload" />}
        <span className="muted">Sends this event to the endpoint once more, now, with a new signature.</span>
      </div>
      <ErrorNote error={error ?? send.error} />
    </div>
  );
}
