import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { signWebhook } from '@vss/protocol';
import { resolveChecked, type Resolved } from '../../lib/address.js';

/** At most this much of a receiver's answer is read; the rest is dropped with the connection. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface Attempt {
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface Signed {
  /** the exact bytes sent */
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * The headers of one attempt: the signature headers of `@vss/protocol`'s signWebhook
 * (`X-Service-Signature`, `X-Service-Event-Id`, `X-Service-Timestamp` and the Standard Webhooks
 * trio), signed at `atMs` (each attempt anew, with the same event id and bytes).
 */
export async function sign(secret: string, eventId: string, body: Buffer, atMs: number): Promise<Signed> {
  const signature = await signWebhook({ secret, eventId, timestamp: Math.floor(atMs / 1000), body });
  return {
    body,
    headers: { 'content-type': 'application/json', 'user-agent': 'vss-webhooks/1', ...signature },
  };
}

const agents = {
  // As many sockets per host as attempts may run at once: an attempt never queues for a socket.
  http: new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 }),
};

/**
 * POSTs one signed delivery. The host is resolved and checked first, and the connection goes to
 * exactly the address that was checked (no second lookup a rebinding DNS could answer
 * differently). Redirects are not followed: only 2xx is success. The whole attempt, connect to
 * last byte read, is bounded by `timeoutMs`.
 */
export async function post(
  target: string,
  signed: Signed,
  options: { timeoutMs: number; allowPrivate: boolean; signal?: AbortSignal },
): Promise<Attempt> {
  const started = performance.now();
  const done = (ok: boolean, responseStatus: number | null, error: string | null): Attempt => ({
    ok,
    responseStatus,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return done(false, null, 'the webhook URL is not valid');
  }
  let address: Resolved;
  try {
    address = await resolveChecked(url, options.allowPrivate);
  } catch (err) {
    return done(false, null, `refused: ${(err as Error).message}`);
  }
  const pinned: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all)
      (cb as unknown as (err: null, all: Resolved[]) => void)(null, [address]);
    else cb(null, address.address, address.family);
  };
  const secure = url.protocol === 'https:';
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const finish = (a: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(a);
    };
    const req = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        lookup: pinned,
        headers: { ...signed.headers, 'content-length': String(signed.body.length) },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            // Enough: the status is what counts, and a receiver must not make us buffer.
            res.destroy();
            finish(outcome(status));
          }
        });
        res.on('end', () => finish(outcome(status)));
        res.on('error', () => finish(outcome(status)));
        res.on('close', () => finish(outcome(status)));
      },
    );
    const outcome = (status: number) =>
      status >= 200 && status < 300
        ? done(true, status, null)
        : done(
            false,
            status,
            status >= 300 && status < 400
              ? `answered ${status} (redirects are not followed)`
              : `answered ${status}`,
          );
    const timer = setTimeout(() => {
      req.destroy();
      finish(done(false, null, `no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const onAbort = () => {
      req.destroy();
      finish(done(false, null, 'the worker stopped during the attempt'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(done(false, null, err.code ? `${err.code}: ${err.message}` : err.message)),
    );
    req.end(signed.body);
  });
}
