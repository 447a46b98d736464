/**
 * The dashboard's one way to the REST API: same-origin requests with the login cookie, JSON in
 * and out, the envelope unwrapped, errors thrown as `ApiError` with the service's code and message.
 */

/** An error answered by the service (its envelope's `code` and `message`), or a network failure. */
export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the request never got an answer */
    readonly status: number,
    /** the envelope's code (`BAD_REQUEST`, `NOT_FOUND`…), `NETWORK` when there was no answer */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The project the dashboard acts on, sent as `X-Project-Id` to routes without a project in the path. */
let currentProject: string | null = null;

/** Sets the project every later request acts on. */
export function setCurrentProject(id: string | null): void {
  currentProject = id;
}

export interface RequestOptions {
  /** JSON body */
  body?: unknown;
  /** query parameters; undefined values are left out */
  query?: Record<string, string | number | boolean | undefined | null>;
  /** send an Idempotency-Key, so that a retried create is answered once */
  idempotent?: boolean;
  signal?: AbortSignal;
}

/** One page of a list, with the cursor of the next (from the `Link: <…>; rel="next"` header). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** Builds a same-origin URL with query parameters. */
export function apiUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

async function send(method: string, path: string, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (currentProject) headers['x-project-id'] = currentProject;
  if (opts.idempotent) headers['idempotency-key'] = crypto.randomUUID();
  try {
    return await fetch(apiUrl(path, opts.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'the server could not be reached; check your connection and try again');
  }
}

async function unwrap<T>(res: Response): Promise<T> {
  let body: { data?: T; error?: { code: string; message: string } | null } | null = null;
  try {
    body = await res.json();
  } catch {
    // not JSON: reported below with the status
  }
  if (!res.ok || body?.error) {
    const e = body?.error;
    throw new ApiError(
      res.status,
      e?.code ?? 'SERVER_ERROR',
      e?.message ?? `the server answered ${res.status}`,
    );
  }
  return body?.data as T;
}

/** Calls the API and returns the envelope's `data`; throws `ApiError` on any failure. */
export async function api<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  return unwrap<T>(await send(method, path, opts));
}

/** Reads one page of a list route (`limit`, `cursor`). */
export async function apiPage<T>(path: string, opts: RequestOptions = {}): Promise<Page<T>> {
  const res = await send('GET', path, opts);
  const items = await unwrap<T[]>(res);
  const link = res.headers.get('link') ?? '';
  const m = /<([^>]+)>;\s*rel="next"/.exec(link);
  const next = m ? new URL(m[1]!, location.origin).searchParams.get('cursor') : null;
  return { items, next };
}

/** The message to show a person for any error. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
