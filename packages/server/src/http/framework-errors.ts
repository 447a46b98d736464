import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Longest path parameter the router matches: as long as Node's whole request head (16 KiB), so
 * that no parameter is refused by the router, whose error cannot say which field it was. The
 * route's schema checks the value instead (a UUID, or a bounded length) and names the field in a
 * 400, however long the value.
 */
export const MAX_PARAM_LENGTH = 16 * 1024;

/**
 * The envelope of a request refused below the routes: every such refusal is a BAD_REQUEST. It
 * ends with the newline every JSON answer ends with: these answers do not pass the route hooks
 * that add it elsewhere.
 */
function envelope(message: string): string {
  return `${JSON.stringify({ data: null, error: { code: 'BAD_REQUEST', message } })}\n`;
}

/**
 * Errors the router raises before any route runs (Fastify's `frameworkErrors`): a path that is
 * not valid percent-encoding, or anything else it cannot route. Both are 400 BAD_REQUEST in the
 * envelope, like every other error.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    err.code === 'FST_ERR_BAD_URL'
      ? 'the path is not valid percent-encoding'
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
        : 'the request could not be routed';
  void reply.code(400).type('application/json; charset=utf-8').send(envelope(message));
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (Fastify's
 * `clientErrorHandler`): headers over Node's limit (431, 16 KiB by default), a request that timed
 * out (408), anything unparsable (400). They answer in the envelope too, then the connection
 * closes, as Node does: after a parse error the rest of the stream cannot be trusted.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already gone, has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are larger than the server accepts (16 KiB in all)']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request was not received in time']
        : [400, 'the request is not valid HTTP'];
  const body = envelope(message);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}
