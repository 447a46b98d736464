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

/** Field names as a person reads them, where the field's own name would not do. */
const FIELD_WORDS: Record<string, string> = {
  url: 'The address',
  email: 'The email address',
  password: 'The password',
  name: 'The name',
  events: 'Events',
  expires_in_minutes: 'The expiry in minutes',
  expires_in_days: 'The expiry in days',
  user_id: 'The name',
  display_name: 'The name',
  max_uses: 'The number of uses',
  description: 'The description',
  role: 'The role',
  return_url: 'The return address',
};

/** Ways the API words a refused value, and how a person would say it. */
const RULE_WORDS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^must NOT have fewer than 1 items?$/, () => 'needs at least one choice'],
  [/^must NOT have fewer than (\d+) items$/, (m) => `needs at least ${m[1]} choices`],
  [/^must NOT have more than (\d+) items$/, (m) => `allows at most ${m[1]} choices`],
  [/^must be >= (\S+)$/, (m) => `must be at least ${m[1]}`],
  [/^must be <= (\S+)$/, (m) => `must be at most ${m[1]}`],
  [/^must be > (\S+)$/, (m) => `must be more than ${m[1]}`],
  [/^must be < (\S+)$/, (m) => `must be less than ${m[1]}`],
  [/^must be an integer$/, () => 'must be a whole number'],
  [/^must be a valid email$/, () => 'is not complete (like name@example.com)'],
  [/^must be a valid (uri|url)$/, () => 'must be a full web address starting with https://'],
  [/^has an invalid format$/, () => 'is not in the expected form'],
  [/^must be one of (.+)$/, (m) => `must be one of ${m[1]!.replace(/"/g, '')}`],
  [/^is not a known field$/, () => 'is not something this form sends'],
];

/**
 * The API names the refused field as it is sent (`body.events must NOT have fewer than 1 items`):
 * exact, but not words for a person. A message of that shape is said in plain words (`Events needs
 * at least one choice`); any other message is the API's own sentence, shown as it is.
 */
export function plainWords(message: string): string {
  const m = /^(?:body|query|params|headers)((?:\.[A-Za-z_][\w-]*|\[\d+\])*) (.+)$/.exec(message);
  if (!m) return message;
  const path = m[1]!.split('.').filter(Boolean);
  const last = (path[path.length - 1] ?? '').replace(/\[\d+\]$/, '');
  const rule = m[2]!;
  const field = last;
  const said = RULE_WORDS.find(([re]) => re.test(rule));
  const words = said ? said[1](rule.match(said[0])!) : rule;
  const name =
    FIELD_WORDS[field] ??
    (field ? field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ') : 'This');
  return `${name} ${words}.`.replace(/\.\.$/, '.');
}

/** The message to show a person for any error. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return plainWords(err.message);
  if (err instanceof Error) return err.message;
  return String(err);
}
