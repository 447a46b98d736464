import { VssClient } from '@vss/client';
import type { Command } from 'commander';
import { globals, settings } from './context.js';
import { UsageError } from './errors.js';

/*
 * Who a command acts as, where the API key alone does not say: the project of routes that name
 * one in their path, and the signed-in user that a few routes (agent tokens, redeeming an
 * invitation) require instead of a key.
 */

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

/**
 * What was piped on standard input (`echo … | vss …`), so that a secret stays out of the shell's
 * history and of `ps`; null when it is a terminal.
 */
export async function stdinText(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A password piped on standard input: its first line (`echo` adds a newline that is not part of it). */
async function passwordFromStdin(): Promise<string | null> {
  return (await stdinText())?.split(/\r?\n/)[0] || null;
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
