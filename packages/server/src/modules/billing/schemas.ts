import { Type } from '@sinclair/typebox';

const Timestamp = (description: string) =>
  Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description }));

/** Filters of both usage routes. */
export const UsageQuery = Type.Object({
  from: Timestamp('only records at or after this time (ISO 8601, with a time zone)'),
  to: Timestamp('only records before this time (ISO 8601, with a time zone); must be after `from`'),
  session_id: Type.Optional(Type.String({ format: 'uuid', description: 'only the records of this session' })),
});

export const DailyQuery = Type.Object({
  from: Timestamp('first day: the UTC day holding this time (default: 30 days before `to`)'),
  to: Timestamp('last day: the UTC day holding this time (default: now); at most 366 days after `from`'),
  project_id: Type.Optional(
    Type.String({ format: 'uuid', description: 'only this project of the organisation' }),
  ),
});

export const UsageRecord = Type.Object(
  {
    id: Type.String(),
    project_id: Type.String(),
    session_id: Type.String(),
    usage_type: Type.String({
      description:
        "`streaming_minutes`: participant-minutes of live connections since the previous record of the same process (fractional); `storage_bytes`: the change of the session's stored bytes (recording and export files), negative when bytes were deleted",
    }),
    value: Type.Number(),
    recorded_at: Type.String({ format: 'date-time' }),
  },
  { title: 'UsageRecord' },
);

export const UsageResponse = Type.Object(
  {
    summary: Type.Object(
      {
        streaming_minutes_total: Type.Number({ description: 'participant-minutes recorded in the range' }),
        storage_bytes_total: Type.Number({
          description:
            'bytes stored at the end of the range (storage is a level: `from` does not apply to it)',
        }),
      },
      { title: 'UsageTotals' },
    ),
    records: Type.Array(UsageRecord, { description: 'newest first; the next page is in the `Link` header' }),
  },
  { title: 'Usage' },
);

export const DailyUsage = Type.Array(
  Type.Object(
    {
      date: Type.String({ format: 'date', description: 'a UTC day' }),
      streaming_minutes: Type.Number({ description: 'participant-minutes recorded that day' }),
      storage_bytes: Type.Number({ description: 'bytes stored at the end of that day' }),
    },
    { title: 'UsageDay' },
  ),
);

export const BillingSummary = Type.Object(
  {
    period_start: Type.String({
      format: 'date-time',
      description: 'the first instant of the current calendar month (UTC)',
    }),
    period_end: Type.String({
      format: 'date-time',
      description: 'the first instant of the next month (exclusive)',
    }),
    currency: Type.Literal('usd'),
    streaming_minutes_used: Type.Number({ description: 'participant-minutes this month' }),
    storage_bytes_used: Type.Number({ description: 'bytes stored now' }),
    cost_breakdown: Type.Object(
      {
        streaming_cost: Type.Number({
          description: 'streaming_minutes_used × PRICE_PER_STREAMING_MINUTE, in dollars rounded to cents',
        }),
        storage_cost: Type.Number({
          description:
            "storage_bytes_used in GB (10⁹ bytes) × PRICE_PER_GB_MONTH, rounded to cents: the month's charge if what is stored now stays stored",
        }),
        total_due: Type.Number({ description: 'streaming_cost + storage_cost' }),
      },
      { title: 'CostBreakdown' },
    ),
  },
  { title: 'BillingSummary' },
);

export const BillingLimits = Type.Object(
  {
    within_free_tier: Type.Boolean({ description: 'neither free-tier limit is exceeded' }),
    streaming_minutes_used: Type.Number({ description: 'participant-minutes this calendar month (UTC)' }),
    storage_bytes_used_gb: Type.Number({ description: 'bytes stored now, in GB (10⁹ bytes)' }),
    has_active_subscription: Type.Boolean({
      description:
        'a subscription of the organisation (or of one of its projects) is active, trialing or past due',
    }),
    is_blocked: Type.Boolean({
      description: 'over the free tier without a subscription: new sessions and exports are refused',
    }),
    status_message: Type.String({
      description: 'what to do, for a person; empty when there is nothing to say',
    }),
    billing_portal: Type.Boolean({
      description:
        'a payment provider is configured, so `POST /v1/billing/portal` can open a portal; false with `BILLING_PROVIDER=none` (the portal then answers 409)',
    }),
  },
  { title: 'BillingLimits' },
);

export const PortalRequest = Type.Object(
  {
    return_url: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        maxLength: 2048,
        description:
          "where the portal sends the person back: an address on `PUBLIC_BASE_URL`'s origin or on one `BILLING_RETURN_ORIGINS` lists (scheme, host and port must match); default `{PUBLIC_BASE_URL}/billing`",
      }),
    ),
  },
  { additionalProperties: false, title: 'BillingPortalRequest' },
);

export const PortalResponse = Type.Object(
  { portal_url: Type.String({ description: "the payment provider's portal: redirect the person there" }) },
  { title: 'BillingPortal' },
);

export const ProviderAck = Type.Object(
  { received: Type.Literal(true), id: Type.String({ description: "the provider's event id" }) },
  { title: 'ProviderEventReceived' },
);
