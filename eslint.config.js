import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const BENCH_SEAM = 'bench/ reaches the server through @vss/server/tools (packages/server/src/tools.ts) only.';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '**/.typecheck-*/**', '.readme-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  // A source file that outgrows 400 lines holds more than one concern: split it.
  { files: ['packages/*/src/**'], rules: { 'max-lines': ['error', { max: 400 }] } },
  { files: ['bench/**', 'vitest.config.ts'], rules: { 'no-console': 'off' } },
  // The benchmarks keep the 400-line cap of src/, and reach the server only through its public seam
  // (`@vss/server/tools`: packages/server/src/tools.ts) and the slow-link helpers they share with the
  // server's network tests (packages/server/test/support/netlab/), never through its internals, so
  // that a change inside the server breaks them only where it changes the seam. Dynamic imports and
  // file paths into the server's src/ or dist/ count too; its entry point (dist/main.js) is what they
  // start.
  {
    files: ['bench/**'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!.*packages/server/test/support/netlab/).*packages/server/',
              message: BENCH_SEAM,
            },
            {
              regex: '^@vss/server(?!/tools$)',
              message: BENCH_SEAM,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/packages\\/server\\/(src|dist)\\/(?!main\\.js$)/]',
          message: BENCH_SEAM,
        },
      ],
    },
  },
  // CommonJS configuration files of tools (dependency-cruiser).
  { files: ['**/*.cjs'], languageOptions: { globals: globals.node, sourceType: 'commonjs' } },
  // Examples are Node scripts that print what they do.
  { files: ['examples/**'], languageOptions: { globals: globals.node }, rules: { 'no-console': 'off' } },
  // Node scripts: the CLI's launcher and the client's type generator.
  {
    files: ['packages/cli/bin/**', 'packages/client/scripts/**'],
    languageOptions: { globals: globals.node },
  },
  // The dashboard and the SDK run in browsers.
  { files: ['packages/web/src/**', 'packages/sdk/src/**'], languageOptions: { globals: globals.browser } },
  // The dashboard is built on the SDK as any app is: the media engine (capture, codecs, the
  // uplink, decoding) lives in @vss/sdk and is reached through its public entry only.
  {
    files: ['packages/web/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/sdk/src/**', '@vss/sdk/*'], message: "Import from '@vss/sdk' only." }] },
      ],
      'no-restricted-globals': [
        'error',
        ...[
          'VideoEncoder',
          'VideoDecoder',
          'AudioEncoder',
          'AudioDecoder',
          'EncodedVideoChunk',
          'EncodedAudioChunk',
          'VideoFrame',
          'AudioData',
          'MediaStreamTrackProcessor',
        ].map((name) => ({ name, message: 'Media engine code belongs in @vss/sdk.' })),
      ],
    },
  },
  // Tests read JSON answers whose shape they then assert.
  { files: ['packages/*/test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
