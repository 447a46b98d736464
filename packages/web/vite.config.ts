import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is built into dist/ and served by the server at `/` (modules/dashboard).
// `@vss/client` is compiled from its sources, so the browser live client never waits for a build.
export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      '@vss/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)),
      '@vss/protocol': fileURLToPath(new URL('../protocol/src/index.ts', import.meta.url)),
      '@vss/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)),
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
  // `npx vite packages/web`: hot reload on :5173 against a server on :8080. The proxy presents the
  // server's own origin, which its same-origin rule for cookie writes expects.
  server: {
    proxy: {
      '^/(v1|oauth|mcp|docs|health|\\.well-known)(/|$)': {
        target: 'http://127.0.0.1:8080',
        headers: { origin: 'http://127.0.0.1:8080' },
      },
      '/ws': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
