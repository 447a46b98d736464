import { useState } from 'react';
import { vss, type Schemas } from '../api';
import { formatBytes, formatMinutes } from '../ui/format';
import { useLoad } from '../ui/hooks';
import { ErrorNote, Field, Loading, PageHeader } from '../ui/kit';
import { BarChart } from './usage/bar-chart';
import { BillingPanel } from './usage/billing-panel';
import './usage/usage.css';

/** `GET /v1/usage/daily`: one entry per UTC day, oldest first. */
type Day = Schemas['UsageDay'];

const RANGES = [7, 30, 90] as const;
const DAY_MS = 86_400_000;
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** The organisation's usage per day over a chosen range, this month's bill and its limits. */
export function UsagePage() {
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const daily = useLoad(
    (signal) =>
      vss.get('/v1/usage/daily', {
        // The API counts whole UTC days from `from`'s day to today's.
        params: { query: { from: new Date(Date.now() - (days - 1) * DAY_MS).toISOString() } },
        signal,
      }),
    [days],
  );
  const label = (d: Day) => dayLabel.format(new Date(`${d.date}T00:00:00Z`));
  return (
    <div className="usage-page">
      <PageHeader title="Usage & billing" sub="For every project of your organisation; days are UTC." />
      <BillingPanel />
      <section aria-labelledby="daily-title">
        <div className="page-header">
          <h2 id="daily-title">Daily usage</h2>
          <Field label="Range">
            {(id) => (
              <select
                id={id}
                value={days}
                onChange={(e) => setDays(Number(e.target.value) as (typeof RANGES)[number])}
              >
                {RANGES.map((n) => (
                  <option key={n} value={n}>
                    Last {n} days
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <ErrorNote error={daily.error} />
        {daily.data ? (
          <div className="charts" aria-busy={daily.loading}>
            <BarChart
              title="Streaming participant-minutes"
              data={daily.data.map((d) => ({ label: label(d), value: d.streaming_minutes }))}
              format={(v) => `${formatMinutes(v)} min`}
            />
            <BarChart
              title="Storage at day end"
              data={daily.data.map((d) => ({ label: label(d), value: d.storage_bytes }))}
              format={formatBytes}
            />
          </div>
        ) : daily.error ? null : (
          <Loading label="Loading usage…" />
        )}
      </section>
    </div>
  );
}
