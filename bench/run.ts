/**
 * npm run bench -- <name> [--quick]
 *
 * Builds the server (benchmarks measure the compiled code in packages/server/dist), then runs
 * bench/<name>.ts, whose default export is `(options: BenchOptions) => Promise<void>`.
 * Every bench/*.ts is a benchmark except this runner and baseline servers (`*-server.ts`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ROOT, stopAll } from './lib/server.ts';

export interface BenchOptions {
  /** the short version: the whole run under a minute */
  quick: boolean;
  /** the remaining command-line arguments */
  args: string[];
}

function benchmarks(): string[] {
  return readdirSync(join(ROOT, 'bench'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3))
    .filter((n) => n !== 'run' && !n.endsWith('-server'))
    .sort();
}

function usage(message: string): never {
  const names = benchmarks();
  console.error(
    `${message}\n\nusage: npm run bench -- <name> [--quick]\n  <name>: ${names.length ? names.join(', ') : '(none yet)'}`,
  );
  console.error('  --quick: a short run (under a minute); the default is the full run');
  process.exit(2);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const rest = argv.filter((a) => a !== '--quick');
  const name = rest.find((a) => !a.startsWith('-'));
  if (!name) usage('bench: which benchmark?');
  if (!benchmarks().includes(name)) usage(`bench: no benchmark named "${name}"`);
  const unknown = rest.filter((a) => a !== name);
  if (unknown.some((a) => a === '-h' || a === '--help')) usage('bench: help');

  console.log('bench: building the server (npm run build)');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error(`bench: the build failed (exit ${build.status ?? build.signal})`);
    process.exit(1);
  }

  const mod = (await import(pathToFileURL(join(ROOT, 'bench', `${name}.ts`)).href)) as {
    default?: (options: BenchOptions) => Promise<void>;
  };
  if (typeof mod.default !== 'function') throw new Error(`bench/${name}.ts has no default export function`);
  await mod.default({ quick, args: unknown });
}

main()
  .then(async () => {
    await stopAll();
    process.exit(0);
  })
  .catch(async (err: Error) => {
    console.error(`bench: failed: ${err.stack ?? err.message}`);
    await stopAll();
    process.exit(1);
  });
