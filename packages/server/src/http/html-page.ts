import type { FastifyReply, FastifyRequest } from 'fastify';

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
