import createClient, { type Client, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { idempotentOperations, type components, type paths, type webhooks } from './generated/openapi.js';
import { LiveClient } from './live-client.js';
import type { LiveClientOptions } from './live-types.js';

/** Every route of the API, as the server's OpenAPI document describes it. */
export type Paths = paths;
/** The named schemas of the API (Session, Project, Webhook, …). */
export type Schemas = components['schemas'];

/** The body a webhook receiver gets for an event type: `WebhookPayload<'session.ended'>`. */
export type WebhookPayload<E extends keyof webhooks> =
  NonNullable<webhooks[E]['post']> extends { requestBody?: infer B }
    ? NonNullable<B> extends { content: { 'application/json': infer J } }
      ? J
      : never
    : never;

/** The methods the API uses. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The options of a call (`params.path`, `params.query`, `body`, `headers`), as openapi-fetch takes
 * them, for one route and method.
 */
export type CallInit<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;

/**
 * The rest of a call's arguments: the options, required when the route has a required parameter
 * or body. Not inferred from the argument (as openapi-fetch does), so that a misspelt field or
 * option in an object literal is an error rather than silently dropped.
 */
export type Args<P extends keyof paths, M extends Method> =
  RequiredKeysOf<NonNullable<CallInit<P, M>>> extends never
    ? [init?: CallInit<P, M>]
    : [init: CallInit<P, M>];

/** The routes that take a method: `PathOf<'get'>` is every path with a GET. */
export type PathOf<M extends Method> = PathsWithMethod<paths, M>;

/** The `data` of a route's success envelope (undefined for answers without a JSON body). */
export type DataOf<P extends keyof paths, M extends Method> = P extends keyof paths
  ? M extends keyof paths[P]
    ? Unwrap<JsonOf<SuccessOf<paths[P][M]>>>
    : never
  : never;
/** The success answers of an operation (2xx). */
type SuccessOf<O> = O extends { responses: infer R }
  ? R[Extract<keyof R, 200 | 201 | 202 | 204 | 206>]
  : never;
/** An answer's JSON body; undefined for an answer that has none (204, an MP4). */
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
type Unwrap<E> = E extends { data: infer D; error: null } ? D : E;

/**
 * An error answer of the API (its envelope's `code` and `message`, and the HTTP status), or a
 * request that never got an answer (`code` 'NETWORK_ERROR', status 0).
 */
export class VssError extends Error {
  override readonly name = 'VssError';
  constructor(
    /** BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, RATE_LIMITED, USAGE_LIMITS_EXCEEDED, …, or NETWORK_ERROR */
    readonly code: string,
    message: string,
    /** the HTTP status; 0 when there was no answer */
    readonly status: number,
    /** seconds the server asked to wait (`Retry-After`), when it said */
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }
}

export interface RetryOptions {
  /** retries after the first attempt (default 2) */
  retries: number;
  /** first backoff in ms, doubled per retry with jitter (default 250) */
  minDelayMs: number;
  /** a `Retry-After` longer than this is not waited for: the error is returned (default 30 000) */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 2, minDelayMs: 250, maxDelayMs: 30_000 };

export interface VssClientOptions {
  /** the server, e.g. `http://localhost:8080`; '' in a browser page served by vss: its own origin */
  baseUrl: string;
  /** an API key (`sk_live_…`), a restricted key (`rk_live_…`) or an OAuth/agent access token; sent as `Authorization: Bearer` */
  apiKey?: string;
  /**
   * sent as `X-Project-Id`: the project that routes without one in their path act on (default: the
   * organisation's first). A function is asked at each request, for an app whose project changes.
   */
  projectId?: string | (() => string | null | undefined);
  /** whether cookies go along, as fetch's `credentials` (a dashboard signed in with a cookie: 'same-origin') */
  credentials?: RequestCredentials;
  /** retry policy, or false for none */
  retry?: Partial<RetryOptions> | false;
  /** fetch implementation (default `globalThis.fetch`) */
  fetch?: typeof fetch;
  /** extra headers on every request */
  headers?: Record<string, string>;
}

/** One page of a list, and the cursor of the next one (null on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * The REST client of vss. Its types come from the server's OpenAPI document, so a path, a
 * parameter or a field that does not exist fails to compile:
 *
 *   const vss = new VssClient({ baseUrl, apiKey });
 *   const session = await vss.post('/v1/sessions', { body: { name: 'standup' } });
 *   for await (const s of vss.list('/v1/sessions')) console.log(s.id);
 *
 * Calls answer the envelope's `data` and throw `VssError` for error answers. Creating POSTs carry
 * an `Idempotency-Key` (a fresh UUID unless you pass one), so they, like GET, PUT and DELETE, are
 * retried after network errors and 503; a 429 is retried by every method (the server did nothing),
 * each after `Retry-After` when the server gives one. A call takes fetch's `signal` and `headers`.
 * A page served by vss (the dashboard) uses its own origin and login cookie, no key:
 * `new VssClient({ baseUrl: '', credentials: 'same-origin', projectId: () => chosen })`.
 */
export class VssClient {
  /** the openapi-fetch client underneath, with the same credentials, keys and retries */
  readonly api: Client<paths>;
  readonly baseUrl: string;

  constructor(readonly options: VssClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const project = options.projectId;
    if (typeof project === 'string') headers['x-project-id'] = project;
    const retry =
      options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      fetch: retryingFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), retry),
    });
    this.api.use(idempotencyKeys);
    if (typeof project === 'function') this.api.use(projectHeader(project));
  }

  /** Calls a route and answers its `data` with the Response; throws VssError for an error answer. */
  request<M extends Method, P extends PathsWithMethod<paths, M>>(
    method: M,
    path: P,
    ...init: Args<P, M>
  ): Promise<{ data: DataOf<P, M>; response: Response }> {
    return this.call(method, path, init[0]) as Promise<{ data: DataOf<P, M>; response: Response }>;
  }

  get<P extends PathsWithMethod<paths, 'get'>>(path: P, ...init: Args<P, 'get'>): Promise<DataOf<P, 'get'>> {
    return this.call('get', path, init[0]).then((r) => r.data as DataOf<P, 'get'>);
  }

  post<P extends PathsWithMethod<paths, 'post'>>(
    path: P,
    ...init: Args<P, 'post'>
  ): Promise<DataOf<P, 'post'>> {
    return this.call('post', path, init[0]).then((r) => r.data as DataOf<P, 'post'>);
  }

  put<P extends PathsWithMethod<paths, 'put'>>(path: P, ...init: Args<P, 'put'>): Promise<DataOf<P, 'put'>> {
    return this.call('put', path, init[0]).then((r) => r.data as DataOf<P, 'put'>);
  }

  patch<P extends PathsWithMethod<paths, 'patch'>>(
    path: P,
    ...init: Args<P, 'patch'>
  ): Promise<DataOf<P, 'patch'>> {
    return this.call('patch', path, init[0]).then((r) => r.data as DataOf<P, 'patch'>);
  }

  delete<P extends PathsWithMethod<paths, 'delete'>>(
    path: P,
    ...init: Args<P, 'delete'>
  ): Promise<DataOf<P, 'delete'>> {
    return this.call('delete', path, init[0]).then((r) => r.data as DataOf<P, 'delete'>);
  }

  /** One page of a list route, with the cursor of the next page from its `Link` header. */
  page<P extends PathsWithMethod<paths, 'get'>>(
    path: P,
    ...init: Args<P, 'get'>
  ): Promise<Page<ItemOf<DataOf<P, 'get'>>>> {
    return this.pageOf(path, init[0]) as Promise<Page<ItemOf<DataOf<P, 'get'>>>>;
  }

  /** Every item of a list route, page after page (`limit` in the query sets the page size). */
  async *list<P extends PathsWithMethod<paths, 'get'>>(
    path: P,
    ...init: Args<P, 'get'>
  ): AsyncGenerator<ItemOf<DataOf<P, 'get'>>> {
    const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let cursor: string | null = null;
    do {
      const params = { ...first.params, query: { ...first.params?.query, ...(cursor ? { cursor } : {}) } };
      const page = await this.pageOf(path, { ...first, params });
      yield* page.items as ItemOf<DataOf<P, 'get'>>[];
      cursor = page.nextCursor;
    } while (cursor);
  }

  /**
   * Calls a route and answers the raw Response for a body that is not a JSON envelope (an MP4
   * download, an NDJSON stream): the caller reads `body`. Error answers throw VssError as usual.
   */
  async stream<M extends Method, P extends PathsWithMethod<paths, M>>(
    method: M,
    path: P,
    ...init: Args<P, M>
  ): Promise<Response> {
    return (await this.send(method, path, { ...(init[0] as object), parseAs: 'stream' })).response;
  }

  /**
   * A live client for `sessionId` as `userId`, minting a connection token with this client's key
   * for every (re)connect. In Node before 22 pass `WebSocket` from the `ws` package.
   */
  live(
    options: { sessionId: string; userId: string } & Omit<
      LiveClientOptions,
      'url' | 'session' | 'userId' | 'token'
    >,
  ): LiveClient {
    const { sessionId, userId, ...rest } = options;
    return new LiveClient({
      ...rest,
      url: (this.baseUrl || globalThis.location.origin).replace(/^http/, 'ws'),
      session: sessionId,
      userId,
      token: async () =>
        (
          await this.post('/v1/sessions/{sessionId}/connection', {
            params: { path: { sessionId } },
            body: { user_id: userId },
          })
        ).access_token,
    });
  }

  /**
   * Sends a call through openapi-fetch (the public methods give it its types): a network failure
   * or an error answer becomes VssError.
   */
  private async send(
    method: Method,
    path: string,
    init: unknown,
  ): Promise<{ data?: unknown; response: Response }> {
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      result = await (this.api.request as (m: string, p: string, i?: unknown) => Promise<typeof result>)(
        method,
        path,
        init,
      );
    } catch (err) {
      throw networkError(err, this.baseUrl);
    }
    if (!result.response.ok) throw errorFrom(result.response, result.error);
    return result;
  }

  /** A call's answer, with the envelope's `data` taken out. */
  private async call(
    method: Method,
    path: string,
    init: unknown,
  ): Promise<{ data: unknown; response: Response }> {
    const { data: body, response } = await this.send(method, path, init);
    const envelope = body as { data?: unknown; error?: unknown } | undefined;
    const data =
      envelope && typeof envelope === 'object' && 'data' in envelope && 'error' in envelope
        ? envelope.data
        : body;
    return { data, response };
  }

  /** One page of a list and the cursor of the next, from its `Link` header. */
  private async pageOf(path: string, init: unknown): Promise<Page<unknown>> {
    const { data, response } = await this.call('get', path, init);
    return { items: (data ?? []) as unknown[], nextCursor: nextCursor(response) };
  }
}

/** The element type of a list's `data`: `ItemOf<DataOf<'/v1/sessions', 'get'>>` is a Session. */
export type ItemOf<T> = T extends readonly (infer E)[] ? E : never;

/** Adds a fresh Idempotency-Key to the creating POSTs that honour one, unless the caller set one. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (!idempotentOperations.has(`${request.method} ${schemaPath}`)) return undefined;
    if (request.headers.has('idempotency-key')) return undefined;
    request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    return request;
  },
};

/** Sets `X-Project-Id` to the project `current()` names at the time of each request, unless the call set one. */
function projectHeader(current: () => string | null | undefined): Middleware {
  return {
    onRequest({ request }) {
      const id = current();
      if (!id || request.headers.has('x-project-id')) return undefined;
      request.headers.set('x-project-id', id);
      return request;
    },
  };
}

/** The `cursor` of the `rel="next"` address in a `Link` header, or null. */
export function nextCursor(response: Response): string | null {
  const link = response.headers.get('link');
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1]) return new URL(m[1], 'http://x').searchParams.get('cursor');
  }
  return null;
}

function errorFrom(response: Response, body: unknown): VssError {
  const retryAfter = Number(response.headers.get('retry-after'));
  const envelope = body as { error?: { code?: unknown; message?: unknown } } | undefined;
  const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : `HTTP_${response.status}`;
  const message =
    typeof envelope?.error?.message === 'string'
      ? envelope.error.message
      : typeof body === 'string' && body
        ? body.slice(0, 200)
        : response.statusText || `HTTP ${response.status}`;
  return new VssError(
    code,
    message,
    response.status,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

function networkError(err: unknown, baseUrl: string): VssError {
  if (err instanceof VssError) return err;
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'AbortError') return new VssError('ABORTED', 'the request was aborted', 0);
  const detail = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return new VssError('NETWORK_ERROR', `no answer from ${baseUrl || 'the server'} (${detail})`, 0);
}

/**
 * fetch with retries. Written here rather than taken from a library: which requests may be
 * retried depends on this API's rules (an Idempotency-Key makes a POST safe; a 503 for exceeded
 * usage limits is final, not transient), and the request body must be cloned before each attempt.
 */
function retryingFetch(base: typeof fetch, retry: RetryOptions): typeof fetch {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const backoff = (attempt: number) => retry.minDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const safe = SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retry.retries;
      const req = last ? request : request.clone();
      let response: Response;
      try {
        response = await base(req);
      } catch (err) {
        if (last || !safe || (err as Error)?.name === 'AbortError') throw err;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || (response.status !== 429 && response.status !== 503)) return response;
      if (response.status === 503) {
        if (!safe) return response;
        const body = (await response
          .clone()
          .json()
          .catch(() => null)) as { error?: { code?: string } } | null;
        if (body?.error?.code === 'USAGE_LIMITS_EXCEEDED') return response;
      }
      const after = Number(response.headers.get('retry-after'));
      const delay = Number.isFinite(after) && after >= 0 ? after * 1000 : backoff(attempt);
      if (delay > retry.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
