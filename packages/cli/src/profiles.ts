import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './errors.js';

/** What `vss login` keeps per profile. */
export interface Profile {
  base_url: string;
  api_key: string;
}

interface ProfileFile {
  profiles: Record<string, Profile>;
}

/**
 * Where profiles live: `VSS_CONFIG` when set, else `$XDG_CONFIG_HOME/vss/config.json`, else
 * `~/.config/vss/config.json`. The file holds API keys, so it is written with mode 0600.
 */
export function profilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VSS_CONFIG) return env.VSS_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'vss', 'config.json');
}

export function readProfiles(path: string): ProfileFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: Partial<ProfileFile> | null;
  try {
    parsed = JSON.parse(text) as Partial<ProfileFile> | null;
  } catch {
    throw new UsageError(`${path} is not valid JSON: fix it or delete it and run \`vss login\` again`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${path} holds no profiles: fix it or delete it and run \`vss login\` again`);
  return { profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {} };
}

/** Saves one profile, replacing the file atomically with mode 0600. */
export function saveProfile(path: string, name: string, profile: Profile): void {
  const file = readProfiles(path);
  file.profiles[name] = profile;
  writeProfiles(path, file);
}

/** Removes one profile; false when there was none. */
export function removeProfile(path: string, name: string): boolean {
  const file = readProfiles(path);
  if (!file.profiles[name]) return false;
  delete file.profiles[name];
  writeProfiles(path, file);
  return true;
}

function writeProfiles(path: string, file: ProfileFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600); // a umask cannot widen it, but an existing tmp file kept its mode
  renameSync(tmp, path);
}
