import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';

/**
 * Query parameters whose values never reach a log line: credentials a client may put in a URL
 * (connection and OAuth tokens, keys, client secrets, passwords, authorization codes). Names are
 * compared as the query parser reads them: percent-decoded, in any case.
 */
const SECRET_PARAMS = new Set([
  'access_token',
  'token',
  'refresh_token',
  'api_key',
  'key',
  'secret',
  'client_secret',
  'password',
  'code',
]);

/** A query parameter's name as the query parser reads it, lower-cased. */
function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * Paths that carry a credential as a segment: a join link's token (`/join/{token}`, the page a
 * guest opens, and `/v1/join/{token}`), however many slashes a client doubles (such a path reaches no
 * route, but is logged). The first group is kept, the segment after it is replaced.
 */
const SECRET_PATH = /^(\/+(?:v1\/+)?join\/+)[^/?#]+/i;

/**
 * The URL as it may be logged: the token of SECRET_PATH and the values of SECRET_PARAMS
 * replaced, the rest as sent.
 */
export function redactUrl(raw: string): string {
  const url = raw.replace(SECRET_PATH, '$1[redacted]');
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split('&');
  let redacted = false;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const eq = pair.indexOf('=');
    if (eq < 0 || !SECRET_PARAMS.has(paramName(pair.slice(0, eq)))) continue;
    pairs[i] = `${pair.slice(0, eq)}=[redacted]`;
    redacted = true;
  }
  return redacted ? `${url.slice(0, q + 1)}${pairs.join('&')}` : url;
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
