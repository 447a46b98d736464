/**
 * The browser SDK, served for pages of any origin: `GET /sdk/vss.js`, one ES module (what
 * `npm run build` makes of packages/sdk), so that an app needs no build step to put a call in its
 * page; beside it `/sdk/mic-worklet.js`, `/sdk/capture-worker.js` and `/sdk/opus-decoder.js`
 * (libopus in WebAssembly, fetched only by browsers whose own Opus decoder cannot be used), which
 * it loads by URL:
 *
 *   import { joinRoom } from 'https://vss.example.com/sdk/vss.js';
 *
 * `Access-Control-Allow-Origin: *` (a module script is fetched with CORS) and
 * `Cross-Origin-Resource-Policy: cross-origin`; nothing in it is secret, and the tokens it is given
 * authorise it, never cookies. Cached by validation: `Cache-Control: no-cache` with a strong ETag
 * (the first 16 hex digits of its SHA-256), so an upgraded server's SDK is used at once and an
 * unchanged one costs a 304. Read again when the file changes under the running server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';

/** Where `npm run build` puts the SDK (packages/sdk/dist), from src/ or dist/ alike. */
export const SDK_DIST = fileURLToPath(new URL('../../../../sdk/dist/', import.meta.url));

/** The module's bytes and ETag, read again when the file changes; null when it was not built. */
function loader(file: string): () => { body: Buffer; etag: string } | null {
  let cached: { body: Buffer; etag: string; mtime: number } | null = null;
  return () => {
    if (!existsSync(file)) return cached;
    try {
      const mtime = statSync(file).mtimeMs;
      if (!cached || cached.mtime !== mtime) {
        const body = readFileSync(file);
        cached = { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`, mtime };
      }
    } catch {
      // being rebuilt: keep serving the last copy
    }
    return cached;
  };
}

/** The embed page's script: the SDK's own prebuilt room, mounted on the page (no inline script). */
const EMBED_JS = `import { mountEmbed } from './vss.js';\nvoid mountEmbed(document.getElementById('room'));\n`;

/** The prebuilt room's page; `title` is escaped by the caller (it is fixed text). */
const EMBED_HTML = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Call</title>
<style>html,body,#room{height:100%;margin:0;background:#111418;color:#f4f6f8;font-family:system-ui,sans-serif}
.vss-embed-note,.vss-embed-join{padding:24px}.vss-embed-join label{display:flex;flex-direction:column;gap:6px;max-width:320px}
.vss-embed-join input{padding:8px;font:inherit}.vss-embed-join button{margin-top:12px;padding:8px 16px;font:inherit}</style>
<div id="room"></div>
<noscript>This call needs JavaScript.</noscript>
<script type="module" src="/sdk/embed.js"></script>
</html>
`;

/**
 * The embed page's headers: as the dashboard's pages, except that the project's embed origins may
 * frame it (`frame-ancestors`, none when it lists none), the camera and microphone are this
 * page's to ask for inside a frame the embedding page allowed them to, and the socket may be
 * opened to this origin.
 */
function embedHeaders(origins: readonly string[]): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'self'",
      "script-src 'self' 'wasm-unsafe-eval'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "media-src 'self' blob:",
      "connect-src 'self'",
      "worker-src 'self' blob:",
      `frame-ancestors ${origins.length ? origins.join(' ') : "'none'"}`,
      "base-uri 'none'",
      "form-action 'self'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/** What the SDK's routes need. */
export interface SdkOptions {
  /** the built SDK; defaults to SDK_DIST */
  dir?: string;
  /** the origins that may frame a project's prebuilt room; null when there is no such project */
  embedOrigins(projectId: string): Promise<string[] | null>;
}

export const sdkRoutes: FastifyPluginAsync<SdkOptions> = async (app, { dir = SDK_DIST, embedOrigins }) => {
  // The SDK and the modules it loads by URL: its microphone's AudioWorklet, its capture worker and
  // its WebAssembly Opus decoder (packages/sdk/src/worklets).
  for (const file of ['vss.js', 'mic-worklet.js', 'capture-worker.js', 'opus-decoder.js']) {
    const load = loader(`${dir}/${file}`);
    app.get(
      `/sdk/${file}`,
      { config: { auth: 'public', rateLimit: false }, schema: { hide: true } },
      (request, reply) => {
        const sdk = load();
        reply.header('access-control-allow-origin', '*').header('x-content-type-options', 'nosniff');
        if (!sdk)
          return reply
            .code(503)
            .type('text/plain; charset=utf-8')
            .send('The browser SDK is not built: run `npm run build` (npm start does it), then restart.');
        reply
          .header('cross-origin-resource-policy', 'cross-origin')
          .header('cache-control', 'no-cache')
          .header('etag', sdk.etag)
          .type('text/javascript; charset=utf-8');
        if (request.headers['if-none-match'] === sdk.etag) return reply.code(304).send();
        return reply.code(200).send(sdk.body);
      },
    );
  }
  app.get(
    '/sdk/embed.js',
    { config: { auth: 'public', rateLimit: false }, schema: { hide: true } },
    (_req, reply) =>
      reply
        .header('access-control-allow-origin', '*')
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .type('text/javascript; charset=utf-8')
        .send(EMBED_JS),
  );
  // The prebuilt room, for an iframe on one of the project's embed origins. Its credential is in
  // the address's fragment (`#token=` or `#join=`), which never reaches this server.
  app.get<{ Params: { projectId: string } }>(
    '/embed/:projectId',
    { config: { auth: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const origins = /^[\w-]{1,64}$/.test(request.params.projectId)
        ? await embedOrigins(request.params.projectId)
        : null;
      if (!origins)
        return reply
          .code(404)
          .headers(embedHeaders([]))
          .type('text/plain; charset=utf-8')
          .send('No such project: check the address of this room.');
      return reply.code(200).headers(embedHeaders(origins)).type('text/html; charset=utf-8').send(EMBED_HTML);
    },
  );
};
