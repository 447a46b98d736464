import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  signWebhook,
  verifyWebhook,
  WEBHOOK_TOLERANCE_S,
  webhookSecretProblem,
  type WebhookSignatureHeaders,
} from '../src/index.js';

// The example of the Standard Webhooks specification: its secret, id, timestamp, body and signature.
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
const EVENT_ID = '0b7c7c5e-54b5-4bb4-9a43-6f7a8f6d2f10';
const BODY = Buffer.from(
  JSON.stringify({ id: EVENT_ID, type: 'session.started', timestamp: '2026-11-26T12:00:00.000Z' }),
);
const NOW_MS = 1_795_000_000_000;
const NOW_S = NOW_MS / 1000;

const signed = (over: { secret?: string; timestamp?: number; body?: Uint8Array | string } = {}) =>
  signWebhook({
    secret: over.secret ?? SECRET,
    eventId: EVENT_ID,
    timestamp: over.timestamp ?? NOW_S,
    body: over.body ?? BODY,
  });

const verify = (
  headers: Record<string, string>,
  over: { body?: Uint8Array | string; secret?: string } = {},
) => verifyWebhook({ secret: over.secret ?? SECRET, headers, body: over.body ?? BODY, nowMs: NOW_MS });

describe('signWebhook', () => {
  it('signs as the interface says: hex HMAC of the body with the whole secret, and Standard Webhooks v1', async () => {
    const h = await signWebhook({
      secret: SPEC.secret,
      eventId: SPEC.id,
      timestamp: SPEC.timestamp,
      body: SPEC.body,
    });
    expect(h).toEqual({
      'x-service-signature': createHmac('sha256', SPEC.secret).update(SPEC.body).digest('hex'),
      'x-service-event-id': SPEC.id,
      'x-service-timestamp': String(SPEC.timestamp),
      'webhook-id': SPEC.id,
      'webhook-timestamp': String(SPEC.timestamp),
      'webhook-signature': SPEC.signature,
    });
  });

  it('signs the bytes given, whether a string or bytes', async () => {
    expect(await signed({ body: BODY.toString('utf8') })).toEqual(
      await signed({ body: new Uint8Array(BODY) }),
    );
  });

  it('refuses what is not a whsec_ secret', async () => {
    await expect(signed({ secret: 'sk_live_abc' })).rejects.toThrow(TypeError);
    expect(webhookSecretProblem('whsec_not base64!')).toMatch(/whsec_/);
    expect(webhookSecretProblem(undefined)).toMatch(/whsec_/);
    expect(webhookSecretProblem(SECRET)).toBeNull();
  });
});

describe('verifyWebhook', () => {
  it('accepts a delivery as signed, with headers as Node or fetch has them', async () => {
    const h = await signed();
    expect(await verify(h)).toEqual({ valid: true });
    expect(
      await verifyWebhook({
        secret: SECRET,
        headers: new Headers(h),
        body: BODY.toString('utf8'),
        nowMs: NOW_MS,
      }),
    ).toEqual({ valid: true });
    // Node gives a repeated header as an array: its first value counts.
    expect(
      await verifyWebhook({
        secret: SECRET,
        headers: { ...h, 'webhook-id': [EVENT_ID, 'another'] },
        body: BODY,
        nowMs: NOW_MS,
      }),
    ).toEqual({ valid: true });
  });

  it('refuses a body changed on the way, even by one byte', async () => {
    const h = await signed();
    const tampered = Buffer.from(BODY);
    tampered[tampered.length - 2]! ^= 1;
    expect(await verify(h, { body: tampered })).toEqual({
      valid: false,
      reason: 'X-Service-Signature does not match the body',
    });
    // The same event re-serialised (spaces added) is other bytes: verify the raw body.
    const reserialised = JSON.stringify(JSON.parse(BODY.toString('utf8')), null, 1);
    expect((await verify(h, { body: reserialised })).valid).toBe(false);
  });

  it('refuses a delivery signed with another secret (an old one after a rotation)', async () => {
    expect(await verify(await signed({ secret: OTHER_SECRET }))).toEqual({
      valid: false,
      reason: 'X-Service-Signature does not match the body',
    });
  });

  it('refuses a delivery signed longer ago (or further ahead) than the tolerance', async () => {
    const old = await signed({ timestamp: NOW_S - 600 });
    expect(await verify(old)).toEqual({
      valid: false,
      reason: 'signed 600 s ago, more than the 300 s allowed (a replay?)',
    });
    expect(await verify(await signed({ timestamp: NOW_S + 400 }))).toEqual({
      valid: false,
      reason: 'signed 400 s in the future, more than the 300 s allowed (clocks apart?)',
    });
    expect(await verify(await signed({ timestamp: NOW_S - WEBHOOK_TOLERANCE_S }))).toEqual({ valid: true });
    expect(
      await verifyWebhook({ secret: SECRET, headers: old, body: BODY, nowMs: NOW_MS, toleranceS: 900 }),
    ).toEqual({ valid: true });
  });

  it('refuses an old delivery given a fresh timestamp: the Standard Webhooks signature covers it', async () => {
    const old = await signed({ timestamp: NOW_S - 600 });
    const restamped = { ...old, 'webhook-timestamp': String(NOW_S), 'x-service-timestamp': String(NOW_S) };
    expect(await verify(restamped)).toEqual({ valid: false, reason: 'webhook-signature does not match' });
  });

  it('accepts several signatures in webhook-signature when one matches (a secret being rotated)', async () => {
    const current = await signed();
    const previous = await signed({ secret: OTHER_SECRET });
    const both = `${previous['webhook-signature']} ${current['webhook-signature']}`;
    expect(await verify({ ...current, 'webhook-signature': both })).toEqual({ valid: true });
    const none = `${previous['webhook-signature']} v2,${current['webhook-signature'].slice(3)}`;
    expect(await verify({ ...current, 'webhook-signature': none })).toEqual({
      valid: false,
      reason: 'webhook-signature does not match',
    });
  });

  it('refuses missing or malformed headers, each with its reason', async () => {
    const h = await signed();
    const without = (name: keyof WebhookSignatureHeaders) => {
      const copy: Record<string, string> = { ...h };
      delete copy[name];
      return copy;
    };
    const cases: [Record<string, string>, string][] = [
      [without('x-service-signature'), 'no X-Service-Signature header'],
      [
        { ...h, 'x-service-signature': h['x-service-signature'].toUpperCase() },
        'X-Service-Signature does not match the body',
      ],
      [
        { ...h, 'x-service-signature': h['x-service-signature'].slice(2) },
        'X-Service-Signature does not match the body',
      ],
      [
        without('webhook-id'),
        'missing a Standard Webhooks header (webhook-id, webhook-timestamp, webhook-signature)',
      ],
      [
        without('webhook-signature'),
        'missing a Standard Webhooks header (webhook-id, webhook-timestamp, webhook-signature)',
      ],
      [
        { ...h, 'webhook-timestamp': '2026-11-26T12:00:00Z' },
        'webhook-timestamp "2026-11-26T12:00:00Z" is not Unix seconds',
      ],
      [{ ...h, 'webhook-signature': h['webhook-signature'].slice(3) }, 'webhook-signature does not match'],
      [{ ...h, 'webhook-signature': 'v1,***' }, 'webhook-signature does not match'],
      [without('x-service-timestamp'), 'X-Service-Timestamp differs from webhook-timestamp'],
      [{ ...h, 'x-service-event-id': 'another' }, 'X-Service-Event-Id differs from webhook-id'],
    ];
    for (const [headers, reason] of cases) expect(await verify(headers)).toEqual({ valid: false, reason });
  });

  it('throws on a secret that is not one (a configuration error, not a bad delivery)', async () => {
    await expect(verify(await signed(), { secret: '' })).rejects.toThrow(/whsec_/);
  });
});
