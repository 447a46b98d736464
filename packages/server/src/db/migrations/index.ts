import type { Migration, MigrationProvider } from 'kysely';
import type { Engine } from '../types.js';
import { coreMigration } from './001-core.js';
import { liveMigration } from './002-live.js';
import { recordingsMigration } from './003-recordings.js';

/** Every migration in order. Names sort lexically; never rename or edit one that has shipped. */
export function migrations(engine: Engine): MigrationProvider {
  const all: Record<string, Migration> = {
    '001-core': coreMigration(engine),
    '002-live': liveMigration(engine),
    '003-recordings': recordingsMigration(engine),
  };
  return { getMigrations: async () => all };
}
