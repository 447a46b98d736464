import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

/** The error object of every failed response. */
export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'stable machine-readable code, e.g. BAD_REQUEST' }),
    message: Type.String({ description: 'human-readable; names the offending field where there is one' }),
  },
  { additionalProperties: false },
);

/** `{ data: null, error }`: the shape of every failure. */
export const ErrorEnvelope = Type.Object(
  { data: Type.Null(), error: ErrorBody },
  { description: 'Every failure: data is null, error names the problem.' },
);

/** `{ data, error: null }` around a success schema. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, error: Type.Null() });
}

/** Wraps a result in the success envelope. */
export function ok<T>(data: T): { data: T; error: null } {
  return { data, error: null };
}

/** A JSON media type: `application/json`, or a `+json` one. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Ends every JSON answer with one newline, so that answers printed one after another (`curl`
 * twice in a shell) start on lines of their own. Installed on the root before any route, so that
 * it also reaches the 404, 405 and error handlers and the router's own refusals. A streamed
 * answer (playback) is not touched here: it writes its own newline at its end. The length is
 * counted after this hook, so Content-Length includes the newline.
 */
export function installJsonNewline(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !JSON_TYPE.test(type)) return done(null, payload);
    // An empty body (a 204's) stays empty; one already ending with the newline (an answer sent
    // again) gets no second one.
    if (typeof payload === 'string')
      return done(null, payload === '' || payload.endsWith('\n') ? payload : `${payload}\n`);
    if (Buffer.isBuffer(payload))
      return done(
        null,
        payload.length === 0 || payload[payload.length - 1] === NEWLINE
          ? payload
          : Buffer.concat([payload, NEWLINE_BYTES]),
      );
    done(null, payload);
  });
}

const NEWLINE = 0x0a;
const NEWLINE_BYTES = Buffer.from('\n');
