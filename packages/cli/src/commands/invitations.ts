import type { DataOf } from '@vss/client';
import { Option, type Command } from 'commander';
import { client, globals } from '../context.js';
import { collect, paged } from '../options.js';
import { note, printDone, printList, printObject, type Column } from '../output.js';
import { asUser, projectFor, SIGN_IN_HELP } from '../identity.js';

type Invitation = DataOf<'/v1/invitations', 'get'>[number];

/** Where an invitation stands, from its timestamps. */
function state(i: Pick<Invitation, 'accepted_at' | 'expires_at'>): string {
  if (i.accepted_at) return 'accepted';
  return Date.parse(i.expires_at) <= Date.now() ? 'expired' : 'open';
}

const COLUMNS: Column<Invitation>[] = [
  { key: 'id' },
  { key: 'email' },
  { key: 'role' },
  { key: 'accepted_at', label: 'STATE', format: (_v, i) => state(i) },
  { key: 'created_at', label: 'CREATED' },
  { key: 'expires_at', label: 'EXPIRES' },
];

export function register(program: Command): void {
  const invitations = program.command('invitations').description('invite people into the organisation');

  paged(
    invitations.command('list').description("the organisation's invitations, newest first (never a token)"),
  ).action(async (_o, cmd: Command) => {
    const vss = client(cmd);
    printList(
      cmd,
      await collect(cmd, (query) => vss.page('/v1/invitations', { params: { query } })),
      COLUMNS,
      'no invitations',
    );
  });

  invitations
    .command('create')
    .description('invite someone: prints the token and the address to send them, valid 7 days')
    .requiredOption('--email <email>', 'who is invited')
    .addOption(
      new Option('--role <role>', 'what they may do: admin, or member')
        .choices(['admin', 'member'])
        .makeOptionMandatory(),
    )
    .option(
      '--project <projectId>',
      'the project it is issued from (default: the project of the key you use)',
    )
    .action(async (o: { email: string; role: 'admin' | 'member' }, cmd: Command) => {
      const vss = client(cmd);
      const projectId = await projectFor(cmd, vss);
      const created = await vss.post('/v1/projects/{projectId}/invitations', {
        params: { path: { projectId } },
        body: { email: o.email, role: o.role },
      });
      printObject(cmd, created);
      if (!globals(cmd).json)
        note(
          `\nSend ${o.email} the accept_url: the token is shown this once. They sign in (or register with that email) and open it.`,
        );
    });

  invitations
    .command('revoke <invitationId>')
    .description('revoke an invitation: its token no longer works')
    .action(async (invitationId: string, _o, cmd: Command) => {
      const d = await client(cmd).delete('/v1/invitations/{invitationId}', {
        params: { path: { invitationId } },
      });
      printDone(cmd, `revoked ${invitationId}`, d);
    });

  invitations
    .command('redeem <token>')
    .description('accept an invitation: moves the signed-in user into the inviting organisation')
    .option('--email <email>', 'the invited account, to sign in as (default VSS_EMAIL)')
    .addHelpText(
      'after',
      `${SIGN_IN_HELP}\nA token that begins with "-" (issued by an older server) goes after "--": vss invitations redeem -- -Xy…`,
    )
    .action(async (token: string, _o, cmd: Command) => {
      const m = await asUser(cmd, (vss) => vss.post('/v1/invitations/redeem', { body: { token } }));
      printDone(cmd, `${m.user_id} is now ${m.role} of organisation ${m.org_id}`, m);
    });
}
