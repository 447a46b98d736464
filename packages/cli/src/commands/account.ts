import { nextCursor, type DataOf } from '@vss/client';
import type { Command } from 'commander';
import { client, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { collect, paged } from '../options.js';
import {
  bytes,
  cell,
  minutes,
  printDone,
  printList,
  printObject,
  printJson,
  out,
  type Column,
} from '../output.js';
import { projectOption } from '../identity.js';

type UsageRecord = DataOf<'/v1/usage', 'get'>['records'][number];
type Day = DataOf<'/v1/usage/daily', 'get'>[number];

const RECORD_COLUMNS: Column<UsageRecord>[] = [
  { key: 'recorded_at', label: 'RECORDED' },
  { key: 'usage_type', label: 'TYPE' },
  {
    key: 'value',
    format: (v, r) => (r.usage_type === 'storage_bytes' ? bytes(v as number) : minutes(v as number)),
  },
  { key: 'session_id', label: 'SESSION' },
  { key: 'project_id', label: 'PROJECT' },
];

const DAY_COLUMNS: Column<Day>[] = [
  { key: 'date' },
  { key: 'streaming_minutes', label: 'MINUTES', format: (v) => minutes(v as number) },
  { key: 'storage_bytes', label: 'STORED', format: (v) => bytes(v as number) },
];

interface UsageOptions {
  daily?: boolean;
  from?: string;
  to?: string;
  session?: string;
}

/** A time given on the command line, checked here so that a typo is a usage error. */
function timestamp(flag: string): (value: string) => string {
  return (value) => {
    // A date alone means its start, in UTC, as the server reads days.
    const iso = /^\d{4}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value;
    // Without a zone, the time would be read in this machine's, which the server never sees.
    if (Number.isNaN(Date.parse(iso)) || !/^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:?\d\d)$/i.test(iso))
      throw new UsageError(
        `${flag}: expected a date (2026-11-01) or an ISO time with a zone, got "${value}"`,
      );
    return new Date(iso).toISOString();
  };
}

export function register(program: Command): void {
  paged(
    program
      .command('usage')
      .description(
        "the organisation's usage: streaming minutes and stored bytes, with the records behind them",
      )
      .option('--daily', 'one line per UTC day (default the last 30 days) instead of the records')
      .option('--project <projectId>', 'only this project of the organisation')
      .option('--from <time>', 'from this date or ISO time (with a zone)')
      .option('--to <time>', 'until this date or ISO time (exclusive)')
      .option('--session <sessionId>', 'only the records of this session (not with --daily)'),
  ).action(async (o: UsageOptions, cmd: Command) => {
    const vss = client(cmd);
    const from = o.from !== undefined ? timestamp('--from')(o.from) : undefined;
    const to = o.to !== undefined ? timestamp('--to')(o.to) : undefined;
    const range = { ...(from ? { from } : {}), ...(to ? { to } : {}) };
    const projectId = projectOption(cmd);
    if (o.daily) {
      if (o.session) throw new UsageError('usage: --session does not go with --daily');
      const days = await vss.get('/v1/usage/daily', {
        params: { query: { ...range, ...(projectId ? { project_id: projectId } : {}) } },
      });
      printList(cmd, days, DAY_COLUMNS, 'no days');
      return;
    }
    const query = { ...range, ...(o.session ? { session_id: o.session } : {}) };
    let summary: DataOf<'/v1/usage', 'get'>['summary'] | undefined;
    const records = await collect(cmd, async (page) => {
      const { data, response } = projectId
        ? await vss.request('get', '/v1/projects/{projectId}/usage', {
            params: { path: { projectId }, query: { ...query, ...page } },
          })
        : await vss.request('get', '/v1/usage', { params: { query: { ...query, ...page } } });
      summary = data.summary;
      return { items: data.records, nextCursor: nextCursor(response) };
    });
    if (globals(cmd).json) return printJson({ summary, records });
    out(
      `streaming minutes  ${minutes(summary!.streaming_minutes_total)}\n` +
        `stored             ${bytes(summary!.storage_bytes_total)}\n\n`,
    );
    printList(cmd, records, RECORD_COLUMNS, 'no usage records');
  });

  const billing = program
    .command('billing')
    .description('this month’s cost, free-tier limits, the billing portal');

  billing
    .command('summary')
    .description('this calendar month (UTC): minutes used, bytes stored, and what they cost')
    .action(async (_o, cmd: Command) => {
      const s = await client(cmd).get('/v1/billing/summary');
      if (globals(cmd).json) return printJson(s);
      const usd = (n: number) => `$${n.toFixed(2)}`;
      printObject(cmd, {
        period: `${cell(s.period_start)} to ${cell(s.period_end)}`,
        streaming_minutes: minutes(s.streaming_minutes_used),
        stored: bytes(s.storage_bytes_used),
        streaming_cost: usd(s.cost_breakdown.streaming_cost),
        storage_cost: usd(s.cost_breakdown.storage_cost),
        total_due: usd(s.cost_breakdown.total_due),
      });
    });

  billing
    .command('limits')
    .description('the free-tier limits and whether new sessions and exports are refused')
    .action(async (_o, cmd: Command) => {
      printObject(cmd, await client(cmd).get('/v1/billing/limits'));
    });

  billing
    .command('portal')
    .description(
      "the address of the payment provider's billing portal, to add a payment method and subscribe",
    )
    .option('--project <projectId>', "a customer of this project's own instead of the organisation's")
    .option('--return-url <url>', 'where the portal sends the person back (default the dashboard)')
    .action(async (o: { returnUrl?: string }, cmd: Command) => {
      const vss = client(cmd);
      const body = o.returnUrl !== undefined ? { return_url: o.returnUrl } : {};
      const projectId = projectOption(cmd);
      const portal = projectId
        ? await vss.post('/v1/projects/{projectId}/billing/portal', {
            params: { path: { projectId } },
            body,
          })
        : await vss.post('/v1/billing/portal', { body });
      printDone(cmd, portal.portal_url, portal);
    });
}
