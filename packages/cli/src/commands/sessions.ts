import type { Schemas } from '@vss/client';
import { Argument, type Command } from 'commander';
import { client, globals } from '../context.js';
import { collect, confirmed, displayName, paged } from '../options.js';
import { out, printDone, printList, printObject, type Column } from '../output.js';

type Session = Schemas['Session'];

/** What a session's state is, from its timestamps. */
export function sessionState(s: Pick<Session, 'started_at' | 'ended_at'>): string {
  if (s.ended_at) return 'ended';
  if (s.started_at) return 'live';
  return 'created';
}

const COLUMNS: Column<Session>[] = [
  { key: 'id' },
  { key: 'name' },
  { key: 'started_at', label: 'STATE', format: (_v, s) => sessionState(s) },
  { key: 'is_public', label: 'PUBLIC', format: (v) => (v ? 'yes' : 'no') },
  { key: 'created_at', label: 'CREATED' },
];

export function register(program: Command): void {
  const sessions = program.command('sessions').description('live sessions and their recordings');

  sessions
    .command('create')
    .description('create a session')
    .option('--name <name>', 'a name, up to 200 characters')
    .option('-q, --quiet', 'print only the id (for SESSION=$(vss sessions create -q))')
    .action(async (o: { name?: string; quiet?: boolean }, cmd: Command) => {
      const session = await client(cmd).post('/v1/sessions', {
        body: o.name !== undefined ? { name: o.name } : {},
      });
      if (o.quiet && !globals(cmd).json) out(`${session.id}\n`);
      else printObject(cmd, session);
    });

  paged(sessions.command('list').description('sessions, newest first')).action(async (_o, cmd: Command) => {
    const vss = client(cmd);
    printList(
      cmd,
      await collect(cmd, (query) => vss.page('/v1/sessions', { params: { query } })),
      COLUMNS,
      'no sessions',
    );
  });

  sessions
    .command('get <sessionId>')
    .description('one session')
    .action(async (sessionId: string, _o, cmd: Command) => {
      const s = await client(cmd).get('/v1/sessions/{sessionId}', { params: { path: { sessionId } } });
      printObject(cmd, { ...s, state: sessionState(s) });
    });

  sessions
    .command('visibility')
    .description('make a session public (listed and playable without a key) or private')
    .argument('<sessionId>')
    .addArgument(new Argument('<visibility>').choices(['public', 'private']))
    .action(async (sessionId: string, visibility: 'public' | 'private', _o, cmd: Command) => {
      const isPublic = await client(cmd).put('/v1/sessions/{sessionId}/visibility', {
        params: { path: { sessionId } },
        body: { is_public: visibility === 'public' },
      });
      printDone(cmd, `${sessionId} is now ${isPublic ? 'public' : 'private'}`, {
        id: sessionId,
        is_public: isPublic,
      });
    });

  sessions
    .command('token <sessionId>')
    .description('a connection token for the live WebSocket, valid 300 s')
    .requiredOption('--user <userId>', 'the participant the token is for')
    .option(
      '--name <name>',
      'the name others see for them, 1 to 64 characters of any script (default: the user id)',
      displayName,
    )
    .action(async (sessionId: string, o: { user: string; name?: string }, cmd: Command) => {
      const t = await client(cmd).post('/v1/sessions/{sessionId}/connection', {
        params: { path: { sessionId } },
        body: { user_id: o.user, ...(o.name !== undefined ? { display_name: o.name } : {}) },
      });
      printDone(cmd, t.access_token, t);
    });

  sessions
    .command('delete <sessionId>')
    .description('delete a session and everything it recorded')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (sessionId: string, _o, cmd: Command) => {
      if (!(await confirmed(cmd, `Delete session ${sessionId} and its recording?`))) return;
      const d = await client(cmd).delete('/v1/sessions/{sessionId}', { params: { path: { sessionId } } });
      printDone(cmd, `deleted ${sessionId}`, d);
    });
}
