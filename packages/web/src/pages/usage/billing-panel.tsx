import { vss, type Schemas } from '../../api';
import { formatBytes, formatMinutes } from '../../ui/format';
import { useAction, useLoad } from '../../ui/hooks';
import { Badge, ErrorNote, Loading } from '../../ui/kit';

type Limits = Schemas['BillingLimits'];

const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
const month = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** Where the organisation stands against the free tier; its message first when there is one. */
function LimitsCard({ limits }: { limits: Limits }) {
  return (
    <section className="card" aria-labelledby="limits-title">
      <h2 id="limits-title">Limits</h2>
      {limits.status_message ? (
        <p className={`status-message ${limits.is_blocked ? 'blocked' : ''}`} role="alert">
          {limits.status_message}
        </p>
      ) : null}
      <div className="row">
        {limits.is_blocked ? (
          <Badge tone="bad">Blocked: new sessions and exports are refused</Badge>
        ) : limits.within_free_tier ? (
          <Badge tone="ok">Within the free tier</Badge>
        ) : (
          <Badge tone="warn">Beyond the free tier</Badge>
        )}
        <Badge tone={limits.has_active_subscription ? 'ok' : 'idle'}>
          {limits.has_active_subscription ? 'Subscription active' : 'No subscription'}
        </Badge>
      </div>
    </section>
  );
}

/** This month's usage and cost, the limits, and the way to the payment provider's portal. */
export function BillingPanel() {
  const summary = useLoad((signal) => vss.get('/v1/billing/summary', { signal }), []);
  const limits = useLoad((signal) => vss.get('/v1/billing/limits', { signal }), []);
  const portal = useAction(async () => {
    const { portal_url } = await vss.post('/v1/billing/portal', {
      body: { return_url: location.href },
    });
    location.assign(portal_url);
  });
  const s = summary.data;
  return (
    <>
      <ErrorNote error={limits.error} />
      {limits.data ? <LimitsCard limits={limits.data} /> : limits.error ? null : <Loading />}
      <section className="card" aria-labelledby="month-title">
        <h2 id="month-title">
          {s ? `This month (${month.format(new Date(s.period_start))})` : 'This month'}
        </h2>
        <ErrorNote error={summary.error} />
        {s ? (
          <dl className="figures">
            <div>
              <dt>Streaming</dt>
              <dd>{formatMinutes(s.streaming_minutes_used)} participant-minutes</dd>
              <dd className="muted">{money.format(s.cost_breakdown.streaming_cost)}</dd>
            </div>
            <div>
              <dt>Storage</dt>
              <dd>{formatBytes(s.storage_bytes_used)} stored</dd>
              <dd className="muted">{money.format(s.cost_breakdown.storage_cost)}</dd>
            </div>
            <div>
              <dt>Total</dt>
              <dd className="total">{money.format(s.cost_breakdown.total_due)}</dd>
            </div>
          </dl>
        ) : summary.error ? null : (
          <Loading />
        )}
        {/* Only where a payment provider is configured: without one the portal can only fail. */}
        {limits.data?.billing_portal ? (
          <>
            <div className="row">
              <button type="button" disabled={portal.busy} onClick={() => void portal.run()}>
                {portal.busy ? 'Opening the billing portal…' : 'Manage billing'}
              </button>
              <span className="muted">Payment method and subscription, at the payment provider.</span>
            </div>
            <ErrorNote error={portal.error} />
          </>
        ) : limits.data ? (
          <p className="muted">
            Nothing to pay here: no payment provider is configured on this server, so usage is shown but not
            billed.
          </p>
        ) : null}
      </section>
    </>
  );
}
