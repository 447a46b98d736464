import { Fragment, useCallback, useEffect, useState } from 'react';
import { formatTime } from '../../ui/format';
import { usePagedList } from '../../ui/hooks';
import { Badge, Empty } from '../../ui/kit';
import { PagedView, Table } from '../../ui/list';
import { DeliveryDetails } from './delivery-details';
import { deliveryError } from './delivery-words';
import type { Delivery } from './types';

/** How often the log is read again while open, so that attempts show as they are made. */
const REFRESH_MS = 3000;
/** ...and while an attempt sent again by hand is on its way, so that its outcome shows soon. */
const PENDING_REFRESH_MS = 1000;
const PAGE = 25;
const COLUMNS = 8;
const TONE = { succeeded: 'ok', failed: 'bad', pending: 'warn' } as const;

/**
 * Every attempt at delivering events to one webhook, newest first, refreshed every few seconds.
 * A row opens to show the payload that was sent, and to send it again.
 */
export function DeliveryLog({ webhookId, version }: { webhookId: string; version: number }) {
  const [fast, setFast] = useState(false);
  const list = usePagedList(
    '/v1/webhooks/{webhookId}/deliveries',
    { params: { path: { webhookId }, query: { limit: PAGE } } },
    { refreshMs: fast ? PENDING_REFRESH_MS : REFRESH_MS },
  );
  const { refresh, setItems } = list;
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [note, setNote] = useState('');
  const pending = list.items.some((d) => d.status === 'pending');
  useEffect(() => setFast(pending), [pending]);
  // A new version (a test just sent): read at once rather than at the next refresh.
  useEffect(() => {
    if (version > 0) void refresh();
  }, [version, refresh]);
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  // The new attempt goes to the top of the log at once, as it is (pending), until a refresh tells more.
  const sent = useCallback(
    (d: Delivery) => {
      setItems((items) => [d, ...items.filter((x) => x.id !== d.id)]);
      setFast(true);
      setNote(`Sent again at ${formatTime(d.created_at)}: the new attempt is at the top of the log.`);
    },
    [setItems],
  );
  return (
    <section aria-labelledby="log-title">
      <div className="log-head">
        <h2 id="log-title">Delivery log</h2>
        {/* Never disabled: the refresh runs in the background, and the button keeps its focus. */}
        <button type="button" className="secondary" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <p className="muted">
        One row per attempt, kept 30 days. Refreshed every few seconds. Open a row to see what was sent, or to
        send it again.
      </p>
      <p role="status" className="muted">
        {note}
      </p>
      <PagedView
        list={list}
        loading={null}
        empty={
          <Empty title="No deliveries yet">
            Attempts appear here as events happen. Use “Send test” to try the endpoint now.
          </Empty>
        }
      >
        {(items) => (
          <Table
            caption="Delivery attempts, newest first"
            className="delivery-table"
            columns={[
              'Time',
              'Event',
              'Attempt',
              'Status',
              'Response',
              'Duration',
              'Next attempt',
              'Payload',
            ]}
          >
            {items.map((d) => {
              const isOpen = open.has(d.id);
              const plain = d.error ? deliveryError(d.error) : null;
              return (
                <Fragment key={d.id}>
                  <tr className={isOpen ? 'delivery-opened' : undefined}>
                    <td>{formatTime(d.created_at)}</td>
                    <td>
                      <code>{d.event_type}</code>
                    </td>
                    <td>
                      {d.attempt}
                      {d.redelivery_of ? (
                        <>
                          {' '}
                          <Badge tone="idle">sent again</Badge>
                        </>
                      ) : null}
                    </td>
                    <td>
                      <Badge tone={TONE[d.status]}>{d.status}</Badge>
                    </td>
                    <td className="delivery-error">
                      {d.response_status ?? '—'}
                      {plain ? <div className="error">{plain}</div> : null}
                      {/* The server's own words too, unless they only repeat the status. */}
                      {d.error && plain !== d.error && !d.error.startsWith('answered ') ? (
                        <div className="muted">
                          <code>{d.error}</code>
                        </div>
                      ) : null}
                    </td>
                    <td>{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
                    <td>{d.next_attempt_at ? formatTime(d.next_attempt_at) : '—'}</td>
                    <td>
                      <button
                        type="button"
                        className="secondary"
                        aria-expanded={isOpen}
                        aria-controls={isOpen ? `delivery-${d.id}` : undefined}
                        aria-label={`${isOpen ? 'Hide' : 'Show'} the payload of ${d.event_type}, attempt ${d.attempt}${d.redelivery_of ? ' (sent again)' : ''} at ${formatTime(d.created_at)}`}
                        onClick={() => toggle(d.id)}
                      >
                        {isOpen ? 'Hide' : 'Show'}
                      </button>
                    </td>
                  </tr>
                  {isOpen ? (
                    <tr id={`delivery-${d.id}`} className="delivery-open">
                      <td colSpan={COLUMNS}>
                        <DeliveryDetails webhookId={webhookId} delivery={d} onSent={sent} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </Table>
        )}
      </PagedView>
    </section>
  );
}
