import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { webhooksStore } from '../src/modules/webhooks/store.js';
import { eventually } from './support/wait.js';
import { receiver, verifies, verifiesStandard, type Receiver } from './support/webhooks.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
/** A tenant of its own for each test: no other test's webhook hears its events. */
let a: Tenant;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // One retry, a minute after a failure: it stays pending for the whole of a test.
  t = await startApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS_S: '60', WEBHOOK_TIMEOUT_MS: '2000' },
    jobPollMs: 100,
  });
});
beforeEach(async () => {
  a = await tenant(t);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await t.close();
});

async function newReceiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await receiver(0, answer);
  receivers.push(r);
  return r;
}

async function hookFor(who: Tenant, url: string, events = ['session.created']) {
  const res = await call(t, 'POST', '/v1/webhooks', { key: who.key, body: { url, events } });
  if (res.status !== 201) throw new Error(`webhook create failed: ${res.raw}`);
  return res.body.data as { id: string; secret: string };
}

async function log(who: Tenant, hookId: string): Promise<any[]> {
  const res = await call(t, 'GET', `/v1/webhooks/${hookId}/deliveries`, { key: who.key });
  expect(res.status, res.raw).toBe(200);
  return res.body.data;
}

const redeliver = (who: Tenant, hookId: string, deliveryId: string) =>
  call(t, 'POST', `/v1/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`, { key: who.key });

/** The queued jobs delivering to this webhook: the original's pending retry, with when it is due. */
async function queuedOf(hookId: string) {
  return t.runtime.database.db
    .selectFrom('jobs')
    .select(['id', 'run_at', 'attempts', 'status'])
    .where('group_key', '=', hookId)
    .execute();
}

describe('sending a delivery again', () => {
  it('sends the same event id and bytes with a new signature time, logs a new row, and leaves the pending retry alone', async () => {
    // The first attempt fails (its retry is a minute away); every later request succeeds.
    const r = await newReceiver((_h, i) => (i === 0 ? 500 : 200));
    const hook = await hookFor(a, r.url);
    const session = await createSession(t, a.key, 'sent twice');
    const [first] = await eventually(async () => {
      const rows = await log(a, hook.id);
      return rows.length === 1 ? rows : null;
    });
    expect(first).toMatchObject({ attempt: 1, status: 'failed', response_status: 500, redelivery_of: null });
    expect(first.next_attempt_at).not.toBeNull();
    // The log shows what was sent: the body the receiver got, parsed.
    expect(first.payload).toEqual(r.hits[0]!.body);
    expect(first.payload).toMatchObject({ type: 'session.created', session_id: session.id });
    const retryBefore = await queuedOf(hook.id);
    expect(retryBefore).toHaveLength(1);
    expect(retryBefore[0]).toMatchObject({ status: 'queued', attempts: 1 });

    // Signature times are whole seconds: wait for the next one, so that a new time can show.
    const firstTs = Number(r.hits[0]!.headers['x-service-timestamp']);
    await eventually(() => Math.floor(Date.now() / 1000) > firstTs, 2000, 'the next second');

    const res = await redeliver(a, hook.id, first.id);
    expect(res.status, res.raw).toBe(202);
    const row = res.body.data;
    expect(row).toMatchObject({
      event_id: first.event_id,
      event_type: 'session.created',
      attempt: 1,
      status: 'pending',
      response_status: null,
      next_attempt_at: null,
      redelivery_of: first.id,
      payload: first.payload,
    });
    expect(row.id).toMatch(UUID);
    expect(row.id).not.toBe(first.id);

    const again = await eventually(() => r.hits[1], 5000, 'the redelivery');
    const original = r.hits[0]!;
    expect(again.headers['x-service-event-id']).toBe(original.headers['x-service-event-id']);
    expect(again.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(again.raw.equals(original.raw)).toBe(true);
    expect(Number(again.headers['x-service-timestamp'])).toBeGreaterThan(firstTs);
    expect(again.headers['webhook-timestamp']).toBe(again.headers['x-service-timestamp']);
    expect(again.headers['webhook-signature']).not.toBe(original.headers['webhook-signature']);
    expect(verifies(hook.secret, again)).toBe(true);
    expect(verifiesStandard(hook.secret, again)).toBe(true);

    // The new row says what happened; the original's row and its retry are as they were.
    const rows = await eventually(async () => {
      const all = await log(a, hook.id);
      return all.find((d) => d.id === row.id)?.status === 'succeeded' ? all : null;
    });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      id: row.id,
      status: 'succeeded',
      response_status: 200,
      error: null,
      redelivery_of: first.id,
      next_attempt_at: null,
      payload: first.payload,
    });
    expect(rows[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(rows[1]).toEqual(first);
    expect(await queuedOf(hook.id)).toEqual(retryBefore);
    expect(r.hits).toHaveLength(2);
  });

  it('tries a redelivery once: a failure is logged with no next attempt and is not retried', async () => {
    const r = await newReceiver((_h, i) => (i === 0 ? 200 : 503));
    const hook = await hookFor(a, r.url);
    await createSession(t, a.key);
    const [first] = await eventually(async () => {
      const rows = await log(a, hook.id);
      return rows.length === 1 ? rows : null;
    });
    expect(first.status).toBe('succeeded');
    const res = await redeliver(a, hook.id, first.id);
    expect(res.status, res.raw).toBe(202);
    const failed = await eventually(async () => {
      const d = (await log(a, hook.id)).find((x) => x.id === res.body.data.id);
      return d?.status === 'failed' ? d : null;
    });
    expect(failed).toMatchObject({ response_status: 503, error: 'answered 503', next_attempt_at: null });
    // Its job failed for good: nothing more will be sent.
    const job = await t.runtime.database.db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('payload', 'like', `%${res.body.data.id}%`)
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ status: 'failed', attempts: 1 });
    expect(r.hits).toHaveLength(2);
  });

  it('answers 404 naming the unknown webhook or delivery, and to another project', async () => {
    const r = await newReceiver();
    const hook = await hookFor(a, r.url);
    const other = await hookFor(a, r.url, ['session.ended']);
    await createSession(t, a.key);
    const [first] = await eventually(async () => {
      const rows = await log(a, hook.id);
      return rows.length === 1 ? rows : null;
    });
    const missing = '0190b2c4-0000-7000-8000-000000000000';
    expect(expectError(await redeliver(a, missing, first.id), 404, 'NOT_FOUND')).toBe(
      `webhook not found: this project has no webhook ${missing}`,
    );
    expect(expectError(await redeliver(a, hook.id, missing), 404, 'NOT_FOUND')).toBe(
      `delivery not found: this webhook has no delivery ${missing}`,
    );
    // A delivery of another webhook is not one of this webhook's.
    expect(expectError(await redeliver(a, other.id, first.id), 404, 'NOT_FOUND')).toMatch(
      /^delivery not found/,
    );
    // Another project's key knows neither.
    const b = await tenant(t);
    expect(expectError(await redeliver(b, hook.id, first.id), 404, 'NOT_FOUND')).toMatch(
      /^webhook not found/,
    );
    expectError(
      await call(t, 'POST', `/v1/webhooks/${hook.id}/deliveries/not-an-id/redeliver`, { key: a.key }),
      400,
      'BAD_REQUEST',
    );
    // Nothing was sent, and nothing logged, for any of them.
    expect(await log(a, hook.id)).toHaveLength(1);
    expect(await log(a, other.id)).toHaveLength(0);
    expect(r.hits).toHaveLength(1);
  });

  it('sends again to a paused webhook, as asked', async () => {
    const r = await newReceiver();
    const hook = await hookFor(a, r.url);
    await createSession(t, a.key);
    const [first] = await eventually(async () => {
      const rows = await log(a, hook.id);
      return rows.length === 1 ? rows : null;
    });
    const paused = await call(t, 'PATCH', `/v1/webhooks/${hook.id}`, {
      key: a.key,
      body: { is_active: false },
    });
    expect(paused.status).toBe(200);
    const res = await redeliver(a, hook.id, first.id);
    expect(res.status, res.raw).toBe(202);
    await eventually(() => r.hits.length === 2, 5000, 'the redelivery');
    expect(r.hits[1]!.raw.equals(r.hits[0]!.raw)).toBe(true);
  });
});

describe('how often a delivery can be sent again', () => {
  it('sends at most 10 redeliveries a minute per webhook; past it, 429 RATE_LIMITED with Retry-After, nothing sent or logged', async () => {
    const r = await newReceiver();
    const hook = await hookFor(a, r.url);
    const other = await hookFor(a, r.url);
    await createSession(t, a.key);
    const [first] = await eventually(async () => {
      const rows = await log(a, hook.id);
      return rows.length === 1 ? rows : null;
    });
    const [otherFirst] = await eventually(async () => {
      const rows = await log(a, other.id);
      return rows.length === 1 ? rows : null;
    });
    // The limit counts in fixed minute windows: start where eleven requests fit in one.
    await eventually(() => Date.now() % 60_000 < 45_000, 20_000, 'room in the current minute');

    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await redeliver(a, hook.id, first.id));
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(202));

    const refused = await redeliver(a, hook.id, first.id);
    expect(expectError(refused, 429, 'RATE_LIMITED')).toBe(
      'too many redeliveries to this webhook: at most 10 per minute',
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The refused one was neither logged nor sent: the original and the ten.
    expect(await log(a, hook.id)).toHaveLength(11);
    await eventually(() => r.hits.length === 2 + 10, 10_000, 'the ten redeliveries');

    // The limit is the webhook's own: another webhook of the project still sends again.
    const elsewhere = await redeliver(a, other.id, otherFirst.id);
    expect(elsewhere.status, elsewhere.raw).toBe(202);
    expect(await log(a, other.id)).toHaveLength(2);
  });
});

describe('the delivery log and its payloads', () => {
  it('keeps an event while a delivery of it is logged, so that every row shows its payload and can be sent again', async () => {
    const db = t.runtime.database.db;
    const store = webhooksStore(db);
    const day = 86_400_000;
    const old = Date.now() - 40 * day;
    const hookId = randomUUID();
    const event = (id: string) => ({
      id,
      project_id: a.projectId,
      type: 'session.created',
      body: JSON.stringify({ id }),
      created_at: old,
    });
    const row = (eventId: string, at: number) => ({
      id: randomUUID(),
      webhook_id: hookId,
      event_id: eventId,
      event_type: 'session.created',
      attempt: 1,
      status: 'succeeded',
      response_status: 200,
      error: null,
      duration_ms: 3,
      created_at: at,
      next_attempt_at: null,
      redelivery_of: null,
    });
    // Sent again recently / logged only long ago / never logged.
    const [resent, forgotten, unlogged] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [resent, forgotten, unlogged]) await store.insertEvent(db, event(id));
    const first = row(resent, old);
    await store.insertDelivery(db, first);
    await store.insertDelivery(db, { ...row(resent, Date.now() - day), redelivery_of: first.id });
    await store.insertDelivery(db, row(forgotten, old));

    await store.sweep(Date.now() - 30 * day);
    expect([...(await store.eventBodies([resent, forgotten, unlogged])).keys()]).toEqual([resent]);
    const left = await db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('webhook_id', '=', hookId)
      .execute();
    expect(left).toEqual([{ event_id: resent }]);
  });
});
