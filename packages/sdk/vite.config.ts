import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// One ES module, dist/vss.js, with @vss/client and @vss/protocol inside: what the server serves at
// /sdk/vss.js and what `npm pack` ships. Not minified names-wise beyond what esbuild does by
// default, so that a stack trace in an app's console still reads.
export default defineConfig({
  resolve: {
    alias: {
      '@vss/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)),
      '@vss/protocol': fileURLToPath(new URL('../protocol/src/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    reportCompressedSize: false,
    // The SDK, and the modules it loads by URL (a worklet and a worker cannot come from the page's
    // bundle; the WebAssembly Opus decoder is fetched only by the browsers that need it): each
    // one file with nothing shared, served from /sdk/ beside it.
    lib: {
      entry: {
        vss: fileURLToPath(new URL('src/index.ts', import.meta.url)),
        'mic-worklet': fileURLToPath(new URL('src/worklets/mic-worklet.ts', import.meta.url)),
        'capture-worker': fileURLToPath(new URL('src/worklets/capture-worker.ts', import.meta.url)),
        'opus-decoder': fileURLToPath(new URL('src/worklets/opus-decoder.ts', import.meta.url)),
      },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
  },
});
