import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { PAGE_SECURITY_HEADERS, type HtmlPage } from '../../http/html-page.js';

/** Where `npm run build` puts the dashboard (packages/web/dist), from src/ or dist/ alike. */
export const WEB_DIST = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

/**
 * The dashboard's client-side pages. Each path answers the one HTML page (the app routes in the
 * browser); they are listed rather than caught by a wildcard so that an unknown path stays an
 * enveloped 404 and a wrong method on an API path stays a 405.
 */
export const PAGE_PATHS = [
  '/',
  '/login',
  '/signup',
  '/invite',
  '/sessions',
  '/sessions/:sessionId',
  '/sessions/:sessionId/live',
  '/sessions/:sessionId/replay',
  '/webhooks',
  '/webhooks/:webhookId',
  '/keys',
  '/agents',
  '/usage',
  '/members',
  '/projects',
  '/watch',
  '/watch/:sessionId',
  '/join/:token',
] as const;

/** What the dashboard routes need. */
export interface DashboardOptions {
  /** the built app; defaults to WEB_DIST */
  dir?: string;
}

/**
 * The built page; null when the dashboard was not built. It is read again when the file changes
 * (a rebuild or an upgrade under the running server): the old page names asset files that a
 * rebuild deletes. While the file is briefly missing during a rebuild, the last copy is served.
 */
export function loadPage(dir = WEB_DIST): HtmlPage | null {
  const file = `${dir}/index.html`;
  if (!existsSync(file)) return null;
  let html = readFileSync(file);
  let mtime = statSync(file).mtimeMs;
  const current = (): Buffer => {
    try {
      const now = statSync(file).mtimeMs;
      if (now !== mtime) {
        html = readFileSync(file);
        mtime = now;
      }
    } catch {
      // being rebuilt: keep serving the last page
    }
    return html;
  };
  return (reply: FastifyReply) =>
    reply
      .code(200)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .headers(PAGE_SECURITY_HEADERS)
      .send(current());
}

/** The dashboard: its assets (hashed names, cached for a year) and its page at every app path. */
export const dashboardRoutes: FastifyPluginAsync<DashboardOptions & { page: HtmlPage | null }> = async (
  app,
  { dir = WEB_DIST, page },
) => {
  if (page) {
    // Only the hashed build output is served as files (send() keeps every path inside the
    // folder); the page itself goes through `page`.
    await app.register(fastifyStatic, { root: `${dir}/assets`, serve: false });
    app.get<{ Params: { '*': string } }>(
      '/assets/*',
      { config: { auth: 'public', rateLimit: false }, schema: { hide: true } },
      (request, reply) => reply.sendFile(request.params['*'], { immutable: true, maxAge: '365d' }),
    );
    const favicon = `${dir}/favicon.svg`;
    if (existsSync(favicon)) {
      const svg = readFileSync(favicon);
      app.get('/favicon.svg', { config: { auth: 'public' }, schema: { hide: true } }, (_req, reply) =>
        reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(svg),
      );
    }
  }
  for (const url of PAGE_PATHS)
    app.get(url, { config: { auth: 'public', rateLimit: false }, schema: { hide: true } }, (_req, reply) =>
      page
        ? page(reply)
        : reply
            .code(503)
            .type('text/plain; charset=utf-8')
            .send('The dashboard is not built: run `npm run build` (npm start does it), then restart.'),
    );
};
