/**
 * A project's `embed_origins`: the sites allowed to frame its prebuilt room (`/embed/{projectId}`).
 * Exact origins only, as browsers compare them in `frame-ancestors`: `https://host[:port]`, or
 * `http://` for a loopback host (localhost, 127.0.0.1, [::1]: a developer's machine); no path, query,
 * fragment, wildcard or credentials; at most MAX_EMBED_ORIGINS.
 */

export const MAX_EMBED_ORIGINS = 20;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `value` is not an embed origin, in words that name it; null when it is one. */
export function embedOriginProblem(value: string): string | null {
  if (/[*\s]/.test(value)) return `${JSON.stringify(value)} is not an exact origin (no wildcards or spaces)`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not an origin such as https://app.example.com`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${JSON.stringify(value)}: only https:// origins (http:// for localhost)`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    return `${JSON.stringify(value)}: http:// only for a loopback host (localhost, 127.0.0.1, [::1]); use https://`;
  if (url.username || url.password) return `${JSON.stringify(value)}: no user name or password in an origin`;
  if (url.origin !== value.replace(/\/$/, '') || value.endsWith('/'))
    return `${JSON.stringify(value)} is not an origin: write ${url.origin} (no path, query or fragment, no trailing slash)`;
  return null;
}
