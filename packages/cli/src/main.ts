import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { register as account } from './commands/account.js';
import { register as autoExport } from './commands/auto-export.js';
import { register as bot } from './commands/bot.js';
import { register as exportsCommands } from './commands/exports.js';
import { register as guests } from './commands/guests.js';
import { register as invitations } from './commands/invitations.js';
import { register as keys } from './commands/keys.js';
import { register as login } from './commands/login.js';
import { register as projects } from './commands/projects.js';
import { register as recording } from './commands/recording.js';
import { register as recordings } from './commands/recordings.js';
import { register as sessions } from './commands/sessions.js';
import { register as webhooks } from './commands/webhooks.js';
import { describeError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { printable } from './output.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** The `vss` program: global options, then each command family. */
export function program(): Command {
  const vss = new Command('vss')
    .description(
      'vss on the command line: sessions, guests, recordings, exports, webhooks, keys and test participants',
    )
    .version(version, '-V, --version')
    .option('--profile <name>', 'the profile `vss login` saved (default "default", or VSS_PROFILE)')
    .option(
      '--base-url <url>',
      'the server (default: a profile named with --profile, else VSS_BASE_URL, else the default profile, else http://localhost:8080)',
    )
    .option(
      '--api-key <key>',
      'an API key (default: a profile named with --profile, else VSS_API_KEY, else the default profile)',
    )
    .option('--json', 'print JSON for scripts instead of tables')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // Commander's own errors ("unknown option", "missing required argument") as one line, and its
      // suggestion on the next. They quote the command line's values, whose control characters
      // (a newline too) are shown escaped, not acted on.
      outputError: (text, write) => {
        const [line, ...hints] = text
          .replace(/^error: /, '')
          .trim()
          .split(/\n(?=\(Did you mean )/);
        write(`vss: ${[line!, ...hints].map(printable).join('\n')}\n`);
      },
    });
  login(vss);
  projects(vss);
  sessions(vss);
  guests(vss);
  recordings(vss);
  recording(vss);
  exportsCommands(vss);
  autoExport(vss);
  webhooks(vss);
  account(vss);
  keys(vss);
  invitations(vss);
  bot(vss);
  return vss;
}

export async function run(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, successfully; a bare `vss` shows the help as a usage error.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT_OK;
      return EXIT_USAGE;
    }
    const { line, code } = describeError(err);
    // One line, whatever the server's message held.
    process.stderr.write(printable(line) + '\n');
    return code;
  }
}

// `vss … | head` closes the pipe early: that is the reader being done, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_OK);
  throw err;
});

process.exitCode = await run(process.argv.slice(2));
