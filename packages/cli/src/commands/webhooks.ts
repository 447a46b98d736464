import { setTimeout as sleep } from 'node:timers/promises';
import type { DataOf, Paths, VssClient } from '@vss/client';
import { WEBHOOK_TOLERANCE_S, webhookSecretProblem } from '@vss/protocol';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { client, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { collect, confirmed, integer, oneOf, paged } from '../options.js';
import { jsonSafe, note, out, printDone, printList, printObject, type Column } from '../output.js';
import type { Received } from '../webhooks/listen.js';

type Webhook = DataOf<'/v1/webhooks/{webhookId}', 'get'>;
/** The event types the API takes, as its document lists them. */
type EventTypes = NonNullable<
  Paths['/v1/webhooks']['post']['requestBody']
>['content']['application/json']['events'];
type Delivery = DataOf<'/v1/webhooks/{webhookId}/deliveries', 'get'>[number];

const EVENTS_HELP =
  'event types, comma-separated: session.created, session.started, session.ended, recording.ready, recording.failed, export.completed, export.failed, participant.joined, participant.left';
/** How often the log is read while waiting for a redelivery to be sent, and for how long at most. */
const POLL_MS = 250;
const WAIT_MS = 60_000;

const COLUMNS: Column<Webhook>[] = [
  { key: 'id' },
  { key: 'url' },
  { key: 'events' },
  { key: 'is_active', label: 'ACTIVE', format: (v) => (v ? 'yes' : 'paused') },
  { key: 'description' },
];

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { key: 'created_at', label: 'AT' },
  { key: 'id', label: 'DELIVERY' },
  { key: 'event_type', label: 'EVENT' },
  { key: 'event_id', label: 'EVENT ID' },
  { key: 'attempt' },
  { key: 'status' },
  { key: 'response_status', label: 'HTTP' },
  { key: 'duration_ms', label: 'MS' },
  { key: 'error' },
  { key: 'next_attempt_at', label: 'NEXT ATTEMPT' },
  { key: 'redelivery_of', label: 'SENT AGAIN OF' },
];

/** What `redeliver` shows people of the new attempt (--json gives all of it, the payload too). */
const ATTEMPT_FIELDS = [
  'id',
  'event_id',
  'event_type',
  'status',
  'response_status',
  'error',
  'duration_ms',
  'created_at',
  'redelivery_of',
];

/**
 * The redelivery's row once it has been sent (no longer `pending`), read from the log, newest
 * first, down to where it was written; the row as it was if it is still pending after WAIT_MS.
 */
async function sent(vss: VssClient, webhookId: string, row: Delivery): Promise<Delivery> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    for await (const d of vss.list('/v1/webhooks/{webhookId}/deliveries', {
      params: { path: { webhookId }, query: { limit: 100 } },
    })) {
      if (d.id === row.id) {
        if (d.status !== 'pending') return d;
        break;
      }
      if (d.created_at < row.created_at) break;
    }
    if (Date.now() > until) return row;
    await sleep(POLL_MS);
  }
}

/**
 * `a,b` → ['a', 'b']: the list's shape is checked here, the types themselves by the server,
 * which names the one it does not know.
 */
function events(value: string): string[] {
  const list = value.split(',').map((e) => e.trim());
  if (list.some((e) => e === '')) throw new InvalidArgumentError(`expected ${EVENTS_HELP}, got "${value}"`);
  return [...new Set(list)];
}

/** `--description ''` removes the description; the API takes null for that. */
const description = (d: string) => (d === '' ? null : d);

/** The port of a receiver's address, as `webhooks listen --port` takes it. */
function portOf(url: string): string {
  const u = new URL(url);
  return u.port || (u.protocol === 'https:' ? '443' : '80');
}

/** The new secret, for people apart from the rest so that it is not missed. */
function printWithSecret(cmd: Command, hook: Webhook & { secret: string }): void {
  printObject(cmd, hook);
  if (!globals(cmd).json)
    note(
      `\nThe signing secret is shown this once: save it. To receive on this machine, keep it out of the\ncommand line: VSS_WEBHOOK_SECRET=<the secret> vss webhooks listen --port ${portOf(hook.url)}`,
    );
}

/** One delivery as one line for people. */
function line(r: Received): string {
  const at = r.received_at.slice(11, 19);
  if (!r.valid) return `${at}  invalid  ${r.status}  ${r.reason}${r.event_id ? `  ${r.event_id}` : ''}`;
  // Padded to the longest event type, so that the ids line up.
  const parts = [at, 'valid  ', String(r.status), (r.type ?? '-').padEnd(16), r.event_id ?? '-'];
  if (r.session_id) parts.push(`session ${r.session_id}`);
  if (r.forwarded) parts.push(`→ ${r.forwarded.url} ${r.forwarded.status ?? r.forwarded.error}`);
  if (r.repeat) parts.push('(again: a retry)');
  return parts.join('  ');
}

export function register(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description("webhooks of the key's project: signed POSTs when sessions, recordings and exports change");

  paged(
    webhooks
      .command('list')
      .description('the webhooks, oldest first (never a secret)')
      .option('--include-inactive', 'also list paused webhooks'),
  ).action(async (o: { includeInactive?: boolean }, cmd: Command) => {
    const vss = client(cmd);
    const rows = await collect(cmd, (query) =>
      vss.page('/v1/webhooks', { params: { query: { ...query, include_inactive: !!o.includeInactive } } }),
    );
    printList(cmd, rows, COLUMNS, 'no active webhooks; --include-inactive shows paused ones');
  });

  webhooks
    .command('create')
    .description('register a receiver: prints its signing secret, once')
    .requiredOption('--url <url>', 'where deliveries are POSTed (https://…)')
    .requiredOption('--events <types>', EVENTS_HELP, events)
    .option('--description <text>', 'free text, up to 500 characters')
    .option('--paused', 'create it paused (nothing is delivered until `update --active true`)')
    .action(
      async (o: { url: string; events: string[]; description?: string; paused?: boolean }, cmd: Command) => {
        const hook = await client(cmd).post('/v1/webhooks', {
          body: {
            url: o.url,
            events: o.events as EventTypes,
            ...(o.description !== undefined ? { description: description(o.description) } : {}),
            ...(o.paused ? { is_active: false } : {}),
          },
        });
        printWithSecret(cmd, hook);
      },
    );

  webhooks
    .command('get <webhookId>')
    .description('one webhook')
    .action(async (webhookId: string, _o, cmd: Command) => {
      printObject(
        cmd,
        await client(cmd).get('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } }),
      );
    });

  webhooks
    .command('update <webhookId>')
    .description('change the address, the events or the description; pause or resume')
    .option('--url <url>', 'the new address')
    .option('--events <types>', EVENTS_HELP, events)
    .option('--description <text>', "free text ('' removes it)")
    .addOption(
      new Option(
        '--active <bool>',
        'false pauses (pending deliveries are dropped, new events are not queued); true resumes',
      ).argParser(oneOf(['true', 'false'] as const)),
    )
    .action(
      async (
        webhookId: string,
        o: { url?: string; events?: string[]; description?: string; active?: 'true' | 'false' },
        cmd: Command,
      ) => {
        const body = {
          ...(o.url !== undefined ? { url: o.url } : {}),
          ...(o.events !== undefined ? { events: o.events as EventTypes } : {}),
          ...(o.description !== undefined ? { description: description(o.description) } : {}),
          ...(o.active !== undefined ? { is_active: o.active === 'true' } : {}),
        };
        if (Object.keys(body).length === 0)
          throw new UsageError('webhooks update: give --url, --events, --description or --active');
        printObject(
          cmd,
          await client(cmd).patch('/v1/webhooks/{webhookId}', { params: { path: { webhookId } }, body }),
        );
      },
    );

  webhooks
    .command('delete <webhookId>')
    .description('delete a webhook, its pending deliveries and its delivery log')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (webhookId: string, _o, cmd: Command) => {
      if (!(await confirmed(cmd, `Delete webhook ${webhookId} and its delivery log?`))) return;
      const d = await client(cmd).delete('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } });
      printDone(cmd, `deleted ${webhookId}`, d);
    });

  webhooks
    .command('rotate-secret <webhookId>')
    .description('issue a new signing secret, printed once; the old one stops at once')
    .action(async (webhookId: string, _o, cmd: Command) => {
      const hook = await client(cmd).post('/v1/webhooks/{webhookId}/rotate-secret', {
        params: { path: { webhookId } },
      });
      printWithSecret(cmd, hook);
    });

  webhooks
    .command('test <webhookId>')
    .description('send a webhook.test event to this webhook alone (paused or not)')
    .action(async (webhookId: string, _o, cmd: Command) => {
      const sent = await client(cmd).post('/v1/webhooks/{webhookId}/test', {
        params: { path: { webhookId } },
      });
      printDone(
        cmd,
        `queued ${sent.type} event ${sent.event_id}: see \`vss webhooks deliveries ${webhookId}\``,
        sent,
      );
    });

  webhooks
    .command('redeliver <webhookId> <deliveryId>')
    .description(
      "send a logged delivery's event again, now (same event id and body, signed anew); prints the new attempt",
    )
    .option('--no-wait', 'print the new attempt as queued (pending) rather than once it has been sent')
    .addHelpText(
      'after',
      '\nDELIVERY_ID is a row of `vss webhooks deliveries <webhookId>`. The event goes to the webhook whether it is\n' +
        'paused or not, once: a failure is not retried, and the original delivery keeps its own retries. Exits 1\n' +
        'when the receiver did not take it (its answer or the error is printed).',
    )
    .action(async (webhookId: string, deliveryId: string, o: { wait: boolean }, cmd: Command) => {
      const vss = client(cmd);
      const queued = await vss.post('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
        params: { path: { webhookId, deliveryId } },
      });
      const row = o.wait ? await sent(vss, webhookId, queued) : queued;
      printObject(cmd, row, ATTEMPT_FIELDS);
      if (row.status === 'pending' && o.wait && !globals(cmd).json)
        note(`not sent yet: follow it with \`vss webhooks deliveries ${webhookId}\``);
      if (row.status === 'failed')
        throw new Error(`the redelivery failed: ${row.error ?? 'no reason given'}`);
    });

  paged(
    webhooks
      .command('deliveries <webhookId>')
      .description(
        'the delivery log: every attempt, newest first, with the answer or the error (kept 30 days)',
      ),
  ).action(async (webhookId: string, _o, cmd: Command) => {
    const vss = client(cmd);
    const rows = await collect(cmd, (query) =>
      vss.page('/v1/webhooks/{webhookId}/deliveries', { params: { path: { webhookId }, query } }),
    );
    printList(cmd, rows, DELIVERY_COLUMNS, 'no deliveries yet');
  });

  webhooks
    .command('listen')
    .description('receive deliveries on this machine: verify each signature and print each event')
    .addOption(
      new Option('--secret <whsec>', "the webhook's signing secret")
        .env('VSS_WEBHOOK_SECRET')
        .makeOptionMandatory(),
    )
    .option('--port <port>', 'port to listen on (0: any free one)', integer(0, 65535), 8090)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--tolerance <seconds>',
      'how old (or early) a signed timestamp may be',
      integer(1, 86_400),
      WEBHOOK_TOLERANCE_S,
    )
    .option(
      '--forward-to <url>',
      'pass each valid delivery on (same bytes and signature headers) and answer with its status',
    )
    .addHelpText(
      'after',
      '\nAnswers 200 to a valid delivery and 401 to one whose signature, or timestamp, does not verify.\n' +
        'Prints one line per delivery (NDJSON with --json); the address it listens on goes first, to\n' +
        'standard error. Runs until interrupted (Ctrl-C, SIGTERM). The server delivers to a private or\n' +
        'loopback address only when it runs with WEBHOOK_ALLOW_PRIVATE_URLS=true; a server elsewhere\n' +
        'needs a public https address (a tunnel) to this port.',
    )
    .action(
      async (
        o: { secret: string; port: number; host: string; tolerance: number; forwardTo?: string },
        cmd: Command,
      ) => {
        const bad = webhookSecretProblem(o.secret);
        if (bad) throw new UsageError(`--secret: ${bad}`);
        if (o.forwardTo !== undefined && !/^https?:\/\/[^/]/.test(o.forwardTo))
          throw new UsageError(`--forward-to: expected an http:// or https:// address, got "${o.forwardTo}"`);
        const json = !!globals(cmd).json;
        let listener;
        try {
          const { listen } = await import('../webhooks/listen.js'); // only this command serves HTTP
          listener = await listen(
            { host: o.host, port: o.port, secret: o.secret, toleranceS: o.tolerance, forwardTo: o.forwardTo },
            (r) => out((json ? jsonSafe(JSON.stringify(r)) : line(r)) + '\n'),
          );
        } catch (err) {
          const e = err as NodeJS.ErrnoException;
          throw new Error(
            `cannot listen on ${o.host}:${o.port}: ${e.code === 'EADDRINUSE' ? 'the port is in use (choose another --port)' : e.message}`,
          );
        }
        note(`listening on ${listener.url}`);
        note(
          `  deliveries are verified with ${o.secret.slice(0, 10)}…${o.forwardTo ? `, forwarded to ${o.forwardTo}` : ''}; Ctrl-C stops`,
        );
        const signal = await new Promise<NodeJS.Signals>((resolve) => {
          const stop = (s: NodeJS.Signals) => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            resolve(s);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await listener.close();
        note(`stopped (${signal})`);
      },
    );
}
