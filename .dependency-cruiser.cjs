/**
 * The layout rules of the server, checked by `npm run check` (dependency-cruiser):
 * - no file imports itself back through others, and no folder does either;
 * - a capability module (`modules/<name>/`) uses another only through that module's `service.ts`;
 * - the core folders (`http/`, `db/`, `bus/`, `streams/`, `jobs/`, `lib/`, `counters/`) and
 *   `config.ts` never import a module or the wiring above them (`runtime.ts`, `app.ts`,
 *   `main.ts`, `worker.ts`): modules depend inward on the core, never the reverse.
 * - the server never imports `@vss/client`: what it shares with its clients (wire formats, close
 *   codes, webhook signatures) is in `@vss/protocol`, which both import;
 * - the live hub never knows what carries a connection: only the routes and the socket adapter
 *   import `live/socket.ts`.
 * Type-only imports count like any other.
 */
const SRC = '^packages/server/src/';

module.exports = {
  forbidden: [
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'files never import each other in a circle',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'folders never import each other in a circle',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'modules-only-through-service',
      severity: 'error',
      comment: "a module uses another module only through that module's service.ts",
      from: { path: `${SRC}modules/([^/]+)/` },
      to: {
        path: `${SRC}modules/[^/]+/`,
        pathNot: [`${SRC}modules/$1/`, `${SRC}modules/[^/]+/service\\.ts$`],
      },
    },
    {
      name: 'core-does-not-import-modules',
      severity: 'error',
      comment:
        'the core (http, db, bus, streams, jobs, lib, counters, config) never imports a module or the wiring',
      from: { path: `${SRC}((http|db|bus|streams|blobs|jobs|lib|counters)/|config\\.ts$)` },
      to: { path: `${SRC}(modules/|(runtime|app|main|worker)\\.ts$)` },
    },
    {
      name: 'modules-do-not-import-the-wiring',
      severity: 'error',
      comment: 'modules are wired by runtime.ts and app.ts, and never import them',
      from: { path: `${SRC}modules/` },
      to: { path: `${SRC}(runtime|app|main|worker)\\.ts$` },
    },
    {
      name: 'server-does-not-import-the-client',
      severity: 'error',
      comment: 'the server shares wire formats with its clients through @vss/protocol, never @vss/client',
      from: { path: SRC },
      to: { path: '^packages/client/' },
    },
    {
      name: 'live-hub-knows-no-socket',
      severity: 'error',
      comment: 'only the live routes and the socket adapter know that a connection is a WebSocket',
      from: { path: `${SRC}modules/live/`, pathNot: `${SRC}modules/live/(routes|socket)\\.ts$` },
      to: { path: `${SRC}modules/live/socket\\.ts$` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^packages/',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
