import type { FastifyReply, FastifyRequest } from 'fastify';

/** Answers a request with the dashboard's HTML page, which then reads the API itself. */
export type HtmlPage = (reply: FastifyReply) => FastifyReply;

/**
 * Whether a GET asks for a page rather than data: a browser navigating sends `Accept: text/html,…`;
 * fetch, curl and API clients send `*\/*` or `application/json`, and get the data as before.
 */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}
