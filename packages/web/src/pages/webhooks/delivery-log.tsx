import { useEffect } from 'react';
import { formatTime } from '../../ui/format';
import { usePagedList } from '../../ui/hooks';
import { Badge, Empty, ErrorNote, LoadMore } from '../../ui/kit';
import type { Delivery } from './types';

/** How often the log is read again while open, so that attempts show as they are made. */
const REFRESH_MS = 3000;
const PAGE = 25;
const TONE = { succeeded: 'ok', failed: 'bad', pending: 'warn' } as const;

/** Every attempt at delivering events to one webhook, newest first, refreshed every few seconds. */
export function DeliveryLog({ webhookId, version }: { webhookId: string; version: number }) {
  const list = usePagedList<Delivery>(`/v1/webhooks/${webhookId}/deliveries`, {
    query: { limit: PAGE },
    refreshMs: REFRESH_MS,
  });
  const { refresh } = list;
  // A new version (a test just sent): read at once rather than at the next refresh.
  useEffect(() => {
    if (version > 0) void refresh();
  }, [version, refresh]);
  return (
    <section aria-labelledby="log-title">
      <div className="log-head">
        <h2 id="log-title">Delivery log</h2>
        {/* Never disabled: the refresh runs in the background, and the button keeps its focus. */}
        <button type="button" className="secondary" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <p className="muted">One row per attempt, kept 30 days. Refreshed every few seconds.</p>
      <ErrorNote error={list.error} />
      {list.items.length === 0 && !list.error ? (
        list.loading ? null : (
          <Empty title="No deliveries yet">
            Attempts appear here as events happen. Use “Send test” to try the endpoint now.
          </Empty>
        )
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Delivery attempts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Status</th>
                <th scope="col">Response</th>
                <th scope="col">Duration</th>
                <th scope="col">Next attempt</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((d) => (
                <tr key={d.id}>
                  <td>{formatTime(d.created_at)}</td>
                  <td>
                    <code>{d.event_type}</code>
                  </td>
                  <td>{d.attempt}</td>
                  <td>
                    <Badge tone={TONE[d.status]}>{d.status}</Badge>
                  </td>
                  <td className="delivery-error">
                    {d.response_status ?? '—'}
                    {d.error ? <div className="error">{d.error}</div> : null}
                  </td>
                  <td>{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
                  <td>{d.next_attempt_at ? formatTime(d.next_attempt_at) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore next={list.next} loading={list.loading} onMore={list.more} />
    </section>
  );
}
