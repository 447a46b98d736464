import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** How far a delivery's timestamp may be from this machine's clock, by default (Standard Webhooks' 5 minutes). */
export const DEFAULT_TOLERANCE_S = 300;

/** The verdict on one delivery: valid, or why not. */
export type Verdict = { valid: true } | { valid: false; reason: string };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A `whsec_…` secret as the API shows it: the prefix, then base64 of the key bytes. */
export function checkSecret(secret: string): string | null {
  if (!secret.startsWith('whsec_') || !/^[A-Za-z0-9+/]+={0,2}$/.test(secret.slice('whsec_'.length)))
    return 'expected the whsec_… secret shown when the webhook was created (or its secret rotated)';
  return null;
}

/**
 * Checks one delivery exactly as the server signs it, over the raw bytes as received:
 * `X-Service-Signature`, lowercase hex HMAC-SHA256 of the body keyed with the whole `whsec_…`
 * string; the Standard Webhooks `webhook-signature` (`v1,<base64>`, space-separated when there
 * are several) over `{webhook-id}.{webhook-timestamp}.{body}` keyed with the bytes of the
 * secret's base64 part; and the signed timestamp within `toleranceS` of `nowMs`, so that an old
 * delivery replayed later is refused. Every comparison is in constant time.
 */
export function verify(
  secret: string,
  headers: IncomingHttpHeaders,
  raw: Buffer,
  nowMs: number,
  toleranceS = DEFAULT_TOLERANCE_S,
): Verdict {
  const fail = (reason: string): Verdict => ({ valid: false, reason });

  const given = header(headers, 'x-service-signature');
  if (!given) return fail('no X-Service-Signature header');
  const expected = createHmac('sha256', secret).update(raw).digest();
  if (!/^[0-9a-f]{64}$/.test(given) || !sameBytes(Buffer.from(given, 'hex'), expected))
    return fail('X-Service-Signature does not match the body');

  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    return fail('missing a Standard Webhooks header (webhook-id, webhook-timestamp, webhook-signature)');
  if (!/^\d{1,12}$/.test(timestamp)) return fail(`webhook-timestamp "${timestamp}" is not Unix seconds`);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const standard = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(raw).digest();
  const matches = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => sameBytes(Buffer.from(s.slice(3), 'base64'), standard));
  if (!matches) return fail('webhook-signature does not match');

  const skewS = Math.round(nowMs / 1000 - Number(timestamp));
  if (Math.abs(skewS) > toleranceS)
    return fail(
      skewS > 0
        ? `signed ${skewS} s ago, more than the ${toleranceS} s allowed (a replay?)`
        : `signed ${-skewS} s in the future, more than the ${toleranceS} s allowed (clocks apart?)`,
    );
  if (header(headers, 'x-service-timestamp') !== timestamp)
    return fail('X-Service-Timestamp differs from webhook-timestamp');
  if (header(headers, 'x-service-event-id') !== id) return fail('X-Service-Event-Id differs from webhook-id');
  return { valid: true };
}
