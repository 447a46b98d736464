import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openRuntime } from './runtime.js';

/**
 * Prints the OpenAPI document that `GET /v1/openapi.json` serves, without listening: the app is
 * built on a throwaway embedded store with the default configuration (so `servers` names
 * http://localhost:8080). The typed client's types and the linter read this output.
 *
 *   node packages/server/dist/print-openapi.js > openapi.json
 */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vss-openapi-'));
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      JOB_WORKER: 'false',
      PATH: process.env.PATH ?? '',
    });
    const runtime = await openRuntime(config);
    const app = await buildApp(runtime);
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
      process.stdout.write(JSON.stringify(JSON.parse(res.body), null, 2) + '\n');
    } finally {
      await app.close();
      await runtime.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  console.error(`print-openapi: ${err.message}`);
  process.exit(1);
});
