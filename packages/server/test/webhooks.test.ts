import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE,
  call,
  createSession,
  expectError,
  register,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { eventually, jpeg, join, leave, publish } from './support/live.js';
import { freePort } from './support/process.js';
import { receiver, verifies, verifiesStandard, type Receiver } from './support/webhooks.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Fast retries and a short attempt timeout, so that the whole schedule runs in a test. */
const FAST = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_DELAYS_S: '0.2,0.3',
  WEBHOOK_TIMEOUT_MS: '600',
  SESSION_DEPARTURE_TIMEOUT_S: '0',
};

let t: TestApp;
let a: Tenant;
const receivers: Receiver[] = [];

async function hookFor(
  who: Tenant,
  url: string,
  events: string[] = ['session.created'],
  extra: Record<string, unknown> = {},
) {
  const res = await call(t, 'POST', '/v1/webhooks', { key: who.key, body: { url, events, ...extra } });
  if (res.status !== 201) throw new Error(`webhook create failed: ${res.raw}`);
  return res.body.data as { id: string; secret: string; url: string };
}

async function newReceiver(answer?: Receiver['answer'], port = 0): Promise<Receiver> {
  const r = await receiver(port, answer);
  receivers.push(r);
  return r;
}

async function deliveries(who: Tenant, hookId: string, query = '') {
  const res = await call(t, 'GET', `/v1/webhooks/${hookId}/deliveries${query}`, { key: who.key });
  expect(res.status).toBe(200);
  return res;
}

/** Deliveries of these webhooks still queued or running: none means nothing more is coming. */
async function pendingDeliveries(hookIds: string[]): Promise<number> {
  const rows = await t.runtime.database.db
    .selectFrom('jobs')
    .select('id')
    .where('group_key', 'in', hookIds)
    .where('status', 'in', ['queued', 'running'])
    .execute();
  return rows.length;
}

beforeAll(async () => {
  t = await startApp({ env: FAST, jobPollMs: 100 });
  a = await tenant(t);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await t.close();
});

describe('webhook management', () => {
  it('shows the secret once, at creation; list, get and update never do', async () => {
    const r = await newReceiver();
    const created = await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: r.url, events: ['session.created', 'session.ended'], description: 'crm sync' },
    });
    expect(created.status).toBe(201);
    const hook = created.body.data;
    expect(hook).toMatchObject({
      project_id: a.projectId,
      url: r.url,
      events: ['session.created', 'session.ended'],
      is_active: true,
      description: 'crm sync',
    });
    expect(hook.id).toMatch(UUID);
    expect(hook.created_at).toMatch(ISO_MS);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await call(t, 'GET', `/v1/webhooks/${hook.id}`, { key: a.key });
    expect(got.body.data).toEqual(omit(hook, 'secret'));
    expect(got.raw).not.toContain(hook.secret);

    const listed = await call(t, 'GET', '/v1/webhooks', { key: a.key });
    expect(listed.body.data.map((h: any) => h.id)).toContain(hook.id);
    expect(listed.raw).not.toContain('whsec_');

    const paused = await call(t, 'PATCH', `/v1/webhooks/${hook.id}`, {
      key: a.key,
      body: { is_active: false, events: ['recording.ready'], description: null },
    });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({
      is_active: false,
      events: ['recording.ready'],
      description: null,
    });
    expect(paused.raw).not.toContain('whsec_');

    // GET /v1/webhooks lists the active hooks; include_inactive lists them all.
    const active = await call(t, 'GET', '/v1/webhooks', { key: a.key });
    expect(active.body.data.map((h: any) => h.id)).not.toContain(hook.id);
    const all = await call(t, 'GET', '/v1/webhooks?include_inactive=true', { key: a.key });
    expect(all.body.data.find((h: any) => h.id === hook.id)).toMatchObject({ is_active: false });

    const rotated = await call(t, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: a.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(hook.secret);

    const deleted = await call(t, 'DELETE', `/v1/webhooks/${hook.id}`, { key: a.key });
    expect(deleted.body.data).toEqual({ id: hook.id, deleted: true });
    expectError(await call(t, 'GET', `/v1/webhooks/${hook.id}`, { key: a.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'DELETE', `/v1/webhooks/${hook.id}`, { key: a.key }), 404, 'NOT_FOUND');
  });

  it("keeps projects apart: another organisation's webhook is 404 on every route", async () => {
    const b = await tenant(t);
    const hook = await hookFor(a, 'http://127.0.0.1:9/x');
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { is_active: false }],
      ['DELETE', '', undefined],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/test', undefined],
      ['GET', '/deliveries', undefined],
      ['POST', `/deliveries/${hook.id}/redeliver`, undefined],
    ] as const) {
      const res = await call(t, method, `/v1/webhooks/${hook.id}${path}`, { key: b.key, body });
      expectError(res, 404, 'NOT_FOUND');
    }
    const list = await call(t, 'GET', '/v1/webhooks?include_inactive=true', { key: b.key });
    expect(list.body.data).toEqual([]);
    expectError(await call(t, 'GET', '/v1/webhooks'), 401, 'UNAUTHORIZED');
  });

  it('lets members read webhooks but not change them, and refuses restricted keys', async () => {
    const b = await tenant(t);
    const hook = await hookFor(b, 'http://127.0.0.1:9/x');
    const address = `member-${Math.random().toString(36).slice(2)}@example.com`;
    const inv = await call(t, 'POST', `/v1/projects/${b.projectId}/invitations`, {
      key: b.key,
      body: { email: address, role: 'member' },
    });
    const member = await register(t, address);
    const redeemed = await call(t, 'POST', '/v1/invitations/redeem', {
      cookie: member.cookie,
      body: { token: inv.body.data.token },
    });
    expect(redeemed.status).toBe(200);
    const asMember = { cookie: member.cookie, headers: { 'x-project-id': b.projectId } };
    expect((await call(t, 'GET', `/v1/webhooks/${hook.id}`, asMember)).status).toBe(200);
    expect((await call(t, 'GET', `/v1/webhooks/${hook.id}/deliveries`, asMember)).status).toBe(200);
    expectError(
      await call(t, 'POST', '/v1/webhooks', {
        ...asMember,
        headers: { ...asMember.headers, origin: BASE },
        body: { url: 'http://127.0.0.1:9/y', events: ['session.created'] },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call(t, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, {
        ...asMember,
        headers: { ...asMember.headers, origin: BASE },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call(t, 'POST', `/v1/webhooks/${hook.id}/deliveries/${hook.id}/redeliver`, {
        ...asMember,
        headers: { ...asMember.headers, origin: BASE },
      }),
      403,
      'FORBIDDEN',
    );
    const rk = await call(t, 'POST', '/v1/restricted-keys', { key: b.key, body: {} });
    expectError(await call(t, 'GET', '/v1/webhooks', { key: rk.body.data.secret }), 403, 'FORBIDDEN');
  });

  it('replays a create with the same Idempotency-Key: one webhook, the same secret', async () => {
    const body = { url: 'http://127.0.0.1:9/idem', events: ['session.ended'] };
    const headers = { 'idempotency-key': `hook-${Math.random()}` };
    const first = await call(t, 'POST', '/v1/webhooks', { key: a.key, body, headers });
    const again = await call(t, 'POST', '/v1/webhooks', { key: a.key, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const all = await call(t, 'GET', '/v1/webhooks?include_inactive=true&limit=200', { key: a.key });
    expect(all.body.data.filter((h: any) => h.url === body.url)).toHaveLength(1);
  });

  it("creates from the dashboard with an Idempotency-Key and no X-Project-Id, in the organisation's first project", async () => {
    // The project was looked up outside the create's transaction: on SQLite's one connection that
    // lookup waited for the transaction, which waited for it.
    const body = { url: 'http://127.0.0.1:9/dashboard-idem', events: ['session.created'] };
    const headers = { 'idempotency-key': `dash-${Math.random()}` };
    const made = await call(t, 'POST', '/v1/webhooks', { cookie: a.cookie, body, headers });
    expect(made.status, made.raw).toBe(201);
    const again = await call(t, 'POST', '/v1/webhooks', { cookie: a.cookie, body, headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const listed = await call(t, 'GET', '/v1/webhooks?limit=200', { key: a.key });
    expect(listed.body.data.filter((h: any) => h.url === body.url)).toHaveLength(1);
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const url = 'http://127.0.0.1:9/x';
    const cases: Array<[unknown, RegExp]> = [
      [{ events: ['session.created'] }, /url/],
      [{ url }, /events/],
      [{ url, events: [] }, /events/],
      [{ url, events: ['session.created', 'session.created'] }, /events/],
      [{ url, events: ['session.exploded'] }, /events/],
      [{ url, events: 'session.created' }, /events/],
      [{ url: 'not a url', events: ['session.created'] }, /body\.url/],
      [{ url: 'ftp://127.0.0.1/x', events: ['session.created'] }, /body\.url must use https or http/],
      [{ url: 'http://user:pw@127.0.0.1/x', events: ['session.created'] }, /body\.url must not carry/],
      [{ url: 'http://x/' + 'a'.repeat(2100), events: ['session.created'] }, /url/],
      [{ url, events: ['session.created'], description: 'd'.repeat(501) }, /description/],
      [{ url, events: ['session.created'], secret: 'mine' }, /secret/],
      [{ url, events: ['session.created'], is_active: 'yes' }, /is_active/],
    ];
    const before = await call(t, 'GET', '/v1/webhooks?include_inactive=true&limit=200', { key: a.key });
    for (const [body, message] of cases) {
      const res = await call(t, 'POST', '/v1/webhooks', { key: a.key, body });
      expect(expectError(res, 400, 'BAD_REQUEST'), JSON.stringify(body)).toMatch(message);
    }
    const after = await call(t, 'GET', '/v1/webhooks?include_inactive=true&limit=200', { key: a.key });
    expect(after.body.data.length).toBe(before.body.data.length);

    const hook = await hookFor(a, url);
    const patches: Array<[unknown, RegExp]> = [
      [{}, /body/],
      [{ events: [] }, /events/],
      [{ url: 'gopher://x' }, /body\.url/],
      [{ is_active: 1 }, /is_active/],
      [{ secret: 'x' }, /secret/],
    ];
    for (const [body, message] of patches) {
      const res = await call(t, 'PATCH', `/v1/webhooks/${hook.id}`, { key: a.key, body });
      expect(expectError(res, 400, 'BAD_REQUEST'), JSON.stringify(body)).toMatch(message);
    }
    expect((await call(t, 'GET', `/v1/webhooks/${hook.id}`, { key: a.key })).body.data).toMatchObject({
      url,
      events: ['session.created'],
      is_active: true,
    });
    expectError(await call(t, 'GET', '/v1/webhooks/not-a-uuid', { key: a.key }), 400, 'BAD_REQUEST');
    expectError(
      await call(t, 'GET', '/v1/webhooks?include_inactive=maybe', { key: a.key }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=0`, { key: a.key }),
      400,
      'BAD_REQUEST',
    );
  });
});

describe('webhook delivery', () => {
  it('signs the exact bytes sent: an independent HMAC of the raw body matches both signatures', async () => {
    const r = await newReceiver();
    const hook = await hookFor(a, r.url);
    const session = await createSession(t, a.key, 'signed');
    const hit = await eventually(() => r.hits.find((h) => h.body?.session_id === session.id));

    expect(verifies(hook.secret, hit)).toBe(true);
    expect(verifiesStandard(hook.secret, hit)).toBe(true);
    // Re-serialised JSON is not what was signed when the bytes differ: the raw body is the reference.
    const tampered = { ...hit, raw: Buffer.from(hit.raw.toString('utf8').replace('signed', 'signeD')) };
    expect(verifies(hook.secret, tampered)).toBe(false);
    expect(verifies('whsec_wrong', hit)).toBe(false);

    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(hit.headers['x-service-event-id']).toBe(hit.body.id);
    expect(hit.headers['webhook-id']).toBe(hit.body.id);
    const ts = Number(hit.headers['x-service-timestamp']);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(30);
    expect(hit.headers['webhook-timestamp']).toBe(String(ts));

    expect(Object.keys(hit.body).sort()).toEqual([
      'data',
      'id',
      'project_id',
      'session_id',
      'timestamp',
      'type',
    ]);
    expect(hit.body).toMatchObject({
      type: 'session.created',
      project_id: a.projectId,
      session_id: session.id,
      data: { id: session.id, name: 'signed', started_at: null, ended_at: null },
    });
    expect(hit.body.id).toMatch(UUID);
    expect(hit.body.timestamp).toMatch(ISO_MS);
  });

  it("delivers an event only to the project's active webhooks subscribed to its type", async () => {
    const b = await tenant(t);
    const created = await newReceiver();
    const endedOnly = await newReceiver();
    const paused = await newReceiver();
    const otherProject = await newReceiver();
    const hooks = [
      await hookFor(b, created.url, ['session.created']),
      await hookFor(b, endedOnly.url, ['session.ended']),
      await hookFor(b, paused.url, ['session.created'], { is_active: false }),
      await hookFor(a, otherProject.url, ['session.created']),
    ];

    const session = await createSession(t, b.key);
    await eventually(() => created.hits.length === 1);
    // The session's other events are the sentinel: once the ended hook has them, nothing else is coming.
    const s = await join(t, b.key, session.id, 'alice');
    await leave(s);
    await eventually(() => endedOnly.hits.length === 1, 10_000, 'session.ended');
    // Nothing else is coming once no delivery is queued or running.
    await eventually(
      async () => (await pendingDeliveries(hooks.map((h) => h.id))) === 0,
      10_000,
      'every delivery settled',
    );
    expect(created.hits.map((h) => h.body.type)).toEqual(['session.created']);
    expect(endedOnly.hits.map((h) => h.body.type)).toEqual(['session.ended']);
    expect(paused.hits).toEqual([]);
    expect(otherProject.hits.filter((h) => h.body.session_id === session.id)).toEqual([]);
  });

  it('tells session.started, session.ended and recording.ready of a live session', async () => {
    const b = await tenant(t);
    const r = await newReceiver();
    const hook = await hookFor(b, r.url, ['session.started', 'session.ended', 'recording.ready']);
    const session = await createSession(t, b.key);
    const s = await join(t, b.key, session.id, 'alice');
    s.send(publish('media/alice/cam', jpeg(1, 2000), { id: 'f1' }));
    await s.waitFor((m) => m.type === 'control' && m.event === 'ack');
    await leave(s);
    await eventually(() => r.hits.length === 3, 10_000, 'three events');
    const byType = Object.fromEntries(r.hits.map((h) => [h.body.type, h.body]));
    expect(Object.keys(byType).sort()).toEqual(['recording.ready', 'session.ended', 'session.started']);
    expect(byType['session.started'].data).toMatchObject({ id: session.id, ended_at: null });
    expect(byType['session.started'].data.started_at).toMatch(ISO_MS);
    expect(byType['session.ended'].data.ended_at).toMatch(ISO_MS);
    expect(byType['recording.ready'].data).toMatchObject({ stream_count: expect.any(Number) });
    expect(byType['recording.ready'].data.bytes).toBeGreaterThanOrEqual(2000);
    expect(byType['recording.ready'].data.duration_ms).toBeGreaterThanOrEqual(0);
    for (const h of r.hits) {
      expect(h.body.session_id).toBe(session.id);
      expect(verifies(hook.secret, h)).toBe(true);
    }
  });

  it('retries a 500, a timeout and a refused connection with the same event id and bytes, logging every attempt', async () => {
    // 500, then success.
    const r500 = await newReceiver((_h, i) => (i === 0 ? 500 : 200));
    // No answer within the 600 ms attempt timeout, then success.
    const slow = await newReceiver((_h, i) => (i === 0 ? 'hang' : 204));
    // Nothing listens at first; the receiver comes up before the retry.
    const port = await freePort();
    const refusedUrl = `http://127.0.0.1:${port}/hook`;
    const hooks = {
      r500: await hookFor(a, r500.url, ['session.created']),
      slow: await hookFor(a, slow.url, ['session.created']),
      refused: await hookFor(a, refusedUrl, ['session.created']),
    };
    const session = await createSession(t, a.key, 'retried');
    const firstLog = await eventually(async () => {
      const rows = (await deliveries(a, hooks.refused.id)).body.data;
      return rows.length === 1 && rows[0];
    });
    const late = await newReceiver(undefined, port);

    await eventually(() => r500.hits.length === 2, 5000, '500 retried');
    await eventually(() => slow.hits.length === 2, 5000, 'timeout retried');
    await eventually(() => late.hits.length === 1, 5000, 'refused retried');
    for (const r of [r500, slow]) {
      expect(r.hits[0]!.body.session_id).toBe(session.id);
      expect(r.hits[1]!.headers['x-service-event-id']).toBe(r.hits[0]!.headers['x-service-event-id']);
      expect(r.hits[1]!.raw.equals(r.hits[0]!.raw)).toBe(true);
    }
    expect(late.hits[0]!.body.session_id).toBe(session.id);
    expect(late.hits[0]!.body.id).toBe(firstLog.event_id);

    // The receiver has the bytes before the attempt's log row commits: wait for the rows.
    const logged = async (id: string, n: number) =>
      eventually(async () => {
        const rows = (await deliveries(a, id)).body.data;
        return rows.length === n && rows;
      });
    const log500 = await logged(hooks.r500.id, 2);
    // Newest first: the success, then the failed first attempt with its scheduled retry. Each row
    // says what happened to its attempt: the first failed (and another was scheduled).
    expect(log500[0]).toMatchObject({ attempt: 2, status: 'succeeded', response_status: 200, error: null });
    expect(log500[1]).toMatchObject({
      attempt: 1,
      status: 'failed',
      response_status: 500,
      error: 'answered 500',
      event_type: 'session.created',
    });
    expect(log500[1].event_id).toBe(r500.hits[0]!.body.id);
    expect(log500[1].next_attempt_at).toMatch(ISO_MS);
    expect(Date.parse(log500[1].next_attempt_at) - Date.parse(log500[1].created_at)).toBeGreaterThanOrEqual(
      150,
    );
    expect(log500[0].next_attempt_at).toBeNull();
    expect(log500[0].duration_ms).toBeGreaterThanOrEqual(0);

    const logSlow = await logged(hooks.slow.id, 2);
    expect(logSlow[1]).toMatchObject({ attempt: 1, status: 'failed', response_status: null });
    expect(logSlow[1].next_attempt_at).toMatch(ISO_MS);
    expect(logSlow[1].error).toMatch(/no answer within 600 ms/);
    expect(logSlow[1].duration_ms).toBeGreaterThanOrEqual(550);
    expect(logSlow[0]).toMatchObject({ attempt: 2, status: 'succeeded', response_status: 204 });

    expect(firstLog).toMatchObject({ attempt: 1, status: 'failed', response_status: null });
    expect(firstLog.next_attempt_at).toMatch(ISO_MS);
    expect(firstLog.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up after the last retry and logs the delivery failed', async () => {
    const r = await newReceiver(() => 503);
    const hook = await hookFor(a, r.url, ['session.created']);
    await createSession(t, a.key);
    await eventually(async () => (await deliveries(a, hook.id)).body.data.length === 3, 5000);
    // The job has failed for good: no fourth attempt is coming.
    await eventually(
      async () => (await pendingDeliveries([hook.id])) === 0,
      5000,
      'the job to fail for good',
    );
    const log = (await deliveries(a, hook.id)).body.data;
    expect(log.map((d: any) => [d.attempt, d.status])).toEqual([
      [3, 'failed'],
      [2, 'failed'],
      [1, 'failed'],
    ]);
    // Only the last attempt has no next one.
    expect(log.map((d: any) => d.next_attempt_at === null)).toEqual([true, false, false]);
    expect(r.hits).toHaveLength(3);
  });

  it('does not follow redirects: a 302 is a failed attempt and the target gets nothing', async () => {
    const target = await newReceiver();
    const r = await newReceiver(() => (res) => res.writeHead(302, { location: target.url }).end());
    const hook = await hookFor(a, r.url, ['session.created']);
    await createSession(t, a.key);
    const row = await eventually(async () => (await deliveries(a, hook.id)).body.data[0]);
    expect(row).toMatchObject({ attempt: 1, status: 'failed', response_status: 302 });
    expect(row.error).toMatch(/redirects are not followed/);
    expect(target.hits).toEqual([]);
  });

  it('reads only a bounded part of an answer: an endless 200 body still counts as delivered', async () => {
    const r = await newReceiver(() => (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 120);
      const timer = setInterval(() => {
        if (!res.write(chunk)) return;
      }, 1);
      res.on('close', () => clearInterval(timer));
    });
    const hook = await hookFor(a, r.url, ['session.created']);
    await createSession(t, a.key);
    const row = await eventually(async () => (await deliveries(a, hook.id)).body.data[0]);
    expect(row).toMatchObject({ attempt: 1, status: 'succeeded', response_status: 200 });
    expect(row.duration_ms).toBeLessThan(600);
  });

  it('signs the next delivery with the new secret after a rotation, and the old one stops verifying', async () => {
    const r = await newReceiver();
    const hook = await hookFor(a, r.url, ['session.created']);
    await createSession(t, a.key);
    await eventually(() => r.hits.length === 1);
    expect(verifies(hook.secret, r.hits[0]!)).toBe(true);
    const rotated = await call(t, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: a.key });
    const fresh = rotated.body.data.secret as string;
    await createSession(t, a.key);
    await eventually(() => r.hits.length === 2);
    expect(verifies(fresh, r.hits[1]!)).toBe(true);
    expect(verifiesStandard(fresh, r.hits[1]!)).toBe(true);
    expect(verifies(hook.secret, r.hits[1]!)).toBe(false);
  });

  it('sends a test event, to a paused webhook too, and pages the delivery log', async () => {
    const r = await newReceiver();
    const hook = await hookFor(a, r.url, ['session.ended'], { is_active: false });
    const sent = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: a.key });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ type: 'webhook.test' });
      sent.push(res.body.data.event_id);
    }
    await eventually(() => r.hits.length === 3);
    expect(r.hits.map((h) => h.body.id).sort()).toEqual([...sent].sort());
    expect(r.hits[0]!.body).toMatchObject({
      type: 'webhook.test',
      project_id: a.projectId,
      session_id: null,
      data: { webhook_id: hook.id },
    });
    expect(verifies(hook.secret, r.hits[0]!)).toBe(true);

    await eventually(async () => (await deliveries(a, hook.id)).body.data.length === 3);
    const first = await deliveries(a, hook.id, '?limit=2');
    expect(first.body.data).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!;
    const second = await call(t, 'GET', new URL(next).pathname + new URL(next).search, { key: a.key });
    expect(second.body.data).toHaveLength(1);
    expect(second.headers.link).toBeUndefined();
    const ids = [...first.body.data, ...second.body.data].map((d: any) => d.event_id);
    expect(ids.sort()).toEqual([...sent].sort());
  });
});

describe('webhook URLs that reach private addresses', () => {
  let strict: TestApp;
  let s: Tenant;
  beforeAll(async () => {
    strict = await startApp({ env: { WEBHOOK_RETRY_DELAYS_S: '60' }, jobPollMs: 100 });
    s = await tenant(strict);
  });
  afterAll(async () => {
    await strict?.close();
  });

  /** Refused without WEBHOOK_ALLOW_PRIVATE_URLS, as literal IPv4, IPv6 in every embedding form, and names. */
  const REFUSED = [
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://172.20.0.1/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[fd00:ec2::254]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    // IPv6 forms that embed an IPv4 address, refused whole whatever the address inside:
    'https://[::127.0.0.1]/hook', // IPv4-compatible, ::/96
    'https://[::a9fe:a9fe]/hook',
    'https://[::ffff:5db8:d822]/hook', // IPv4-mapped, even of a public address
    'https://[64:ff9b::7f00:1]/hook', // NAT64
    'https://[64:ff9b:1::a00:1]/hook', // local-use NAT64
    'https://[2002:7f00:1::1]/hook', // 6to4
    'https://[2001::1]/hook', // Teredo, in 2001::/23
    // Other special-purpose ranges of the IANA registries:
    'https://[::]/hook',
    'https://[100::1]/hook',
    'https://[2001:db8::1]/hook',
    'https://[3fff::1]/hook',
    'https://[5f00::1]/hook',
    'https://[fe80::1]/hook',
    'https://[ff02::1]/hook',
    'https://100.64.0.1/hook',
    'https://192.0.0.8/hook',
    'https://192.31.196.1/hook',
    'https://192.52.193.1/hook',
    'https://192.88.99.1/hook',
    'https://192.175.48.1/hook',
    'https://198.18.0.1/hook',
    'https://224.0.0.1/hook',
    'https://255.255.255.255/hook',
    'https://0.0.0.0/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    // IPv4 in the other notations a URL parser accepts, and the edges of a range:
    'https://0x7f.1/hook',
    'https://2130706433/hook',
    'https://127.1/hook',
    'https://172.31.255.255/hook',
    'https://100.127.255.255/hook',
    // IPv6 spelt out in full, embedding a public IPv4 address, or outside global unicast:
    'https://[0:0:0:0:0:ffff:7f00:1]/hook',
    'https://[0:0:0:0:0:0:7f00:1]/hook',
    'https://[::8.8.8.8]/hook',
    'https://[::ffff:8.8.8.8]/hook',
    'https://[64:ff9b::8.8.8.8]/hook',
    'https://[2002:808:808::1]/hook',
    'https://[2001:1ff:ffff::1]/hook',
    'https://[fec0::1]/hook',
    'https://[4000::1]/hook',
    'https://[FE80::1]/hook',
  ];

  it('are refused at creation and at update unless WEBHOOK_ALLOW_PRIVATE_URLS is set', async () => {
    for (const url of REFUSED) {
      const res = await call(strict, 'POST', '/v1/webhooks', {
        key: s.key,
        body: { url, events: ['session.created'] },
      });
      expect(expectError(res, 400, 'BAD_REQUEST'), url).toMatch(
        /body\.url points at a private or reserved address/,
      );
    }
    const listed = await call(strict, 'GET', '/v1/webhooks?include_inactive=true', { key: s.key });
    expect(listed.body.data).toEqual([]);
    const plain = await call(strict, 'POST', '/v1/webhooks', {
      key: s.key,
      body: { url: 'http://93.184.216.34/hook', events: ['session.created'] },
    });
    expect(expectError(plain, 400, 'BAD_REQUEST')).toMatch(/body\.url must use https/);
    const v6 = await call(strict, 'POST', '/v1/webhooks', {
      key: s.key,
      body: { url: 'https://[2606:4700:4700::1111]/hook', events: ['session.created'] },
    });
    expect(v6.status, v6.raw).toBe(201);
    const ok = await call(strict, 'POST', '/v1/webhooks', {
      key: s.key,
      body: { url: 'https://93.184.216.34/hook', events: ['session.created'] },
    });
    expect(ok.status, ok.raw).toBe(201);
    // Just outside the refused ranges: public, accepted.
    for (const url of ['https://172.32.0.1/hook', 'https://100.128.0.1/hook', 'https://[2001:200::1]/hook']) {
      const edge = await call(strict, 'POST', '/v1/webhooks', {
        key: s.key,
        body: { url, events: ['session.created'] },
      });
      expect(edge.status, `${url} ${edge.raw}`).toBe(201);
      await call(strict, 'DELETE', `/v1/webhooks/${edge.body.data.id}`, { key: s.key });
    }

    // An update to a refused URL is refused the same way, and the webhook keeps its URL.
    for (const url of REFUSED) {
      const res = await call(strict, 'PATCH', `/v1/webhooks/${ok.body.data.id}`, {
        key: s.key,
        body: { url },
      });
      expect(expectError(res, 400, 'BAD_REQUEST'), url).toMatch(
        /body\.url points at a private or reserved address/,
      );
    }
    const kept = await call(strict, 'GET', `/v1/webhooks/${ok.body.data.id}`, { key: s.key });
    expect(kept.body.data.url).toBe('https://93.184.216.34/hook');
    await call(strict, 'DELETE', `/v1/webhooks/${ok.body.data.id}`, { key: s.key });
    await call(strict, 'DELETE', `/v1/webhooks/${v6.body.data.id}`, { key: s.key });
  });

  it('are checked again at every delivery: a hook made while allowed is refused once the server disallows it', async () => {
    // Made on a server that allows private addresses, on the same storage...
    const r = await newReceiver();
    const lenient = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      dataDir: strict.dataDir,
      pgSchema: strict.pgSchema,
      jobPollMs: 100,
    });
    // The receiver's loopback address, spelt as IPv4, IPv4-mapped and IPv4-compatible IPv6, and a name.
    const urls = [
      r.url,
      `http://[::ffff:127.0.0.1]:${r.port}/hook`,
      `http://[::127.0.0.1]:${r.port}/hook`,
      `http://localhost:${r.port}/hook`,
    ];
    const ids: string[] = [];
    for (const url of urls) {
      const made = await call(lenient, 'POST', '/v1/webhooks', {
        key: s.key,
        body: { url, events: ['session.created'] },
      });
      expect(made.status, made.raw).toBe(201);
      ids.push(made.body.data.id);
    }
    await lenient.close();
    // ...then delivered by the strict one.
    await createSession(strict, s.key);
    for (const [i, id] of ids.entries()) {
      const row = await eventually(async () => {
        const res = await call(strict, 'GET', `/v1/webhooks/${id}/deliveries`, { key: s.key });
        return res.body.data[0];
      });
      expect(row, urls[i]).toMatchObject({ attempt: 1, status: 'failed', response_status: null });
      expect(row.error, urls[i]).toMatch(/^refused: \S+ resolves to \S+, a private or reserved address/);
    }
    const first = await call(strict, 'GET', `/v1/webhooks/${ids[0]}/deliveries`, { key: s.key });
    expect(first.body.data[0].error).toMatch(/^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1,/);
    expect(r.hits).toEqual([]);
  });
});

function omit<T extends Record<string, unknown>>(o: T, k: string) {
  const copy: Record<string, unknown> = { ...o };
  delete copy[k];
  return copy;
}
