import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { vss } from '../api';
import { formatTime } from '../ui/format';
import { useAction, useLoad } from '../ui/hooks';
import { Badge, ErrorNote, Loading, PageHeader, SecretOnce } from '../ui/kit';
import { DeliveryLog } from './webhooks/delivery-log';
import { WebhookActions } from './webhooks/webhook-actions';
import { WebhookForm, type WebhookFields } from './webhooks/webhook-form';
import './webhooks/webhooks.css';

/** One webhook: test, pause or resume, rotate its secret, edit, delete, and its delivery log. */
export function WebhookPage() {
  const { webhookId = '' } = useParams<{ webhookId: string }>();
  const hook = useLoad(
    (signal) => vss.get('/v1/webhooks/{webhookId}', { params: { path: { webhookId } }, signal }),
    [webhookId],
  );
  const [secret, setSecret] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  // Bumped after "Send test", so that the log is read at once rather than at the next refresh.
  const [logVersion, setLogVersion] = useState(0);
  const save = useAction(async (f: WebhookFields) => {
    setSaved(false);
    await vss.patch('/v1/webhooks/{webhookId}', {
      params: { path: { webhookId } },
      body: { url: f.url.trim(), events: f.events, description: f.description.trim() || null },
    });
    setSaved(true);
    hook.reload();
    return true;
  });

  const h = hook.data;
  if (!h)
    return (
      <>
        <p>
          <Link href="/webhooks">← Webhooks</Link>
        </p>
        {hook.error ? <ErrorNote error={hook.error} /> : <Loading label="Loading the webhook…" />}
      </>
    );
  return (
    <>
      <p>
        <Link href="/webhooks">← Webhooks</Link>
      </p>
      <PageHeader title="Webhook" sub={<span className="webhook-url">{h.url}</span>}>
        <Badge tone={h.is_active ? 'ok' : 'idle'}>{h.is_active ? 'active' : 'paused'}</Badge>
      </PageHeader>
      <p className="muted">
        Created {formatTime(h.created_at)} · events {h.events.join(', ')}
        {h.description ? ` · ${h.description}` : ''}
      </p>
      <ErrorNote error={hook.error} />
      {secret ? (
        <SecretOnce label="New signing secret" secret={secret} onDone={() => setSecret(null)} />
      ) : null}
      <WebhookActions
        hook={h}
        onChanged={hook.reload}
        onSecret={setSecret}
        onTestSent={() => setLogVersion((v) => v + 1)}
      />
      <DeliveryLog webhookId={h.id} version={logVersion} />
      <details className="card">
        <summary>Edit the address, events or description</summary>
        <WebhookForm
          key={h.id}
          label="Edit webhook"
          submitLabel="Save changes"
          initial={{ url: h.url, events: h.events, description: h.description ?? '' }}
          busy={save.busy}
          error={save.error}
          onSubmit={save.run}
        />
        <p role="status" className="muted">
          {saved && !save.busy ? 'Saved.' : ''}
        </p>
      </details>
    </>
  );
}
