/** The closed family of errors the API answers with; thrown anywhere, mapped to the envelope once (error-handler.ts). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequest extends ApiError {
  constructor(message: string) {
    super(400, 'BAD_REQUEST', message);
  }
}
export class Unauthorized extends ApiError {
  constructor(message = 'a valid credential is required') {
    super(401, 'UNAUTHORIZED', message);
  }
}
export class Forbidden extends ApiError {
  constructor(message = 'this credential may not do that') {
    super(403, 'FORBIDDEN', message);
  }
}
export class NotFound extends ApiError {
  constructor(message = 'not found') {
    super(404, 'NOT_FOUND', message);
  }
}
export class MethodNotAllowed extends ApiError {
  constructor(method: string, allowed: string[]) {
    super(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here; allowed: ${allowed.join(', ')}`, {
      allow: allowed.join(', '),
    });
  }
}
export class Conflict extends ApiError {
  constructor(message: string) {
    super(409, 'CONFLICT', message);
  }
}
export class RateLimited extends ApiError {
  constructor(message: string, retryAfterS: number) {
    super(429, 'RATE_LIMITED', message, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterS))) });
  }
}
export class UsageLimitsExceeded extends ApiError {
  constructor(message = 'the free tier limits are exceeded and there is no active subscription') {
    super(503, 'USAGE_LIMITS_EXCEEDED', message);
  }
}
/** A dependency the request needs (Redis) cannot be reached: nothing was changed; try again shortly. */
export class ServiceUnavailable extends ApiError {
  constructor(message: string, retryAfterS = 5) {
    super(503, 'SERVICE_UNAVAILABLE', message, { 'retry-after': String(retryAfterS) });
  }
}
export class RangeNotSatisfiable extends ApiError {
  constructor(size: number) {
    super(416, 'RANGE_NOT_SATISFIABLE', `the Range header asks for bytes outside the file (${size} bytes)`, {
      'content-range': `bytes */${size}`,
    });
  }
}
