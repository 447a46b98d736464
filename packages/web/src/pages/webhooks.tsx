import { useState } from 'react';
import { Link } from 'wouter';
import { vss } from '../api';
import { useAuth } from '../auth';
import { formatTime } from '../ui/format';
import { useAction, usePagedList } from '../ui/hooks';
import { Badge, Empty, PageHeader, SecretOnce } from '../ui/kit';
import { PagedView, Table } from '../ui/list';
import { WebhookForm, type WebhookFields } from './webhooks/webhook-form';
import type { WebhookWithSecret } from './webhooks/types';
import './webhooks/webhooks.css';

/** The project's webhooks, paused ones included, and a form to add one (its secret shown once). */
export function WebhooksPage() {
  const { project } = useAuth();
  const list = usePagedList(
    '/v1/webhooks',
    { params: { query: { include_inactive: true, limit: 50 } } },
    { deps: [project?.id] },
  );
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const create = useAction(async (f: WebhookFields) => {
    const hook = await vss.post('/v1/webhooks', {
      body: { url: f.url.trim(), events: f.events, description: f.description.trim() || null },
    });
    setCreated(hook);
    list.reload();
    return true;
  });
  return (
    <>
      <PageHeader
        title="Webhooks"
        sub={`Signed POSTs to your server when sessions start or end, people join or leave, and recordings or exports are ready (or fail)${project ? ` (project ${project.name})` : ''}.`}
      />
      {created ? (
        <SecretOnce
          label={`Signing secret of ${created.url}`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <h2>Add a webhook</h2>
      <WebhookForm
        label="New webhook"
        submitLabel="Add webhook"
        busy={create.busy}
        error={create.error}
        onSubmit={create.run}
      />
      <h2>Endpoints</h2>
      <PagedView
        list={list}
        loading="Loading webhooks…"
        empty={
          <Empty title="No webhooks yet">
            Add one above. Each delivery is signed with the webhook's secret (header{' '}
            <code>X-Service-Signature</code>) and retried with backoff until your server answers 2xx.
          </Empty>
        }
      >
        {(items) => (
          <Table
            caption="Webhooks of this project, oldest first"
            columns={['Endpoint', 'State', 'Events', 'Created']}
          >
            {items.map((h) => (
              <tr key={h.id}>
                <td className="webhook-url">
                  <Link href={`/webhooks/${h.id}`}>{h.url}</Link>
                  {h.description ? <div className="muted">{h.description}</div> : null}
                </td>
                <td>
                  <Badge tone={h.is_active ? 'ok' : 'idle'}>{h.is_active ? 'active' : 'paused'}</Badge>
                </td>
                <td>{h.events.join(', ')}</td>
                <td>{formatTime(h.created_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </PagedView>
    </>
  );
}
