/**
 * The browser SDK, served for pages of any origin: `GET /sdk/vss.js`, one ES module (what
 * `npm run build` makes of packages/sdk), so that an app needs no build step to put a call in its
 * page:
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

export const sdkRoutes: FastifyPluginAsync<{ dir?: string }> = async (app, { dir = SDK_DIST }) => {
  const load = loader(`${dir}/vss.js`);
  app.get(
    '/sdk/vss.js',
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
};
