import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../config.js';
import type { Counters, WindowCount } from '../counters/counter.js';
import { readSessionCookie } from './cookies.js';
import { Forbidden, RateLimited, Unauthorized } from './errors.js';
import type { Principal, RouteAuth } from './principal.js';
import { MINUTE_MS } from '../lib/time.js';

/** How the edge turns a credential into a principal; implemented by the keys and accounts modules. */
export interface CredentialResolvers {
  /** `sk_live_…` or `rk_live_…`; null when unknown or deleted. A cached key may answer synchronously. */
  key(secret: string): Principal | null | Promise<Principal | null>;
  /** the raw `service_session` cookie value; null when unknown, expired or revoked */
  cookie(value: string): Promise<Principal | null>;
  /** an agent token (`sat_…`) or OAuth access token (`oat_…`); null when unknown, expired or revoked */
  agent?(secret: string): Promise<Principal | null>;
}

const AGENT_PREFIXES = ['sat_', 'oat_'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const RATE_WINDOW_MS = MINUTE_MS;

function presentedSecret(request: FastifyRequest): string | null {
  const authz = request.headers.authorization;
  if (authz !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) throw new Unauthorized('Authorization must be "Bearer <key>"');
    return m[1]!;
  }
  const x = request.headers['x-api-key'];
  if (typeof x === 'string' && x.length > 0) return x.trim();
  return null;
}

function knownKey(principal: Principal | null): Principal {
  if (!principal) throw new Unauthorized('the key is invalid or has been deleted');
  return principal;
}

/**
 * The request's principal, or null when it presents no credential; throws Unauthorized for a bad
 * one. Synchronous for a cached key, so that the common request never waits on a promise.
 */
function resolve(
  request: FastifyRequest,
  resolvers: CredentialResolvers,
  rule: Exclude<RouteAuth, 'public'>,
): Principal | null | Promise<Principal | null> {
  const secret = presentedSecret(request);
  if (rule.accept.includes('agent')) {
    // The MCP endpoint: agents only. A key or a login cookie here is a mistake worth naming.
    if (secret === null)
      return readSessionCookie(request)
        ? Promise.reject(
            new Unauthorized(
              'the /mcp endpoint does not accept the login cookie: use an agent token or OAuth',
            ),
          )
        : null;
    if (!AGENT_PREFIXES.some((p) => secret.startsWith(p)) || !resolvers.agent)
      throw new Unauthorized('the /mcp endpoint accepts agent tokens (sat_) and OAuth access tokens only');
    return resolvers.agent(secret).then((p) => {
      if (!p) throw new Unauthorized('the agent token is invalid, expired or revoked');
      return p;
    });
  }
  if (secret !== null) {
    if (AGENT_PREFIXES.some((p) => secret.startsWith(p)))
      throw new Unauthorized('agent tokens and OAuth access tokens are accepted only by the /mcp endpoint');
    if (!secret.startsWith('sk_live_') && !secret.startsWith('rk_live_'))
      throw new Unauthorized('unrecognised credential: expected an sk_live_ or rk_live_ key');
    const found = resolvers.key(secret);
    return found instanceof Promise ? found.then(knownKey) : knownKey(found);
  }
  const cookie = readSessionCookie(request);
  if (cookie) {
    return resolvers.cookie(cookie).then((principal) => {
      // A page that also serves people who are not signed in shows them its signed-out view.
      if (!principal && rule.anonymous && rule.form) return null;
      if (!principal) throw new Unauthorized('the login session has expired or was signed out');
      const hint = request.headers['x-project-id'];
      return { ...principal, projectHint: typeof hint === 'string' && hint ? hint : null };
    });
  }
  return null;
}

/** The CSRF rule for cookie-authenticated writes: same origin only, JSON bodies only. */
export function checkSameOrigin(request: FastifyRequest, publicOrigin: string, form = false): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    throw new Forbidden('cross-site request refused (Sec-Fetch-Site)');
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== publicOrigin)
    throw new Forbidden('cross-origin request refused (Origin)');
  const type = request.headers['content-type'];
  if (form && type !== undefined && /^application\/x-www-form-urlencoded\b/i.test(type)) return;
  if (type !== undefined && !/^application\/json\b/i.test(type))
    throw new Forbidden('cookie-authenticated requests must send JSON bodies');
}

/**
 * One onRequest hook resolves the credential, enforces the route's accepted kinds, applies the
 * CSRF rule to cookie-authenticated writes and counts the request against its rate limit
 * (per credential when there is one, else per client address).
 */
export function installAuth(
  app: FastifyInstance,
  deps: { config: Config; counters: Counters; resolvers: CredentialResolvers },
): void {
  const publicOrigin = new URL(deps.config.publicBaseUrl).origin;
  app.decorateRequest('principal', null);

  /**
   * Failed authentication (an unknown, malformed or deleted key, an unknown cookie) counts per
   * client address against RATE_LIMIT_PER_IP; past it, each further failure from the address is
   * answered 429 instead of 401. Only failures are throttled: a credential that checks out is
   * admitted whatever its address did before, since many clients may share one address (a NAT,
   * an office, a proxy) and one of them guessing must not lock out the others. The count is
   * shared (Redis when configured).
   */
  async function countFailure(ip: string): Promise<void> {
    const limit = deps.config.rateLimitPerIp;
    const counted = deps.counters.hit(`auth-failures:${ip}`, RATE_WINDOW_MS);
    const { count, resetInMs } = counted instanceof Promise ? await counted : counted;
    if (count > limit)
      throw new RateLimited(
        `too many failed authentication attempts from this address: at most ${limit} per minute`,
        resetInMs / 1000,
      );
  }

  // Each route gets its own onRequest hook with its rule captured at registration: nothing is
  // looked up per request (Fastify builds a fresh `routeOptions` object on every access).
  app.addHook('onRoute', (route) => {
    const rule = route.config?.auth;
    if (rule === undefined) {
      if (!route.url.startsWith('/docs'))
        throw new Error(`route ${String(route.method)} ${route.url} does not declare config.auth`);
      return;
    }
    const limited = route.config?.rateLimit !== false;
    const existing = route.onRequest
      ? Array.isArray(route.onRequest)
        ? route.onRequest
        : [route.onRequest]
      : [];
    route.onRequest = [
      (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) =>
        guard(request, reply, rule, limited, done),
      ...existing,
    ];
  });

  /**
   * The hook is written with a callback rather than as an async function: a request with a
   * cached key and in-process counters is admitted synchronously, without the promises and
   * microtask turns an async hook costs on every request.
   */
  function guard(
    request: FastifyRequest,
    reply: FastifyReply,
    rule: RouteAuth,
    limited: boolean,
    done: HookHandlerDoneFunction,
  ): void {
    if (rule === 'public') return admit(request, reply, rule, null, limited, done);
    let resolved: Principal | null | Promise<Principal | null>;
    try {
      resolved = resolve(request, deps.resolvers, rule);
    } catch (err) {
      return refuse(request, err, done);
    }
    if (resolved instanceof Promise)
      resolved.then(
        (principal) => admit(request, reply, rule, principal, limited, done),
        (err: unknown) => refuse(request, err, done),
      );
    else admit(request, reply, rule, resolved, limited, done);
  }

  /** A failed authentication counts against the client address before the error is answered. */
  function refuse(request: FastifyRequest, err: unknown, done: HookHandlerDoneFunction): void {
    if (!(err instanceof Unauthorized)) return done(err as Error);
    countFailure(request.ip).then(
      () => done(err),
      (throttled: Error) => done(throttled),
    );
  }

  /** The route's rule for this principal, then the rate limit and its headers. */
  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    rule: RouteAuth,
    principal: Principal | null,
    limited: boolean,
    done: HookHandlerDoneFunction,
  ): void {
    try {
      if (rule !== 'public') {
        if (!principal && !rule.anonymous)
          throw new Unauthorized(
            rule.accept.includes('agent')
              ? 'missing credential: send "Authorization: Bearer <agent token or OAuth access token>"'
              : 'missing credential: send "Authorization: Bearer <API key>" or "X-API-Key"',
          );
        if (principal && !rule.accept.includes(principal.kind)) {
          if (principal.kind === 'restricted_key')
            throw new Forbidden(
              'restricted keys may only create sessions, request connection tokens and read manifests',
            );
          if (principal.kind === 'user') throw new Unauthorized('this route needs an API key');
          throw new Unauthorized('this route needs a signed-in dashboard session');
        }
        if (principal?.kind === 'user' && (!SAFE_METHODS.has(request.method) || rule.csrf))
          checkSameOrigin(request, publicOrigin, rule.form);
        request.principal = principal;
      }
      if (!limited) return done();
      const bucket = principal ? `${principal.kind}:${principal.credentialId}` : `ip:${request.ip}`;
      const limit = principal ? deps.config.rateLimitPerKey : deps.config.rateLimitPerIp;
      const counted = deps.counters.hit(bucket, RATE_WINDOW_MS);
      if (counted instanceof Promise)
        counted.then(
          (c) => done(rateLimit(reply, limit, c)),
          (err: Error) => done(err),
        );
      else done(rateLimit(reply, limit, counted));
    } catch (err) {
      done(err as Error);
    }
  }
}

/** Sets the rate-limit headers; the error to answer with when the limit is exceeded. */
function rateLimit(
  reply: FastifyReply,
  limit: number,
  { count, resetInMs }: WindowCount,
): RateLimited | undefined {
  const resetS = Math.ceil(resetInMs / 1000);
  reply.header('ratelimit-limit', limit);
  reply.header('ratelimit-remaining', Math.max(0, limit - count));
  reply.header('ratelimit-reset', resetS);
  return count > limit
    ? new RateLimited(`rate limit of ${limit} requests per minute exceeded`, resetS)
    : undefined;
}
