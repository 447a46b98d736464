import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pg = process.env.TEST_DATABASE_URL;
if (!pg) console.log('[vss] PostgreSQL variant skipped: TEST_DATABASE_URL is not set (.ci/run sets it).');
if (!process.env.TEST_REDIS_URL)
  console.log('[vss] Redis variants skipped: TEST_REDIS_URL is not set (.ci/run sets it).');

export default defineConfig({
  resolve: {
    alias: {
      '@vss/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
      '@vss/protocol': fileURLToPath(new URL('./packages/protocol/src/index.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true as const,
        test: {
          name: 'sqlite',
          include: ['packages/*/test/**/*.test.ts'],
          exclude: ['packages/web/test/**', 'packages/*/test/network/**'],
          env: { VSS_TEST_ENGINE: 'sqlite' },
        },
      },
      // The dashboard in Chromium: after the other projects, one file at a time, so that a browser
      // decoding live video never competes with the rest of the suite for the machine's cores. The
      // dashboard talks to the API, not to a database, so it runs once, on the embedded default.
      {
        extends: true as const,
        test: {
          name: 'browser',
          include: ['packages/web/test/**/*.test.ts'],
          env: { VSS_TEST_ENGINE: 'sqlite' },
          testTimeout: 120_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      // Live media over slow links (network namespaces, tc; root only, else skipped): delays and
      // frame rates are measured, so they run last, alone, one file at a time, on a quiet machine.
      {
        extends: true as const,
        test: {
          name: 'network',
          include: ['packages/*/test/network/**/*.test.ts'],
          env: { VSS_TEST_ENGINE: 'sqlite' },
          testTimeout: 150_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      ...(pg
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['packages/*/test/**/*.test.ts'],
                // The command line talks HTTP to the server, whatever the engine behind it: once is enough.
                exclude: ['packages/web/test/**', 'packages/cli/test/**', 'packages/*/test/network/**'],
                env: { VSS_TEST_ENGINE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
