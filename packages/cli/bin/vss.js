#!/usr/bin/env node
// The `vss` command: runs the compiled CLI (packages/cli/dist), built by `npm run build`
// (in this repository `npm ci` builds it too) or shipped in the published package.
import('../dist/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/main.js')) {
    console.error('vss: the CLI is not built yet: run `npm run build` in the repository');
    process.exit(2);
  }
  throw err;
});
