import { VssClient } from '@vss/client';
import type { Command } from 'commander';
import { globals, profileNameOf, settings } from '../context.js';
import { UsageError } from '../errors.js';
import { stdinText } from '../identity.js';
import { printDone } from '../output.js';
import { profilePath, removeProfile, saveProfile } from '../profiles.js';

export function register(program: Command): void {
  program
    .command('login')
    .description('check an API key against the server and save it, with the server address, in a profile')
    .addHelpText(
      'after',
      '\nThe key comes from --api-key, VSS_API_KEY, or standard input (`--api-key -` reads it from there\n' +
        'whatever else is set: `vss login --api-key - < key.txt` keeps it out of the process list). Profiles are kept in\n' +
        '~/.config/vss/config.json (VSS_CONFIG to move it), readable by you only (mode 0600).',
    )
    .action(async (_opts, cmd: Command) => {
      const g = globals(cmd);
      // The server as every command finds it (so a new key for a profile keeps its server); the
      // key is the new one, never the profile's old one.
      const {
        baseUrl,
        profileName: profile,
        profileFile: path,
      } = settings(g, process.env, { creating: true });
      // `--api-key -` (or no key at all) reads it from standard input: a key in the arguments shows in `ps`.
      const fromStdin = g.apiKey === '-';
      const given = fromStdin ? undefined : (g.apiKey ?? process.env.VSS_API_KEY);
      const apiKey = given ?? ((await stdinText())?.trim() || null);
      if (!apiKey && fromStdin)
        throw new UsageError('login: --api-key - reads the key from standard input, which was empty');
      if (!apiKey)
        throw new UsageError('login: give the key with --api-key, VSS_API_KEY, or on standard input');
      // One call proves the address and the key; a restricted key cannot list projects, which is said plainly.
      const vss = new VssClient({ baseUrl, apiKey, retry: false });
      const projects = await vss.get('/v1/projects', { params: { query: { limit: 200 } } });
      saveProfile(path, profile, {
        base_url: baseUrl,
        api_key: apiKey,
      });
      const names = projects.map((p) => p.name).join(', ');
      printDone(
        cmd,
        `Logged in to ${baseUrl} as profile "${profile}" (projects: ${names}); saved in ${path}`,
        {
          profile,
          base_url: baseUrl,
          file: path,
          projects,
        },
      );
    });

  program
    .command('logout')
    .description('forget the key of a profile')
    .action((_opts, cmd: Command) => {
      const g = globals(cmd);
      const profile = profileNameOf(g);
      const path = profilePath();
      if (!removeProfile(path, profile)) throw new UsageError(`no profile "${profile}" in ${path}`);
      printDone(cmd, `Removed profile "${profile}" from ${path}`, { profile, removed: true });
    });

  program
    .command('whoami')
    .description('the server, profile and key this command line would use')
    .action((_opts, cmd: Command) => {
      const s = settings(globals(cmd));
      const key = s.apiKey ? `${s.apiKey.slice(0, 12)}…` : null;
      printDone(
        cmd,
        `server   ${s.baseUrl}\nprofile  ${s.profileName} (${s.profileFile})\nkey      ${key ?? '(none)'}`,
        {
          base_url: s.baseUrl,
          profile: s.profileName,
          file: s.profileFile,
          key_prefix: key,
        },
      );
    });
}
