import type { DataOf } from '@vss/client';
import { InvalidArgumentError, type Command } from 'commander';
import { client, globals } from '../context.js';
import { collect, confirmed, integer, paged } from '../options.js';
import { note, printDone, printList, printObject, type Column } from '../output.js';
import { asUser, projectFor, projectOption, SIGN_IN_HELP } from '../identity.js';

type KeyRecord = DataOf<'/v1/api-keys', 'get'>[number];
type AgentToken = DataOf<'/v1/agent-tokens', 'get'>[number];

const KEY_COLUMNS: Column<KeyRecord>[] = [
  { key: 'id' },
  { key: 'label', label: 'NAME' },
  { key: 'prefix' },
  { key: 'project_id', label: 'PROJECT' },
  { key: 'created_at', label: 'CREATED' },
  { key: 'last_used_at', label: 'LAST USED' },
];

const TOKEN_COLUMNS: Column<AgentToken>[] = [
  { key: 'id' },
  { key: 'label', label: 'NAME' },
  { key: 'scopes' },
  { key: 'prefix' },
  { key: 'project_id', label: 'PROJECT' },
  { key: 'expires_at', label: 'EXPIRES' },
  { key: 'last_used_at', label: 'LAST USED' },
];

/** Prints a new credential: everything about it, then, for people, that the secret will not be shown again. */
function printSecret(cmd: Command, created: object & { secret: string }, what: string): void {
  printObject(cmd, created);
  if (!globals(cmd).json) note(`\nSave the ${what} now: it is shown this once and never again.`);
}

/** `--name ''` clears a label; the API takes null for that. */
const label = (name: string) => (name === '' ? null : name);

/** The routes of one kind of key, which differ only in their path and how a key is made. */
function keyCommands(
  group: Command,
  kind: { base: '/v1/api-keys' | '/v1/restricted-keys'; noun: string },
): void {
  paged(
    group
      .command('list')
      .description(`the organisation's ${kind.noun}s, oldest first (never a secret)`)
      .option('--project <projectId>', 'only the keys of this project'),
  ).action(async (_o, cmd: Command) => {
    const vss = client(cmd);
    const projectId = projectOption(cmd);
    const rows = await collect(cmd, (query) =>
      vss.page(kind.base, {
        params: { query: { ...query, ...(projectId ? { project_id: projectId } : {}) } },
      }),
    );
    printList(cmd, rows, KEY_COLUMNS, `no ${kind.noun}s`);
  });

  group
    .command('update <keyId>')
    .description(`rename ${article(kind.noun)} ${kind.noun}`)
    .requiredOption('--name <name>', "the new name, 1 to 200 characters ('' removes it)")
    .action(async (keyId: string, o: { name: string }, cmd: Command) => {
      const path = kind.base === '/v1/api-keys' ? '/v1/api-keys/{keyId}' : '/v1/restricted-keys/{keyId}';
      printObject(
        cmd,
        await client(cmd).patch(path, { params: { path: { keyId } }, body: { label: label(o.name) } }),
      );
    });

  group
    .command('delete <keyId>')
    .description(`delete ${article(kind.noun)} ${kind.noun}: it is refused from the next request on`)
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (keyId: string, _o, cmd: Command) => {
      if (!(await confirmed(cmd, `Delete ${kind.noun} ${keyId}? Anything using it stops working.`))) return;
      const path = kind.base === '/v1/api-keys' ? '/v1/api-keys/{keyId}' : '/v1/restricted-keys/{keyId}';
      const d = await client(cmd).delete(path, { params: { path: { keyId } } });
      printDone(cmd, `deleted ${keyId}`, d);
    });
}

/** `read,write` or `mcp:read,mcp:write` → the API's scopes. */
function scopes(value: string): Array<'mcp:read' | 'mcp:write'> {
  const out = new Set<'mcp:read' | 'mcp:write'>();
  for (const raw of value.split(',')) {
    const s = raw.trim().replace(/^mcp:/, '');
    if (s !== 'read' && s !== 'write')
      throw new InvalidArgumentError(`expected read, write or both (read,write), got "${raw.trim()}"`);
    out.add(`mcp:${s}`);
  }
  return [...out];
}

/** `a` or `an`, as the noun is spoken (an API key, a restricted key). */
function article(noun: string): string {
  return /^[aeiouAEIOU]/.test(noun) ? 'an' : 'a';
}

export function register(program: Command): void {
  const keys = program
    .command('keys')
    .description('API keys (sk_live_…): full access to the organisation, for servers and scripts');
  keys
    .command('create')
    .description('create an API key')
    .option('--project <projectId>', 'the project it belongs to (default: the project of the key you use)')
    .option('--name <name>', 'a name to recognise it by, up to 200 characters')
    .action(async (o: { name?: string }, cmd: Command) => {
      const vss = client(cmd);
      const projectId = await projectFor(cmd, vss);
      const created = await vss.post('/v1/projects/{projectId}/api-keys', {
        params: { path: { projectId } },
        body: o.name !== undefined ? { label: label(o.name) } : {},
      });
      printSecret(cmd, created, 'key');
    });
  keyCommands(keys, { base: '/v1/api-keys', noun: 'API key' });

  const restricted = program
    .command('restricted-keys')
    .description(
      'restricted keys (rk_live_…): may only create sessions, request connection tokens and read manifests of one project; safe in an app',
    );
  restricted
    .command('create')
    .description('create a restricted key')
    .option('--project <projectId>', 'the project it may act on (default: the project of the key you use)')
    .option('--name <name>', 'a name to recognise it by, up to 200 characters')
    .action(async (o: { name?: string }, cmd: Command) => {
      const projectId = projectOption(cmd);
      const created = await client(cmd).post('/v1/restricted-keys', {
        body: {
          ...(projectId ? { project_id: projectId } : {}),
          ...(o.name !== undefined ? { label: label(o.name) } : {}),
        },
      });
      printSecret(cmd, created, 'restricted key');
    });
  keyCommands(restricted, { base: '/v1/restricted-keys', noun: 'restricted key' });

  const agents = program
    .command('agent-tokens')
    .description('agent tokens (sat_…) for AI agents on the /mcp endpoint; managed by a signed-in user')
    .addHelpText('after', SIGN_IN_HELP);

  paged(
    agents
      .command('list')
      .description("the organisation's agent tokens, oldest first (never a secret)")
      .option('--email <email>', 'the account to sign in as (default VSS_EMAIL)')
      .addHelpText('after', SIGN_IN_HELP),
  ).action(async (_o, cmd: Command) => {
    const rows = await asUser(cmd, (vss) =>
      collect(cmd, (query) => vss.page('/v1/agent-tokens', { params: { query } })),
    );
    printList(cmd, rows, TOKEN_COLUMNS, 'no agent tokens');
  });

  agents
    .command('create')
    .description('create an agent token')
    .option('--project <projectId>', "the project it acts on (default: the organisation's first)")
    .requiredOption(
      '--scopes <scopes>',
      'read (read tools), write (tools that change things), or read,write',
      scopes,
    )
    .option('--name <name>', 'a name to recognise it by, up to 200 characters')
    .option(
      '--expires-in-days <days>',
      'expire after this many days, 1 to 366 (default: never)',
      integer(1, 366),
    )
    .option('--email <email>', 'the account to sign in as (default VSS_EMAIL)')
    .addHelpText('after', SIGN_IN_HELP)
    .action(
      async (
        o: { scopes: Array<'mcp:read' | 'mcp:write'>; name?: string; expiresInDays?: number },
        cmd: Command,
      ) => {
        const created = await asUser(cmd, (vss, projectId) =>
          vss.post('/v1/agent-tokens', {
            body: {
              scopes: o.scopes,
              ...(projectId ? { project_id: projectId } : {}),
              ...(o.name !== undefined ? { label: label(o.name) } : {}),
              ...(o.expiresInDays !== undefined ? { expires_in_days: o.expiresInDays } : {}),
            },
          }),
        );
        printSecret(cmd, created, 'agent token');
      },
    );

  agents
    .command('delete <tokenId>')
    .description('delete an agent token: /mcp refuses it from the next call on')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--email <email>', 'the account to sign in as (default VSS_EMAIL)')
    .addHelpText('after', SIGN_IN_HELP)
    .action(async (tokenId: string, _o, cmd: Command) => {
      if (!(await confirmed(cmd, `Delete agent token ${tokenId}?`))) return;
      const d = await asUser(cmd, (vss) =>
        vss.delete('/v1/agent-tokens/{tokenId}', { params: { path: { tokenId } } }),
      );
      printDone(cmd, `deleted ${tokenId}`, d);
    });
}
