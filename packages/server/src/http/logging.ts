import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';

/** Query parameters whose values never reach a log line. */
const SECRET_QUERY = /([?&](?:access_token|token)=)[^&]*/gi;

/** The URL as it may be logged: token values replaced. */
export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_QUERY, '$1[redacted]') : url;
}

/** What the access log needs of the process's logger. */
export interface AccessLog {
  /** whether lines at `info` are written */
  enabled: boolean;
  /** writes one finished JSON line */
  write(line: string): void;
}

/**
 * One structured line per answered request, without secrets, at `info`:
 * `{"level":30,"time":…,"pid":…,"hostname":…,"reqId":…,"method":…,"url":…,"status":…,"ms":…,"principal":…,"msg":"request"}`,
 * the shape of every other line of the process's logger (pino), so that one parser reads them all.
 * The line is built by hand rather than through `logger.info({...})`: pino's generic serialisation
 * (an object per request, a walk over its keys, redaction checks) cost more than the rest of a
 * cached GET. Only the URL can hold arbitrary characters and goes through JSON.stringify; the
 * other values are numbers or text of a known alphabet (HTTP method token, `req-<base36>`,
 * `<kind>:<uuid>`). Below `info` there is no hook at all.
 */
export function installRequestLog(app: FastifyInstance, log: AccessLog): void {
  if (!log.enabled) return;
  const head = `{"level":30,"time":`;
  const process_ = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"reqId":"`;
  app.addHook('onResponse', (request, reply, done) => {
    const p = request.principal;
    log.write(
      head +
        Date.now() +
        process_ +
        request.id +
        '","method":"' +
        request.method +
        '","url":' +
        JSON.stringify(redactUrl(request.url)) +
        ',"status":' +
        reply.statusCode +
        ',"ms":' +
        Math.round(reply.elapsedTime * 10) / 10 +
        (p ? ',"principal":"' + p.kind + ':' + p.credentialId + '"' : '') +
        ',"msg":"request"}\n',
    );
    done();
  });
}
