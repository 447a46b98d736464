import type { DataOf } from '@vss/client';
import type { Command } from 'commander';
import { client, globals } from '../context.js';
import { collect, expiresIn, integer, paged } from '../options.js';
import { cell, note, printDone, printList, type Column } from '../output.js';

type JoinLink = DataOf<'/v1/sessions/{sessionId}/join-links', 'get'>[number];

/** The most guests one link may let in (the API's bound). */
const MAX_USES = 10_000;

/** Where a link stands: open, expired, or used up (every use taken). */
function state(l: Pick<JoinLink, 'expires_at' | 'uses' | 'max_uses'>): string {
  if (Date.parse(l.expires_at) <= Date.now()) return 'expired';
  if (l.max_uses !== null && l.uses >= l.max_uses) return 'used up';
  return 'open';
}

/** Uses so far, out of the link's limit when it has one. */
const uses = (l: Pick<JoinLink, 'uses' | 'max_uses'>) =>
  l.max_uses === null ? String(l.uses) : `${l.uses} of ${l.max_uses}`;

const COLUMNS: Column<JoinLink>[] = [
  { key: 'id' },
  { key: 'expires_at', label: 'STATE', format: (_v, l) => state(l) },
  { key: 'uses', format: (_v, l) => uses(l) },
  { key: 'can_publish', label: 'GUESTS', format: (v) => (v ? 'publish' : 'watch only') },
  { key: 'created_at', label: 'CREATED' },
  { key: 'expires_at', label: 'EXPIRES' },
];

interface CreateOptions {
  expiresIn?: number;
  maxUses?: number;
  watchOnly?: boolean;
}

export function register(program: Command): void {
  const links = program
    .command('join-links')
    .description('links that let people without an account join a live session as guests');

  links
    .command('create <sessionId>')
    .description('create a join link and print its address, to send to the guests (shown this once)')
    .option(
      '--expires-in <duration>',
      'seconds (60 or more), or 90m, 12h, 7d: from 1 minute to 30 days, rounded up to whole minutes (default one day)',
      expiresIn,
    )
    .option(
      '--max-uses <n>',
      `how many guests may join with it, 1 to ${MAX_USES} (default: any number until it expires)`,
      integer(1, MAX_USES),
    )
    .option('--watch-only', 'its guests watch and chat, but publish no camera, microphone or screen')
    .addHelpText(
      'after',
      '\nEach guest opens the address, types a name and joins under a new id (guest-…). The address goes\nto stdout (LINK=$(vss join-links create …)); what it allows, and its id to revoke it, to stderr.',
    )
    .action(async (sessionId: string, o: CreateOptions, cmd: Command) => {
      const link = await client(cmd).post('/v1/sessions/{sessionId}/join-links', {
        params: { path: { sessionId } },
        body: {
          ...(o.expiresIn !== undefined ? { expires_in_minutes: o.expiresIn } : {}),
          ...(o.maxUses !== undefined ? { max_uses: o.maxUses } : {}),
          ...(o.watchOnly ? { can_publish: false } : {}),
        },
      });
      printDone(cmd, link.url, link);
      if (globals(cmd).json) return;
      const who = link.max_uses === null ? 'any number of guests' : `up to ${link.max_uses} guests`;
      note(
        `expires ${cell(link.expires_at)}; ${who}; ${link.can_publish ? 'camera, microphone and screen allowed' : 'watch and chat only'}`,
      );
      note(`shown this once; revoke it with: vss join-links revoke ${link.session_id} ${link.id}`);
    });

  paged(
    links
      .command('list <sessionId>')
      .description("a session's join links, newest first, expired and used-up ones too (never a token)"),
  ).action(async (sessionId: string, _o, cmd: Command) => {
    const vss = client(cmd);
    printList(
      cmd,
      await collect(cmd, (query) =>
        vss.page('/v1/sessions/{sessionId}/join-links', { params: { path: { sessionId }, query } }),
      ),
      COLUMNS,
      'no join links',
    );
  });

  links
    .command('revoke <sessionId> <linkId>')
    .description('revoke a join link at once: guests already in stay (see vss remove)')
    .action(async (sessionId: string, linkId: string, _o, cmd: Command) => {
      const d = await client(cmd).delete('/v1/sessions/{sessionId}/join-links/{linkId}', {
        params: { path: { sessionId, linkId } },
      });
      printDone(cmd, `revoked ${linkId}`, d);
    });

  program
    .command('remove <sessionId> <userId>')
    .description(
      'remove a participant from a live session: their connection closes (their recording so far is kept)',
    )
    .addHelpText(
      'after',
      '\nA removal is not a ban: a connection token issued afterwards lets them in again. To keep a guest\nout, revoke their join link too; to delete what they recorded, see vss redact.',
    )
    .action(async (sessionId: string, userId: string, _o, cmd: Command) => {
      const r = await client(cmd).post('/v1/sessions/{sessionId}/participants/{userId}/remove', {
        params: { path: { sessionId, userId } },
      });
      printDone(cmd, `removed ${r.user_id} from ${r.session_id}`, r);
    });
}
