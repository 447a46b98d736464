import type { FastifyError, FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError, MethodNotAllowed, NotFound } from './errors.js';
import { redactUrl } from './logging.js';
import { describeValidation } from './validation.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'USAGE_LIMITS_EXCEEDED',
};

/** Maps any thrown error to `{ status, code, message }`; 5xx details stay in the log. */
export function toApiError(err: FastifyError | Error): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError;
  if (fe.validation)
    return new ApiError(
      400,
      'BAD_REQUEST',
      describeValidation(fe.validation, fe.validationContext ?? 'body'),
    );
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as Content-Type: application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'BAD_REQUEST', 'request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'BAD_REQUEST', 'Content-Length does not match the body');
  }
  if (err instanceof SyntaxError || fe.statusCode === 400)
    return new ApiError(
      400,
      'BAD_REQUEST',
      fe.statusCode === 400 && !(err instanceof SyntaxError) ? fe.message : 'request body is not valid JSON',
    );
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500 && CODE_BY_STATUS[status])
    return new ApiError(status, CODE_BY_STATUS[status]!, fe.message);
  return new ApiError(500, 'SERVER_ERROR', 'internal server error');
}

/**
 * Installs the one place where errors become envelopes, and the handler for unknown routes,
 * which answers 405 with `Allow` when the path exists under another method.
 */
export function installErrorHandling(app: FastifyInstance): void {
  const known = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const m = method.toUpperCase() as HTTPMethod;
      if (!known.hasRoute(m, route.url)) known.on(m, route.url, () => {});
    }
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500)
      request.log.error(
        { err, reqId: request.id, url: redactUrl(request.url.split('?')[0]!) },
        'request failed',
      );
    reply.code(apiError.status).headers(apiError.headers);
    return reply.send({ data: null, error: { code: apiError.code, message: apiError.message } });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter(
      (m) => m !== request.method && known.find(m, path) !== null,
    );
    const err = allowed.length
      ? new MethodNotAllowed(request.method, allowed)
      : new NotFound(`no route ${request.method} ${path}`);
    reply.code(err.status).headers(err.headers);
    return reply.send({ data: null, error: { code: err.code, message: err.message } });
  });
}
