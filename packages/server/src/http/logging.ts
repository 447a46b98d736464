import type { FastifyInstance } from 'fastify';

/** Query parameters whose values never reach a log line. */
const SECRET_QUERY = /([?&](?:access_token|token)=)[^&]*/gi;

/** The URL as it may be logged: token values replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/** Logger options: credentials in headers are never logged. */
export const loggerRedaction = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** One structured line per answered request, without secrets. */
export function installRequestLog(app: FastifyInstance, level: string): void {
  // Above info nothing would be written: then no hook at all.
  if (['fatal', 'error', 'warn', 'silent'].includes(level)) return;
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        reqId: request.id,
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        principal: request.principal
          ? `${request.principal.kind}:${request.principal.credentialId}`
          : undefined,
      },
      'request',
    );
    done();
  });
}
