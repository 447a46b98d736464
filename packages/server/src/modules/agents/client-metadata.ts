import type { ClientRequest } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveChecked } from '../../lib/address.js';
import { redirectUriProblem } from './oauth-rules.js';

const MAX_BYTES = 64 * 1024;

/** What a client ID metadata document says of its client. */
export interface ClientMetadata {
  name: string | null;
  redirectUris: string[];
}

/** True for a client_id that is a client ID metadata document's address (https, with a path). */
export function isMetadataUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  try {
    const u = new URL(clientId);
    return u.pathname !== '/' && !u.hash;
  } catch {
    return false;
  }
}

/**
 * The document could not be had (address refused, no answer, a failed connection, not 200, too
 * large, too slow, the caller gone). `message` is what the caller may be told: nothing of where
 * the name resolves or why the connection failed. `detail` is for the server's log.
 */
export class MetadataUnavailable extends Error {
  constructor(readonly detail: string) {
    super('the client metadata document could not be fetched');
  }
}

/** How long a fetch may take in all, and the caller's signal (aborted when it goes away). */
export interface FetchLimits {
  allowPrivate: boolean;
  /** one deadline for the whole fetch: resolution, connection, TLS, headers and body */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Fetches and checks a client ID metadata document (the MCP authorization spec's alternative to
 * registration): https only, the address resolved once and checked against the private ranges
 * (the connection goes to exactly that address), no redirects, one total deadline (a document
 * sent a byte at a time is cut off there), 64 KiB, and dropped as soon as the caller goes away;
 * the document's `client_id` must be its own address, its redirect addresses valid, and the
 * client public. Written on node:https rather than fetch: fetch cannot be pinned to the address
 * checked.
 */
export async function fetchClientMetadata(url: string, limits: FetchLimits): Promise<ClientMetadata> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  const why = () =>
    deadline.aborted
      ? `${url} did not answer in full within ${limits.timeoutMs} ms`
      : `the caller went away while ${url} was fetched`;
  let body: string;
  try {
    body = await new Promise<string>((ok, fail) => {
      let req: ClientRequest | undefined;
      // Whatever ends the wait (the deadline, the caller) closes the connection with it.
      const stop = () => {
        req?.destroy();
        fail(new Error(why()));
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      const settle =
        <T>(then: (v: T) => void) =>
        (v: T) => {
          signal.removeEventListener('abort', stop);
          then(v);
        };
      const done = settle(ok);
      const failed = settle(fail);
      const target = new URL(url);
      resolveChecked(target, limits.allowPrivate, 'OAUTH_ALLOW_PRIVATE_CLIENT_URLS').then((resolved) => {
        if (signal.aborted) return;
        const pinned: LookupFunction = (_host, options, cb) => {
          if ((options as { all?: boolean }).all)
            cb(null, [{ address: resolved.address, family: resolved.family }]);
          else cb(null, resolved.address, resolved.family);
        };
        req = https.get(target, { lookup: pinned, headers: { accept: 'application/json' } }, (res) => {
          if (res.statusCode !== 200) {
            req!.destroy();
            return failed(new Error(`${url} answered ${res.statusCode}`));
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.length > MAX_BYTES) {
              req!.destroy();
              failed(new Error(`${url} is larger than 64 KiB`));
            }
          });
          res.on('end', () => done(text));
          res.on('error', failed);
        });
        req.on('error', failed);
      }, failed);
    });
  } catch (err) {
    throw new MetadataUnavailable((err as Error).message);
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new Error('the client metadata document is not JSON');
  }
  if (doc.client_id !== url) throw new Error('the client metadata document names another client_id');
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10)
    throw new Error('the client metadata document needs 1 to 10 redirect_uris');
  for (const u of uris) {
    const problem = redirectUriProblem(u);
    if (problem) throw new Error(`the client metadata document's redirect_uris: ${String(u)} ${problem}`);
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw new Error(
      'a client known by its metadata document must be public (token_endpoint_auth_method none)',
    );
  const name = typeof doc.client_name === 'string' ? doc.client_name.slice(0, 200) : null;
  return { name, redirectUris: uris as string[] };
}
