import { useState } from 'react';
import { useLocation } from 'wouter';
import { vss } from '../../api';
import { useAction } from '../../ui/hooks';
import { ConfirmDialog, ErrorNote } from '../../ui/kit';
import type { Webhook } from './types';

/**
 * What can be done to a webhook: send a test event, pause or resume it, rotate its secret (the
 * new one goes to `onSecret`) and delete it (after asking).
 */
export function WebhookActions(props: {
  hook: Webhook;
  onChanged(): void;
  onTestSent(): void;
  onSecret(secret: string): void;
}) {
  const { hook } = props;
  const [, navigate] = useLocation();
  const [note, setNote] = useState('');
  const [asking, setAsking] = useState<'rotate' | 'delete' | null>(null);
  const params = { path: { webhookId: hook.id } };

  const test = useAction(async () => {
    await vss.post('/v1/webhooks/{webhookId}/test', { params });
    setNote('Test event queued: its attempt appears in the delivery log below.');
    props.onTestSent();
  });
  const toggle = useAction(async () => {
    await vss.patch('/v1/webhooks/{webhookId}', { params, body: { is_active: !hook.is_active } });
    setNote(
      hook.is_active
        ? 'Paused: new events are not sent and pending retries are dropped.'
        : 'Resumed: new events are sent again.',
    );
    props.onChanged();
  });
  const rotate = useAction(async () => {
    const fresh = await vss.post('/v1/webhooks/{webhookId}/rotate-secret', { params });
    setAsking(null);
    setNote('');
    props.onSecret(fresh.secret);
  });
  const remove = useAction(async () => {
    await vss.delete('/v1/webhooks/{webhookId}', { params });
    navigate('/webhooks');
  });
  const error = test.error ?? toggle.error;

  return (
    <div className="card">
      <div className="row">
        <button type="button" onClick={() => void test.run()} disabled={test.busy}>
          {test.busy ? 'Sending…' : 'Send test'}
        </button>
        <button type="button" className="secondary" onClick={() => void toggle.run()} disabled={toggle.busy}>
          {toggle.busy ? 'Saving…' : hook.is_active ? 'Pause' : 'Resume'}
        </button>
        <button type="button" className="secondary" onClick={() => setAsking('rotate')}>
          Rotate secret
        </button>
        <button type="button" className="danger" onClick={() => setAsking('delete')}>
          Delete
        </button>
      </div>
      <p role="status" className="muted">
        {note}
      </p>
      <ErrorNote error={error} />
      {asking === 'rotate' ? (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          busy={rotate.busy}
          error={rotate.error}
          onConfirm={() => void rotate.run()}
          onCancel={() => setAsking(null)}
        >
          <p>
            A new secret is issued and shown once. Every delivery from now on, retries included, is signed
            with it; the current secret stops at once, so update your receiver right after.
          </p>
        </ConfirmDialog>
      ) : null}
      {asking === 'delete' ? (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run()}
          onCancel={() => setAsking(null)}
        >
          <p>
            <strong>{hook.url}</strong> receives nothing more; its pending deliveries and its delivery log are
            deleted.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
