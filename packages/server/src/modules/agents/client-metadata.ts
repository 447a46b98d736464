import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveChecked } from '../../lib/address.js';
import { redirectUriProblem } from './oauth-rules.js';

const TIMEOUT_MS = 5_000;
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
 * Fetches and checks a client ID metadata document (the MCP authorization spec's alternative to
 * registration): https only, the address resolved once and checked against the private ranges
 * (the connection goes to exactly that address), no redirects, 5 s, 64 KiB; the document's
 * `client_id` must be its own address, its redirect addresses valid, and the client public.
 * Written on node:https rather than fetch: fetch cannot be pinned to the address checked.
 */
export async function fetchClientMetadata(url: string, allowPrivate: boolean): Promise<ClientMetadata> {
  const target = new URL(url);
  const resolved = await resolveChecked(target, allowPrivate, 'OAUTH_ALLOW_PRIVATE_CLIENT_URLS');
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      cb(null, [{ address: resolved.address, family: resolved.family }]);
    else cb(null, resolved.address, resolved.family);
  };
  const body = await new Promise<string>((ok, fail) => {
    const req = https.get(
      target,
      { lookup: pinned, headers: { accept: 'application/json' }, timeout: TIMEOUT_MS },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return fail(new Error(`the client metadata document answered ${res.statusCode}`));
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.length > MAX_BYTES) {
            req.destroy();
            fail(new Error('the client metadata document is larger than 64 KiB'));
          }
        });
        res.on('end', () => ok(text));
        res.on('error', fail);
      },
    );
    req.on('timeout', () => req.destroy(new Error('the client metadata document did not answer within 5 s')));
    req.on('error', fail);
  });
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
