import { VssClient } from '@vss/client';
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import { profilePath, readProfiles, type Profile } from './profiles.js';

/** The options every command takes (`vss --help` lists them). */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';

/** Where the settings of one run come from: flags, then VSS_* variables, then the profile. */
export interface Settings {
  baseUrl: string;
  apiKey: string | null;
  profileName: string;
  profileFile: string;
}

/** The profile a command uses: --profile, else VSS_PROFILE, else "default". */
export function profileNameOf(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env): string {
  return opts.profile ?? env.VSS_PROFILE ?? 'default';
}

/**
 * The run's settings. A profile named with --profile must exist, unless `creating` (`vss login`
 * makes it).
 */
export function settings(
  opts: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
  { creating = false } = {},
): Settings {
  const profileName = profileNameOf(opts, env);
  const profileFile = profilePath(env);
  const profiles = readProfiles(profileFile).profiles;
  const profile: Partial<Profile> = profiles[profileName] ?? {};
  if (opts.profile && !profiles[opts.profile] && !creating)
    throw new UsageError(
      `no profile "${opts.profile}" in ${profileFile}: run \`vss login --profile ${opts.profile}\``,
    );
  // Flags first; then a profile named with --profile (asked for by name on this very command);
  // then VSS_BASE_URL and VSS_API_KEY; then the default (or VSS_PROFILE's) profile.
  const named = opts.profile !== undefined;
  const baseUrl =
    opts.baseUrl ??
    (named ? profile.base_url : undefined) ??
    env.VSS_BASE_URL ??
    profile.base_url ??
    DEFAULT_BASE_URL;
  checkBaseUrl(baseUrl);
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey:
      opts.apiKey ?? (named ? profile.api_key : undefined) ?? env.VSS_API_KEY ?? profile.api_key ?? null,
    profileName,
    profileFile,
  };
}

export function checkBaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--base-url: "${url}" is not a URL (example: http://localhost:8080)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--base-url: "${url}" must start with http:// or https://`);
}

/** The options of this command with the global ones. */
export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** A REST client with the run's key; a usage error (exit 2) when there is no key. */
export function client(cmd: Command): VssClient {
  const s = settings(globals(cmd));
  if (!s.apiKey)
    throw new UsageError(
      'no API key: run `vss login`, set VSS_API_KEY, or pass --api-key (create one in the dashboard under API keys)',
    );
  // An API key acts on its own project: the routes without a project in their path use that one.
  return new VssClient({ baseUrl: s.baseUrl, apiKey: s.apiKey });
}
