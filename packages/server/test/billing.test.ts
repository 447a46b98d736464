import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { exportTo } from './support/exports.js';
import { eventually, join as joinLive, leave, publish } from './support/live.js';
import { h264Camera, pcmVoice, recordSession } from './support/media.js';
import { loadConfig } from '../src/config.js';
import type { UsageRecordsTable } from '../src/db/types.js';
import { UsageMeter } from '../src/modules/billing/meter.js';
import { billingStore } from '../src/modules/billing/store.js';
import { localStripe, signedSubscriptionEvent, STRIPE_WEBHOOK_SECRET } from './support/stripe.js';

const INTERVAL_S = 1;
const minutesOf = async (t: TestApp, key: string, query = '') =>
  (await call(t, 'GET', `/v1/usage${query}`, { key })).body.data.summary.streaming_minutes_total as number;
const storedOf = async (t: TestApp, key: string, sessionId: string) =>
  (await call(t, 'GET', `/v1/usage?session_id=${sessionId}`, { key })).body.data.summary
    .storage_bytes_total as number;
/**
 * The participant-time of the session's stays that ended, from its timeline (ms): each
 * `participant.left` less its `participant.joined`, the very instants the meter counts from and to.
 */
async function staysOf(t: TestApp, key: string, sessionId: string): Promise<number> {
  const events = (await call(t, 'GET', `/v1/sessions/${sessionId}/timeline`, { key })).body.data as Array<{
    type: string;
    ts: number;
    actor: string;
  }>;
  const joined = new Map<string, number>();
  let ms = 0;
  for (const e of events)
    if (e.type === 'participant.joined') joined.set(e.actor, e.ts);
    else if (e.type === 'participant.left') ms += e.ts - joined.get(e.actor)!;
  return ms;
}
/** Resolves once everyone has left the session and its minutes are their stays, exactly. */
async function staysWritten(t: TestApp, key: string, sessionId: string): Promise<void> {
  await eventually(
    async () => {
      const stays = await staysOf(t, key, sessionId);
      const ms = (await minutesOf(t, key, `?session_id=${sessionId}`)) * 60_000;
      return stays > 0 && Math.abs(ms - stays) < 0.01;
    },
    10_000,
    'the minutes of every leave',
  );
}

describe('streaming minutes', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp({ env: { USAGE_FLUSH_INTERVAL_S: String(INTERVAL_S) } });
    a = await tenant(t);
  });
  afterAll(() => t?.close());

  it('accrue for a real WebSocket participant while connected, are written at least every interval, and stop at leave', async () => {
    const s = await createSession(t, a.key);
    const before = Date.now();
    const socket = await joinLive(t, a.key, s.id, 'alice');
    const joined = Date.now();
    // Written while still connected: the periodic flush, not only the leave.
    await eventually(async () => (await minutesOf(t, a.key)) > 1.5 / 60, 10_000, 'minutes while connected');
    const closing = Date.now();
    await leave(socket);
    const left = Date.now();
    // The leave is written at once: from the join to the leave, as the timeline has them.
    await staysWritten(t, a.key, s.id);
    const total = await minutesOf(t, a.key, `?session_id=${s.id}`);
    expect(total * 60_000).toBeGreaterThanOrEqual(closing - joined);
    expect(total * 60_000).toBeLessThanOrEqual(left - before + 50);

    // Nothing accrues once the participant has gone: a later periodic flush, which writes the
    // minutes of someone still connected elsewhere (each flush writes every connection), adds
    // nothing here.
    const other = await createSession(t, a.key);
    const bob = await joinLive(t, a.key, other.id, 'bob');
    await eventually(
      async () => (await minutesOf(t, a.key, `?session_id=${other.id}`)) > 0,
      10_000,
      'a flush',
    );
    expect(await minutesOf(t, a.key, `?session_id=${s.id}`)).toBe(total);
    await leave(bob);
    await staysWritten(t, a.key, other.id);
    const everyone = await minutesOf(t, a.key);
    expect(everyone).toBeCloseTo(total + (await minutesOf(t, a.key, `?session_id=${other.id}`)), 9);

    const usage = await call(t, 'GET', `/v1/usage?session_id=${s.id}`, { key: a.key });
    expect(usage.status).toBe(200);
    const records = usage.body.data.records.filter((r: any) => r.usage_type === 'streaming_minutes');
    expect(records.length).toBeGreaterThanOrEqual(2);
    for (const r of records)
      expect(r).toMatchObject({ project_id: a.projectId, session_id: s.id, recorded_at: expect.any(String) });
    expect(records.reduce((n: number, r: any) => n + r.value, 0)).toBeCloseTo(total, 9);

    // The project's view and the daily totals agree with the organisation's.
    const project = await call(t, 'GET', `/v1/projects/${a.projectId}/usage`, { key: a.key });
    expect(project.body.data.summary.streaming_minutes_total).toBeCloseTo(everyone, 9);
    const daily = await call(t, 'GET', '/v1/usage/daily', { key: a.key });
    expect(daily.status).toBe(200);
    expect(daily.body.data).toHaveLength(31);
    expect(daily.body.data.at(-1)).toMatchObject({ date: new Date().toISOString().slice(0, 10) });
    expect(daily.body.data.reduce((n: number, d: any) => n + d.streaming_minutes, 0)).toBeCloseTo(
      everyone,
      9,
    );
  });

  it('pages the records with a Link header, and another organisation sees none of them', async () => {
    const first = await call(t, 'GET', '/v1/usage?limit=1', { key: a.key });
    expect(first.body.data.records).toHaveLength(1);
    const next = String(first.headers.link).match(/<([^>]+)>; rel="next"/)![1]!;
    const second = await call(t, 'GET', new URL(next).pathname + new URL(next).search, { key: a.key });
    expect(second.body.data.records).toHaveLength(1);
    expect(second.body.data.records[0].id).not.toBe(first.body.data.records[0].id);

    const b = await tenant(t);
    const theirs = await call(t, 'GET', '/v1/usage', { key: b.key });
    expect(theirs.body.data).toEqual({
      summary: { streaming_minutes_total: 0, storage_bytes_total: 0 },
      records: [],
    });
    expectError(await call(t, 'GET', `/v1/projects/${a.projectId}/usage`, { key: b.key }), 404, 'NOT_FOUND');
  });

  it('refuses bad filters with 400 naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/usage?from=yesterday', /from/],
      ['/v1/usage?to=2026-13-45T00:00:00Z', /to/],
      ['/v1/usage?from=2026-11-02T00:00:00.000Z&to=2026-11-01T00:00:00.000Z', /from.*before.*to/],
      ['/v1/usage?session_id=nope', /session_id/],
      ['/v1/usage?limit=0', /limit/],
      ['/v1/usage?cursor=abc', /cursor/],
      ['/v1/usage/daily?from=2020-01-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z', /366 days/],
      ['/v1/usage/daily?project_id=x', /project_id/],
    ];
    for (const [url, message] of cases) {
      const res = await call(t, 'GET', url, { key: a.key });
      expect(expectError(res, 400, 'BAD_REQUEST'), url).toMatch(message);
    }
  });
});

describe('stored bytes', () => {
  let t: TestApp;
  let a: Tenant;
  let dir: string;
  beforeAll(async () => {
    t = await startApp({
      env: { USAGE_FLUSH_INTERVAL_S: String(INTERVAL_S), SESSION_DEPARTURE_TIMEOUT_S: '0' },
    });
    a = await tenant(t);
    dir = mkdtempSync(join(tmpdir(), 'vss-billing-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const streamBytes = async (sessionId: string) =>
    (await t.runtime.streams.stats(sessionId)).reduce((n, s) => n + s.bytes, 0);

  it('rise with recording and exports, and fall with redaction and deletion', async () => {
    const s = await createSession(t, a.key, 'stored');
    await recordSession(t, a.key, s.id, [
      ...(await h264Camera('frank', 'yellow', 1)),
      ...pcmVoice('gina', 440, 1),
    ]);
    // The recording, as the stream store counts it, once its last events are written.
    const recorded = await eventually(
      async () => {
        const [bytes, stored] = [await streamBytes(s.id), await storedOf(t, a.key, s.id)];
        return bytes > 0 && stored === bytes ? bytes : null;
      },
      10_000,
      'the recording counted',
    );

    const job = await exportTo(t, a.key, s.id, join(dir, 'a.mp4'));
    expect(job.size_bytes).toBeGreaterThan(0);
    // The MP4, and the `export.completed` timeline event it adds to the recording.
    const withExport = await eventually(
      async () => {
        const [bytes, stored] = [await streamBytes(s.id), await storedOf(t, a.key, s.id)];
        return bytes > recorded && stored === bytes + job.size_bytes ? stored : null;
      },
      10_000,
      'the export counted',
    );
    expect(withExport).toBeLessThan(recorded + job.size_bytes + 1000);
    const limits = await call(t, 'GET', '/v1/billing/limits', { key: a.key });
    expect(limits.body.data.storage_bytes_used_gb).toBeCloseTo(withExport / 1e9, 12);

    // Redacting gina removes her stream, and withdraws the export that showed her.
    const mine = (await t.runtime.streams.stats(s.id)).find((x) => x.streamId === 'media/gina/mic')!.bytes;
    const redact = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/gina`, { key: a.key });
    expect(redact.status, redact.raw).toBe(200);
    const afterRedaction = await storedOf(t, a.key, s.id);
    expect(afterRedaction).toBe(await streamBytes(s.id));
    expect(afterRedaction).toBeLessThan(recorded - mine + 2000); // the timeline events since are small
    expect(afterRedaction).toBeGreaterThan(recorded - mine);

    const del = await call(t, 'DELETE', `/v1/sessions/${s.id}`, { key: a.key });
    expect(del.status, del.raw).toBe(200);
    expect(await storedOf(t, a.key, s.id)).toBe(0);
    const records = (await call(t, 'GET', `/v1/usage?session_id=${s.id}&limit=200`, { key: a.key })).body.data
      .records;
    const changes = records.filter((r: any) => r.usage_type === 'storage_bytes').map((r: any) => r.value);
    expect(changes.some((v: number) => v < 0)).toBe(true);
    expect(changes.reduce((n: number, v: number) => n + v, 0)).toBe(0);
    expect((await call(t, 'GET', '/v1/billing/limits', { key: a.key })).body.data.storage_bytes_used_gb).toBe(
      0,
    );
  });
});

describe('stored bytes, between flushes', () => {
  let t: TestApp;
  let a: Tenant;
  let dir: string;
  beforeAll(async () => {
    // The longest interval: nothing here may wait for a flush to be counted.
    t = await startApp({ env: { USAGE_FLUSH_INTERVAL_S: '60', SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    dir = mkdtempSync(join(tmpdir(), 'vss-billing-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("count an export's timeline event as soon as it is written, not at the next flush", async () => {
    const s = await createSession(t, a.key, 'between flushes');
    await recordSession(t, a.key, s.id, [...(await h264Camera('frank', 'yellow', 1))]);
    const job = await exportTo(t, a.key, s.id, join(dir, 'a.mp4'));
    await eventually(
      async () => {
        const events = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body
          .data as Array<{
          type: string;
        }>;
        return events.some((e) => e.type === 'export.completed');
      },
      10_000,
      'export.completed in the timeline',
    );
    const bytes = (await t.runtime.streams.stats(s.id)).reduce((n, x) => n + x.bytes, 0);
    await eventually(
      async () => (await storedOf(t, a.key, s.id)) === bytes + job.size_bytes,
      5_000,
      `stored bytes at ${bytes + job.size_bytes} (the recording with its timeline, and the MP4)`,
    );
  });
});

describe('free-tier limits, the billing portal and Stripe', () => {
  let t: TestApp;
  let a: Tenant;
  let stripe: Awaited<ReturnType<typeof localStripe>>;
  const PRICE_MINUTE = 1.37;
  const PRICE_GB = 1000;
  beforeAll(async () => {
    stripe = await localStripe();
    t = await startApp({
      env: {
        USAGE_FLUSH_INTERVAL_S: String(INTERVAL_S),
        FREE_TIER_STREAMING_MINUTES: '0.005',
        PRICE_PER_STREAMING_MINUTE: String(PRICE_MINUTE),
        PRICE_PER_GB_MONTH: String(PRICE_GB),
        BILLING_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_local',
        STRIPE_WEBHOOK_SECRET,
        STRIPE_API_URL: stripe.url,
        BILLING_RETURN_ORIGINS: 'https://app.example.com, https://billing.example.org:8443',
      },
    });
    a = await tenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  const stripeEvent = (e: Parameters<typeof signedSubscriptionEvent>[0]) => {
    const { body, signature } = signedSubscriptionEvent(e);
    return call(t, 'POST', '/v1/billing/stripe/webhook', {
      payload: body,
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    });
  };

  it('flip to blocked past the threshold; session creation (both routes) and export enqueue answer 503 naming the limit; a live meeting goes on', async () => {
    const fresh = await call(t, 'GET', '/v1/billing/limits', { key: a.key });
    expect(fresh.body.data).toEqual({
      within_free_tier: true,
      streaming_minutes_used: 0,
      storage_bytes_used_gb: 0,
      has_active_subscription: false,
      is_blocked: false,
      status_message: '',
      billing_portal: true,
    });
    const s = await createSession(t, a.key);
    const socket = await joinLive(t, a.key, s.id, 'alice');
    const limits = await eventually(
      async () => {
        const l = (await call(t, 'GET', '/v1/billing/limits', { key: a.key })).body.data;
        return l.is_blocked ? l : null;
      },
      10_000,
      'blocked',
    );
    expect(limits).toMatchObject({ within_free_tier: false, has_active_subscription: false });
    expect(limits.streaming_minutes_used).toBeGreaterThan(0.005);
    expect(limits.status_message).toMatch(/streaming minutes.*billing portal/s);

    const refusal = await eventually(
      async () => {
        const res = await call(t, 'POST', '/v1/sessions', { key: a.key, body: {} });
        return res.status === 503 ? res : null;
      },
      10_000,
      'session creation refused',
    );
    expect(expectError(refusal, 503, 'USAGE_LIMITS_EXCEEDED')).toMatch(
      /session creation refused: .*0\.005 streaming minutes/,
    );
    expect(
      expectError(
        await call(t, 'POST', `/v1/projects/${a.projectId}/sessions`, { key: a.key, body: {} }),
        503,
        'USAGE_LIMITS_EXCEEDED',
      ),
    ).toMatch(/streaming minutes/);
    expect(
      expectError(
        await call(t, 'GET', `/v1/sessions/${s.id}/export`, { key: a.key }),
        503,
        'USAGE_LIMITS_EXCEEDED',
      ),
    ).toMatch(/export refused/);

    // Not cut: the connection keeps working, and another participant may still join the session.
    const bob = await joinLive(t, a.key, s.id, 'bob');
    socket.send(publish('chat', Buffer.from(JSON.stringify({ text: 'still here' })), { id: 'c1' }));
    await socket.waitFor((m) => m.type === 'control' && m.event === 'ack' && m.data?.id === 'c1');
    await leave(bob);
    await leave(socket);
    await staysWritten(t, a.key, s.id);
  });

  it('summarises the month with every figure computed by hand from the records', async () => {
    // The meter goes on writing stored bytes at its interval: a summary read between two equal
    // listings of the records is the summary of those records.
    const list = async () =>
      (await call(t, 'GET', '/v1/usage?limit=200', { key: a.key })).body.data.records as any[];
    const { summary, records } = await eventually(
      async () => {
        const before = await list();
        const summary = (await call(t, 'GET', '/v1/billing/summary', { key: a.key })).body.data;
        const records = await list();
        const same = JSON.stringify(records) === JSON.stringify(before);
        return same && records.some((r) => r.usage_type === 'storage_bytes') ? { summary, records } : null;
      },
      10_000,
      'the records and stored bytes, unchanged around the summary',
    );
    const month = new Date();
    const start = Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1);
    const minutes = records
      .filter((r) => r.usage_type === 'streaming_minutes' && Date.parse(r.recorded_at) >= start)
      .reduce((n, r) => n + r.value, 0);
    const bytes = records.filter((r) => r.usage_type === 'storage_bytes').reduce((n, r) => n + r.value, 0);
    const streamingCost = Math.round(minutes * PRICE_MINUTE * 100) / 100;
    const storageCost = Math.round((bytes / 1e9) * PRICE_GB * 100) / 100;
    expect(minutes).toBeGreaterThan(0);
    expect(bytes).toBeGreaterThan(0);
    expect(summary).toEqual({
      period_start: new Date(start).toISOString(),
      period_end: new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1)).toISOString(),
      currency: 'usd',
      streaming_minutes_used: expect.closeTo(minutes, 9),
      storage_bytes_used: bytes,
      cost_breakdown: {
        streaming_cost: streamingCost,
        storage_cost: storageCost,
        total_due: Math.round((streamingCost + storageCost) * 100) / 100,
      },
    });
  });

  it('opens the portal through one Stripe customer per organisation, and one per project when asked', async () => {
    const res = await call(t, 'POST', '/v1/billing/portal', {
      key: a.key,
      body: { return_url: 'https://app.example.com/settings' },
    });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.portal_url).toMatch(/^https:\/\/billing\.stripe\.test\/p\//);
    const [customer, portal] = stripe.requests;
    expect(customer).toMatchObject({ method: 'POST', path: '/v1/customers' });
    expect(customer!.params.get('metadata[org_id]')).toBe(a.orgId);
    expect(portal).toMatchObject({ method: 'POST', path: '/v1/billing_portal/sessions' });
    expect(portal!.params.get('return_url')).toBe('https://app.example.com/settings');
    const customerId = portal!.params.get('customer');

    // The customer is kept: a second portal makes no second customer; the default return address.
    await call(t, 'POST', '/v1/billing/portal', { key: a.key });
    expect(stripe.requests.filter((r) => r.path === '/v1/customers')).toHaveLength(1);
    expect(stripe.requests.at(-1)!.params.get('customer')).toBe(customerId);
    expect(stripe.requests.at(-1)!.params.get('return_url')).toBe(`${t.config.publicBaseUrl}/billing`);

    const project = await call(t, 'POST', `/v1/projects/${a.projectId}/billing/portal`, {
      key: a.key,
      body: {},
    });
    expect(project.status, project.raw).toBe(200);
    const projectCustomer = stripe.requests.filter((r) => r.path === '/v1/customers').at(-1)!;
    expect(projectCustomer.params.get('metadata[project_id]')).toBe(a.projectId);
    expect(stripe.requests.filter((r) => r.path === '/v1/customers')).toHaveLength(2);

    expect(
      expectError(
        await call(t, 'POST', '/v1/billing/portal', {
          key: a.key,
          body: { return_url: 'javascript:alert(1)' },
        }),
        400,
        'BAD_REQUEST',
      ),
    ).toMatch(/return_url/);
    const b = await tenant(t);
    expectError(
      await call(t, 'POST', `/v1/projects/${a.projectId}/billing/portal`, { key: b.key, body: {} }),
      404,
      'NOT_FOUND',
    );
  });

  it('sends the person back only to PUBLIC_BASE_URL or an origin BILLING_RETURN_ORIGINS lists; any other return_url is 400', async () => {
    const portal = (returnUrl: string, path = '/v1/billing/portal') =>
      call(t, 'POST', path, { key: a.key, body: { return_url: returnUrl } });
    const asked = () => stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').length;
    for (const good of [
      `${t.config.publicBaseUrl}/settings?tab=billing`,
      'https://app.example.com/settings',
      'https://billing.example.org:8443/back',
    ]) {
      const res = await portal(good);
      expect(res.status, `${good}: ${res.raw}`).toBe(200);
      expect(stripe.requests.at(-1)!.params.get('return_url')).toBe(good);
    }
    const before = asked();
    for (const foreign of [
      'https://attacker.example/phish',
      'https://app.example.com.attacker.example/',
      'http://app.example.com/settings',
      'https://billing.example.org/back',
      'https://app.example.com@attacker.example/',
    ]) {
      for (const path of ['/v1/billing/portal', `/v1/projects/${a.projectId}/billing/portal`]) {
        const message = expectError(await portal(foreign, path), 400, 'BAD_REQUEST');
        expect(message, foreign).toMatch(/return_url/);
        expect(message).toContain('https://app.example.com');
      }
    }
    expect(asked()).toBe(before);

    // The operator's list is checked at start: origins only, named in the message.
    const dir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    try {
      for (const bad of [
        'app.example.com',
        'https://app.example.com/billing',
        'ftp://x.example',
        'https://u@x.example',
      ]) {
        expect(() => loadConfig({ DATA_DIR: dir, BILLING_RETURN_ORIGINS: bad }), bad).toThrowError(
          /^BILLING_RETURN_ORIGINS must be a comma-separated list of origins/,
        );
      }
      expect(
        loadConfig({
          DATA_DIR: dir,
          BILLING_RETURN_ORIGINS: ' https://A.example.com/ ,http://b.example:8080',
        }).billingReturnOrigins,
      ).toEqual(['https://a.example.com', 'http://b.example:8080']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a subscription event signed like Stripe's unblocks the organisation once; a forged one is refused with 400", async () => {
    const customer = stripe.requests
      .find((r) => r.path === '/v1/billing_portal/sessions')!
      .params.get('customer')!;
    const created = Math.floor(Date.now() / 1000);
    const sub = (id: string, type: string, status: string, createdS = created) =>
      stripeEvent({ id, type, customer, subscription: 'sub_1', status, createdS });
    const limits = async () => (await call(t, 'GET', '/v1/billing/limits', { key: a.key })).body.data;

    const forged = signedSubscriptionEvent({
      id: 'evt_forged',
      type: 'customer.subscription.created',
      customer,
      subscription: 'sub_1',
      status: 'active',
      createdS: created,
      secret: 'whsec_someone_else',
    });
    const refused = await call(t, 'POST', '/v1/billing/stripe/webhook', {
      payload: forged.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': forged.signature },
    });
    expect(expectError(refused, 400, 'BAD_REQUEST')).toMatch(/Stripe-Signature/);
    const unsigned = await call(t, 'POST', '/v1/billing/stripe/webhook', {
      payload: forged.body,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectError(unsigned, 400, 'BAD_REQUEST')).toMatch(/Stripe-Signature/);
    expect((await limits()).is_blocked).toBe(true);

    // A subscription Stripe does not know (yet): refused with 500, so that Stripe delivers it again.
    expectError(await sub('evt_early', 'customer.subscription.created', 'active'), 500, 'SERVER_ERROR');

    // Created (incomplete) and paid (active) in the same second, delivered in the reverse order:
    // the state is asked of Stripe, so the last delivery cannot put an older state back.
    stripe.subscriptions.set('sub_1', { customer, status: 'active' });
    const ok = await sub('evt_1', 'customer.subscription.updated', 'active');
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body.data).toEqual({ received: true, id: 'evt_1' });
    expect((await sub('evt_0', 'customer.subscription.created', 'incomplete')).status).toBe(200);
    const active = await limits();
    expect(active).toMatchObject({
      has_active_subscription: true,
      is_blocked: false,
      within_free_tier: false,
    });
    expect(active.status_message).toMatch(/billed to the active subscription/);
    expect((await call(t, 'POST', '/v1/sessions', { key: a.key, body: {} })).status).toBe(201);
    expect(stripe.requests.filter((r) => r.path === '/v1/subscriptions/sub_1').length).toBe(3);

    // Cancelled: blocked again at once in this process.
    stripe.subscriptions.set('sub_1', { customer, status: 'canceled' });
    expect((await sub('evt_2', 'customer.subscription.deleted', 'canceled', created + 1)).status).toBe(200);
    expect((await limits()).is_blocked).toBe(true);
    expectError(
      await call(t, 'POST', '/v1/sessions', { key: a.key, body: {} }),
      503,
      'USAGE_LIMITS_EXCEEDED',
    );
    // The first event delivered again is applied once only: no second reading, no change.
    const asked = stripe.requests.filter((r) => r.path === '/v1/subscriptions/sub_1').length;
    stripe.subscriptions.set('sub_1', { customer, status: 'active' });
    expect((await sub('evt_1', 'customer.subscription.updated', 'active')).status).toBe(200);
    expect((await limits()).is_blocked).toBe(true);
    expect(stripe.requests.filter((r) => r.path === '/v1/subscriptions/sub_1').length).toBe(asked + 1);
  });
  it('refuses a correctly signed event without an id, or with one that is not a string, with 400 naming `id`', async () => {
    const created = Math.floor(Date.now() / 1000);
    // Any event type: one the service ignores, and a subscription event (nothing is asked of Stripe).
    for (const type of ['invoice.paid', 'customer.subscription.updated']) {
      const fields = { type, customer: 'cus_x', subscription: 'sub_x' };
      const missing = await stripeEvent({ id: undefined, status: 'active', createdS: created, ...fields });
      expect(expectError(missing, 400, 'BAD_REQUEST')).toMatch(/\bid\b/);
      const { body } = signedSubscriptionEvent({
        id: 'evt_x',
        status: 'active',
        createdS: created,
        ...fields,
      });
      // The same event with a number for its id, signed over the changed bytes.
      const numeric = body.replace('"id":"evt_x"', '"id":42');
      expect(numeric).not.toBe(body);
      const signature = new Stripe('sk_test_local').webhooks.generateTestHeaderString({
        payload: numeric,
        secret: STRIPE_WEBHOOK_SECRET,
      });
      const wrongType = await call(t, 'POST', '/v1/billing/stripe/webhook', {
        payload: numeric,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      });
      expect(expectError(wrongType, 400, 'BAD_REQUEST')).toMatch(/\bid\b/);
    }
    // A subscription event whose object has no id.
    const noObject = JSON.stringify({
      id: 'evt_noobj',
      object: 'event',
      type: 'customer.subscription.created',
      data: {},
    });
    const noObjectRes = await call(t, 'POST', '/v1/billing/stripe/webhook', {
      payload: noObject,
      headers: {
        'content-type': 'application/json',
        'stripe-signature': new Stripe('sk_test_local').webhooks.generateTestHeaderString({
          payload: noObject,
          secret: STRIPE_WEBHOOK_SECRET,
        }),
      },
    });
    expect(expectError(noObjectRes, 400, 'BAD_REQUEST')).toMatch(/data\.object\.id/);
    expect(stripe.requests.some((r) => r.path === '/v1/subscriptions/sub_x')).toBe(false);
    // The server still answers.
    expect((await call(t, 'GET', '/v1/billing/limits', { key: a.key })).status).toBe(200);
  });
});

describe('the meter, against the real store', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
  });
  afterAll(() => t?.close());

  const meterWith = (write: (rows: UsageRecordsTable[]) => Promise<void>) =>
    new UsageMeter({
      nodeId: 'test',
      intervalMs: 3_600_000,
      write,
      syncStorage: async () => {},
      log: t.runtime.logger,
    });

  it('says there is no billing portal when no payment provider is configured', async () => {
    const limits = await call(t, 'GET', '/v1/billing/limits', { key: a.key });
    expect(limits.body.data.billing_portal).toBe(false);
    expect(
      expectError(await call(t, 'POST', '/v1/billing/portal', { key: a.key, body: {} }), 409, 'CONFLICT'),
    ).toMatch(/not configured/);
  });

  it('counts a batch once when its write committed but the answer was lost, and the flush is retried', async () => {
    const store = billingStore(t.runtime.database.db, t.runtime.database.engine);
    const s = await createSession(t, a.key);
    let lost = 0;
    const meter = meterWith(async (rows) => {
      await store.insertRecords(t.runtime.database.db, rows);
      if (lost++ === 0) throw new Error('connection reset after the commit');
    });
    const at = Date.now() - 90_000;
    meter.joined('c1', { id: s.id, project_id: a.projectId }, a.orgId, at);
    meter.left('c1', at + 90_000);
    await meter.flush(false); // written, then "failed": kept pending
    await meter.flush(false); // the same rows again: already there
    await meter.close();
    const records = (await call(t, 'GET', `/v1/usage?session_id=${s.id}`, { key: a.key })).body.data;
    expect(records.summary.streaming_minutes_total).toBe(1.5);
    expect(records.records).toHaveLength(1);
  });

  it('splits minutes at midnight UTC, each part dated within its own day', async () => {
    const store = billingStore(t.runtime.database.db, t.runtime.database.engine);
    const s = await createSession(t, a.key);
    const meter = meterWith((rows) => store.insertRecords(t.runtime.database.db, rows));
    const midnight = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    meter.joined('c2', { id: s.id, project_id: a.projectId }, a.orgId, midnight - 30_000);
    meter.left('c2', midnight + 45_000);
    await meter.close();
    const records = (await call(t, 'GET', `/v1/usage?session_id=${s.id}`, { key: a.key })).body.data.records;
    expect(records.map((r: any) => [r.value, r.recorded_at])).toEqual([
      [0.75, expect.any(String)],
      [0.5, new Date(midnight - 1).toISOString()],
    ]);
    expect(Date.parse(records[0].recorded_at)).toBeGreaterThanOrEqual(midnight);
  });
});

describe('billing without a provider', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
  });
  afterAll(() => t?.close());

  it('answers 409 "billing is not configured" to the portal and the provider webhook; restricted keys get 403', async () => {
    expect(expectError(await call(t, 'POST', '/v1/billing/portal', { key: a.key }), 409, 'CONFLICT')).toMatch(
      /billing is not configured/,
    );
    expect(
      expectError(
        await call(t, 'POST', `/v1/projects/${a.projectId}/billing/portal`, { cookie: a.cookie, body: {} }),
        409,
        'CONFLICT',
      ),
    ).toMatch(/billing is not configured/);
    expectError(
      await call(t, 'POST', '/v1/billing/stripe/webhook', {
        payload: '{}',
        headers: { 'content-type': 'application/json' },
      }),
      409,
      'CONFLICT',
    );
    const rk = await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: {} });
    expectError(await call(t, 'GET', '/v1/billing/limits', { key: rk.body.data.secret }), 403, 'FORBIDDEN');
    const summary = await call(t, 'GET', '/v1/billing/summary', { cookie: a.cookie });
    expect(summary.body.data.cost_breakdown).toEqual({ streaming_cost: 0, storage_cost: 0, total_due: 0 });
  });
});
