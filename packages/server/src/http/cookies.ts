import type { FastifyReply, FastifyRequest } from 'fastify';

/** The name of the dashboard login cookie. */
export const SESSION_COOKIE = 'service_session';

/**
 * The value of the `service_session` cookie of a request, if any. Parsed only when asked for, so
 * that requests authenticated by key pay nothing for cookies. Our values are base64url: no decoding.
 */
export function readSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** Sets the login cookie: HttpOnly, SameSite=Lax, Path=/, Max-Age, and Secure over https. */
export function setSessionCookie(reply: FastifyReply, value: string, maxAgeS: number, secure: boolean): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${value}; Max-Age=${maxAgeS}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}

/** Clears the login cookie. */
export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}
