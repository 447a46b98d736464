import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const TSC = resolve(__dirname, '../../../node_modules/typescript/bin/tsc');

/**
 * A scratch folder inside the package, so that `@vss/client`, openapi-fetch and the rest resolve
 * from it as they do for a project that installed the package. The caller removes it.
 */
export function scratchDir(): string {
  return mkdtempSync(join(resolve(__dirname, '..'), '.typecheck-'));
}

/**
 * Type-checks the `.ts` files of `dir` strictly, as a user's ESM project would (NodeNext), and
 * throws with tsc's report when they do not compile. `types` names the ambient packages (node).
 */
export function typecheck(dir: string, types: string[] = []): void {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        skipLibCheck: true,
        types,
      },
      include: ['*.ts'],
    }),
  );
  try {
    execFileSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    throw new Error(`tsc:\n${(err as { stdout: string }).stdout}`);
  }
}
