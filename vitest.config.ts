import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pg = process.env.TEST_DATABASE_URL;
if (!pg) console.log('[vss] PostgreSQL variant skipped: TEST_DATABASE_URL is not set (.ci/run sets it).');
if (!process.env.TEST_REDIS_URL)
  console.log('[vss] Redis variants skipped: TEST_REDIS_URL is not set (.ci/run sets it).');

/**
 * Every project runs a failed test once more before it counts as failed: real browsers, shaped
 * links, several server processes and ffmpeg share a two-core machine with the rest of the suite,
 * and one starved second there must not fail a run. A test that fails twice fails. One that passed
 * only when run again is not hidden: vitest names it, and `.ci/run` lists each with its first
 * failure at the end of the run, so a race it found is read and fixed, not forgotten.
 */
const RETRY = 1;

// The API's files (SQLite, and PostgreSQL beside it) run three at a time on two cores, where
// vitest would run one: much of their time is spent waiting on sockets, ffmpeg and timers (measured
// on the 2-core machine: 482 s with three, 672 s with two). They share their worker's modules
// instead of loading the server again for every file (isolate: false), which was a third of their
// time; so a file must leave no global state behind: each app it starts is closed and the clock it
// moved is restored (test/support/README.md). What counts pictures or seconds against a budget and
// needs the machine to itself runs later, alone (MEASURED).
const API_FILES = { maxWorkers: Math.max(3, availableParallelism() + 1), isolate: false, retry: RETRY };
/**
 * Files without root that count frames of a live call against a budget: run alone, after the rest
 * (with three API files beside them, the bots' encoders were starved: 9 pictures of 12 in CI).
 */
const MEASURED = ['packages/cli/test/bot-layers.test.ts', 'packages/cli/test/bot.test.ts'];

export default defineConfig({
  resolve: {
    alias: {
      '@vss/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
      '@vss/protocol': fileURLToPath(new URL('./packages/protocol/src/index.ts', import.meta.url)),
      '@vss/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)),
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
          exclude: ['packages/web/test/**', 'packages/*/test/network/**', ...MEASURED],
          env: { VSS_TEST_ENGINE: 'sqlite' },
          ...API_FILES,
        },
      },
      // The dashboard in Chromium: after the other projects, one file at a time, so that a browser
      // decoding live video never competes with the rest of the suite for the machine's cores. The
      // dashboard talks to the API, not to a database, so it runs once, on the embedded default.
      {
        extends: true as const,
        test: {
          name: 'browser',
          retry: RETRY,
          include: ['packages/web/test/**/*.test.ts'],
          env: { VSS_TEST_ENGINE: 'sqlite' },
          testTimeout: 120_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      // Live calls whose rates are measured, without root: alone, once the rest is done.
      {
        extends: true as const,
        test: {
          name: 'measured',
          retry: RETRY,
          include: MEASURED,
          env: { VSS_TEST_ENGINE: 'sqlite' },
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      // Live media over slow links (network namespaces, tc; root only, else skipped): delays and
      // frame rates are measured, so they run last, alone, one file at a time, on a quiet machine.
      {
        extends: true as const,
        test: {
          name: 'network',
          retry: RETRY,
          include: ['packages/*/test/network/**/*.test.ts'],
          env: { VSS_TEST_ENGINE: 'sqlite' },
          testTimeout: 150_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
      ...(pg
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['packages/*/test/**/*.test.ts'],
                // Once is enough for what cannot differ by engine: the command line and the client
                // talk HTTP to the server whatever is behind it; the protocol's and the SDK's specs
                // touch no server; and the renders below check ffmpeg's output of a recording whose
                // rows exports.test.ts reads back on PostgreSQL too.
                exclude: [
                  'packages/web/test/**',
                  'packages/cli/test/**',
                  'packages/client/test/**',
                  'packages/protocol/test/**',
                  'packages/sdk/test/**',
                  'packages/*/test/network/**',
                  'packages/server/test/export-audio.test.ts',
                  'packages/server/test/export-cuts.test.ts',
                  'packages/server/test/export-gaps.test.ts',
                  'packages/server/test/export-names.test.ts',
                ],
                env: { VSS_TEST_ENGINE: 'postgres' },
                ...API_FILES,
              },
            },
          ]
        : []),
    ],
  },
});
