import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The security headers of the pages this origin serves to browsers (the dashboard, the API
 * reference at /docs): scripts from this origin only, and WebAssembly compiled by them (the
 * SDK's Opus decoder, for browsers whose own cannot be used; `'wasm-unsafe-eval'` allows no
 * JavaScript `eval`); styles too, plus inline ones (the pages
 * position elements through style attributes); images also from blob: and data:; requests and
 * WebSockets to this origin only; never framed; no content-type sniffing. The login cookie is
 * this origin's, so a page here that could be framed or run another site's script could act as
 * the person signed in.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
});

/** Answers a request with the dashboard's HTML page, which then reads the API itself. */
export type HtmlPage = (reply: FastifyReply) => FastifyReply;

/** The quality an `Accept` header gives `type` (exactly, or through `*\/*`); 0 when it is not accepted. */
function quality(accept: string, type: string): number {
  let best = 0;
  let exact = false;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const value = q === undefined ? 1 : Number(q) || 0;
    if (range === type) {
      best = exact ? Math.max(best, value) : value;
      exact = true;
    } else if (!exact && range === '*/*') best = Math.max(best, value);
  }
  return best;
}

/**
 * Whether a GET asks for a page rather than data: a browser navigating names `text/html` first
 * (`text/html,…,*\/*;q=0.8`); fetch, curl and API clients send `*\/*` or `application/json`, and
 * get the data as before. `text/html` must be named, with a quality above zero and not below
 * that of `application/json`.
 */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (typeof accept !== 'string' || !accept.toLowerCase().includes('text/html')) return false;
  const html = quality(accept, 'text/html');
  return html > 0 && html >= quality(accept, 'application/json');
}
