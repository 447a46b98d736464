import { nextCursor, VssClient, type DataOf } from '@vss/client';
import type { Command } from 'commander';
import { client, globals, settings } from '../context.js';
import { UsageError } from '../errors.js';
import { collect, paged } from '../options.js';
import { cell, printDone, printList, printObject, printJson, type Column } from '../output.js';

type UsageRecord = DataOf<'/v1/usage', 'get'>['records'][number];
type Day = DataOf<'/v1/usage/daily', 'get'>[number];

/** Bytes for people: 1.5 GB, 12 MB (powers of 1000, as the service bills them). */
export function bytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  const shown = i === 0 ? String(v) : v.toFixed(v < 10 ? 2 : 1).replace(/\.?0+$/, '');
  return `${n < 0 ? '-' : ''}${shown} ${units[i]}`;
}

/** Minutes for people: at most two decimals. */
export function minutes(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** The `--project <id>` of a command, when given. */
export function projectOption(cmd: Command): string | undefined {
  return cmd.optsWithGlobals<{ project?: string }>().project;
}

/**
 * The project a command acts on when the route needs one in its path: --project, else the API
 * key's own project, as the routes without one in their path act on. The key is found among the
 * organisation's keys by its prefix (the first 12 characters, which the API shows).
 */
export async function projectFor(cmd: Command, vss: VssClient): Promise<string> {
  const given = projectOption(cmd);
  if (given) return given;
  const prefix = settings(globals(cmd)).apiKey?.slice(0, 12);
  const owners = new Set<string>();
  for await (const key of vss.list('/v1/api-keys', { params: { query: { limit: 200 } } }))
    if (key.prefix === prefix) owners.add(key.project_id);
  const [only, ...others] = [...owners];
  if (!only || others.length > 0)
    throw new UsageError('cannot tell the project of this API key: give --project <projectId>');
  return only;
}

/** The options of the commands that act as a signed-in user rather than with an API key. */
export interface SignInOptions {
  email?: string;
}

export const SIGN_IN_HELP =
  '\nThe server lets only a signed-in user do this, not an API key: give the account with --email\n' +
  '(or VSS_EMAIL) and its password in VSS_PASSWORD or on standard input. The command signs in,\n' +
  'does its work, and signs out again.';

async function passwordFromStdin(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // The first line: `echo "$PASSWORD" | vss …` adds a newline that is not part of it.
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  return line || null;
}

/**
 * Runs `work` with a client signed in as the user (login cookie), and signs out afterwards so that
 * no login session outlives the command.
 */
export async function asUser<T>(
  cmd: Command,
  work: (vss: VssClient, projectId: string | undefined) => Promise<T>,
): Promise<T> {
  const s = settings(globals(cmd));
  const email = cmd.opts<SignInOptions>().email ?? process.env.VSS_EMAIL;
  if (!email)
    throw new UsageError(
      'this needs a signed-in user, not an API key: give --email (or VSS_EMAIL) and the password in VSS_PASSWORD or on standard input',
    );
  const password = process.env.VSS_PASSWORD || (await passwordFromStdin());
  if (!password)
    throw new UsageError('no password: set VSS_PASSWORD or give it on standard input (echo … | vss …)');
  const anonymous = new VssClient({ baseUrl: s.baseUrl, retry: false });
  const { response } = await anonymous.request('post', '/v1/auth/login', { body: { email, password } });
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('service_session='));
  if (!cookie) throw new Error('the server signed in but set no login cookie');
  const projectId = projectOption(cmd);
  // A signed-in user names the project of routes without one in their path with X-Project-Id.
  const user = new VssClient({
    baseUrl: s.baseUrl,
    headers: { cookie },
    ...(projectId ? { projectId } : {}),
  });
  try {
    return await work(user, projectId);
  } finally {
    await user.post('/v1/auth/logout').catch(() => undefined);
  }
}

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
    process.stdout.write(
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
