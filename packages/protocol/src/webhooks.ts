/**
 * Webhook signatures: how the server signs a delivery, and how a receiver checks one. Web Crypto
 * only (`globalThis.crypto.subtle`), so the same code runs in Node 20+, browsers, Deno and edge
 * workers; both functions are therefore async.
 *
 * Every delivery carries two signatures over the exact bytes sent:
 * - `X-Service-Signature`: lowercase hex HMAC-SHA256 of the body, keyed with the whole `whsec_…`
 *   secret as text (with `X-Service-Event-Id` and `X-Service-Timestamp` beside it);
 * - the Standard Webhooks trio `webhook-id`, `webhook-timestamp` (Unix seconds) and
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the
 *   bytes of the secret's base64 part. It covers the timestamp, so a receiver can refuse a
 *   captured delivery replayed later; the header may hold several space-separated signatures
 *   (one per secret in force while a secret is rotated), and one that matches is enough.
 */
import { fromBase64, toBase64 } from './media.js';
import { utf8 } from './utf8.js';

/**
 * How far a delivery's signed timestamp may be from the receiver's clock, either way, before it
 * is refused: 5 minutes, as Standard Webhooks recommends. Retries are signed anew at each attempt,
 * so only a replayed (or much delayed) delivery is that old.
 */
export const WEBHOOK_TOLERANCE_S = 300;

/** The signature headers of a delivery, by their lowercase names. */
export const WEBHOOK_HEADERS = {
  SIGNATURE: 'x-service-signature',
  EVENT_ID: 'x-service-event-id',
  TIMESTAMP: 'x-service-timestamp',
  STANDARD_ID: 'webhook-id',
  STANDARD_TIMESTAMP: 'webhook-timestamp',
  STANDARD_SIGNATURE: 'webhook-signature',
} as const;

/** What signWebhook returns: every signature header of one attempt. */
export type WebhookSignatureHeaders = Record<(typeof WEBHOOK_HEADERS)[keyof typeof WEBHOOK_HEADERS], string>;

/** The verdict on one delivery: valid, or why not (for a log; answer 401 either way). */
export type WebhookVerdict = { valid: true } | { valid: false; reason: string };

/**
 * Request headers as a receiver has them: a fetch `Headers` (or anything with `get`), or a plain
 * object with lowercase names such as Node's `req.headers`.
 */
export type WebhookHeaderSource =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Why a string is not a webhook secret as the API shows it (`whsec_`, then base64 of the key
 * bytes), or null when it is one.
 */
export function webhookSecretProblem(secret: unknown): string | null {
  if (
    typeof secret !== 'string' ||
    !secret.startsWith(SECRET_PREFIX) ||
    !BASE64.test(secret.slice(SECRET_PREFIX.length))
  )
    return 'expected the whsec_… secret shown when the webhook was created (or its secret rotated)';
  return null;
}

/** A fresh copy on its own ArrayBuffer, as Web Crypto takes it. */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

function bodyBytes(body: Uint8Array | string): Uint8Array<ArrayBuffer> {
  return typeof body === 'string' ? utf8.encode(body) : own(body);
}

/** The two HMAC-SHA256 keys of a secret: its whole text, and the bytes of its base64 part. */
async function keysOf(secret: string): Promise<{ text: CryptoKey; standard: CryptoKey }> {
  const problem = webhookSecretProblem(secret);
  if (problem) throw new TypeError(`webhook secret: ${problem}`);
  const hmac = { name: 'HMAC', hash: 'SHA-256' };
  const use: KeyUsage[] = ['sign', 'verify'];
  const [text, standard] = await Promise.all([
    crypto.subtle.importKey('raw', utf8.encode(secret), hmac, false, use),
    crypto.subtle.importKey('raw', own(fromBase64(secret.slice(SECRET_PREFIX.length))), hmac, false, use),
  ]);
  return { text, standard };
}

/** What the Standard Webhooks signature covers: `{id}.{timestamp}.` and the body's bytes. */
function standardContent(id: string, timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = utf8.encode(`${id}.${timestamp}.`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The bytes of one `v1,<base64>` entry of `webhook-signature`, or null for another kind or bad base64. */
function v1Bytes(entry: string): Uint8Array<ArrayBuffer> | null {
  if (!entry.startsWith('v1,') || !BASE64.test(entry.slice(3))) return null;
  try {
    return own(fromBase64(entry.slice(3)));
  } catch {
    return null;
  }
}

/**
 * Signs one delivery attempt: the signature headers for `body` (the exact bytes sent), event
 * `eventId` (the same on every attempt), at `timestamp` (Unix seconds of this attempt).
 */
export async function signWebhook(options: {
  secret: string;
  eventId: string;
  timestamp: number;
  body: Uint8Array | string;
}): Promise<WebhookSignatureHeaders> {
  const body = bodyBytes(options.body);
  const timestamp = String(Math.floor(options.timestamp));
  const keys = await keysOf(options.secret);
  const [signature, standard] = await Promise.all([
    crypto.subtle.sign('HMAC', keys.text, body),
    crypto.subtle.sign('HMAC', keys.standard, standardContent(options.eventId, timestamp, body)),
  ]);
  return {
    [WEBHOOK_HEADERS.SIGNATURE]: hex(new Uint8Array(signature)),
    [WEBHOOK_HEADERS.EVENT_ID]: options.eventId,
    [WEBHOOK_HEADERS.TIMESTAMP]: timestamp,
    [WEBHOOK_HEADERS.STANDARD_ID]: options.eventId,
    [WEBHOOK_HEADERS.STANDARD_TIMESTAMP]: timestamp,
    [WEBHOOK_HEADERS.STANDARD_SIGNATURE]: `v1,${toBase64(new Uint8Array(standard))}`,
  };
}

function header(headers: WebhookHeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const v = (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
  return typeof v === 'string' ? v : v?.[0];
}

/**
 * Checks one delivery as a receiver must, over the body's bytes exactly as received (never JSON
 * parsed and serialised again): `X-Service-Signature`; the Standard Webhooks `webhook-signature`
 * (any one of its `v1,` signatures); the signed timestamp within `toleranceS` of `nowMs` (this
 * machine's clock), so that an old delivery replayed later is refused; and the X-Service id and
 * timestamp equal to the signed ones. Signatures are compared by Web Crypto's HMAC verify, in
 * constant time. Answer 401 to an invalid delivery. Throws a TypeError when `secret` is not a
 * `whsec_…` secret (a configuration error, not a bad delivery).
 */
export async function verifyWebhook(options: {
  secret: string;
  headers: WebhookHeaderSource;
  body: Uint8Array | string;
  toleranceS?: number;
  nowMs?: number;
}): Promise<WebhookVerdict> {
  const { headers, toleranceS = WEBHOOK_TOLERANCE_S, nowMs = Date.now() } = options;
  const fail = (reason: string): WebhookVerdict => ({ valid: false, reason });
  const keys = await keysOf(options.secret);
  const body = bodyBytes(options.body);

  const given = header(headers, WEBHOOK_HEADERS.SIGNATURE);
  if (!given) return fail('no X-Service-Signature header');
  const givenBytes = /^[0-9a-f]{64}$/.test(given)
    ? new Uint8Array(given.match(/../g)!.map((h) => parseInt(h, 16)))
    : null;
  if (!givenBytes || !(await crypto.subtle.verify('HMAC', keys.text, givenBytes, body)))
    return fail('X-Service-Signature does not match the body');

  const id = header(headers, WEBHOOK_HEADERS.STANDARD_ID);
  const timestamp = header(headers, WEBHOOK_HEADERS.STANDARD_TIMESTAMP);
  const signatures = header(headers, WEBHOOK_HEADERS.STANDARD_SIGNATURE);
  if (!id || !timestamp || !signatures)
    return fail('missing a Standard Webhooks header (webhook-id, webhook-timestamp, webhook-signature)');
  if (!/^\d{1,12}$/.test(timestamp)) return fail(`webhook-timestamp "${timestamp}" is not Unix seconds`);
  const content = standardContent(id, timestamp, body);
  const candidates = signatures.split(' ').map(v1Bytes);
  const verdicts = await Promise.all(
    candidates.map((c) => c !== null && crypto.subtle.verify('HMAC', keys.standard, c, content)),
  );
  if (!verdicts.includes(true)) return fail('webhook-signature does not match');

  const skewS = Math.round(nowMs / 1000 - Number(timestamp));
  if (Math.abs(skewS) > toleranceS)
    return fail(
      skewS > 0
        ? `signed ${skewS} s ago, more than the ${toleranceS} s allowed (a replay?)`
        : `signed ${-skewS} s in the future, more than the ${toleranceS} s allowed (clocks apart?)`,
    );
  if (header(headers, WEBHOOK_HEADERS.TIMESTAMP) !== timestamp)
    return fail('X-Service-Timestamp differs from webhook-timestamp');
  if (header(headers, WEBHOOK_HEADERS.EVENT_ID) !== id)
    return fail('X-Service-Event-Id differs from webhook-id');
  return { valid: true };
}
