import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { probe } from './support/decode.js';
import { downloadTo } from './support/exports.js';
import { h264Camera, pcmVoice, recordSession } from './support/media.js';
import { join as joinLive, leave } from './support/live.js';
import { eventually } from './support/wait.js';
import { receiver, verifies, type Hit, type Receiver } from './support/webhooks.js';

/** Announces `recording.ready` of a session again, as a retried announcement would. */
const announceReady = (t: TestApp, of: Tenant, sessionId: string) =>
  t.runtime.bus.emit(t.runtime.database.db, 'recording.ready', {
    orgId: of.orgId,
    projectId: of.projectId,
    sessionId,
    data: { duration_ms: 8000, stream_count: 4, bytes: 100_000 },
  });

describe('auto-export presets', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let hook: Receiver;
  let secret: string;
  const url = () => `/v1/projects/${a.projectId}/auto-export`;
  const put = (body: unknown, as: { key?: string; cookie?: string } = { key: a.key }) =>
    call(t, 'PUT', url(), { ...as, headers: { origin: BASE }, body });
  /** The signed webhook of `type` about `sessionId`, once it arrived. */
  const hitOf = (type: string, sessionId: string): Promise<Hit> =>
    eventually(
      () => hook.hits.find((h) => h.body?.type === type && h.body.session_id === sessionId),
      60_000,
      `${type} of ${sessionId}`,
    );
  const exportsOf = async (sessionId: string) =>
    (await call(t, 'GET', `/v1/sessions/${sessionId}/exports`, { key: a.key })).body.data as any[];

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    [a, b] = await Promise.all([tenant(t), tenant(t)]);
    hook = await receiver();
    const created = await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: hook.url, events: ['export.completed', 'recording.ready'] },
    });
    secret = created.body.data.secret;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hook?.close();
  });

  it('answers a preset never set as disabled, with no options', async () => {
    const res = await call(t, 'GET', url(), { key: a.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ enabled: false, options: {}, updated_at: null });
  });

  it('exports each ended session with the preset (m4a: the sound alone) and announces export.completed, without a request', async () => {
    const set = await put({ enabled: true, options: { format: 'm4a' } });
    expect(set.status, set.raw).toBe(200);
    // Kept as given: the export fills in the defaults of the rest.
    expect(set.body.data).toMatchObject({ enabled: true, options: { format: 'm4a' } });
    expect(set.body.data.options).toEqual({ format: 'm4a' });
    expect(new Date(set.body.data.updated_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await call(t, 'GET', url(), { key: a.key })).body.data).toEqual(set.body.data);

    const session = await createSession(t, a.key, 'auto m4a');
    await recordSession(t, a.key, session.id, [
      ...(await h264Camera('ann', 'red', 1)),
      ...pcmVoice('ann', 440, 1),
    ]);
    const hit = await hitOf('export.completed', session.id);
    expect(verifies(secret, hit)).toBe(true);
    expect(hit.body).toMatchObject({
      type: 'export.completed',
      project_id: a.projectId,
      data: {
        room_id: session.id,
        status: 'completed',
        auto: true,
        format: 'm4a',
        layout: 'grid',
        names: true,
      },
    });
    // One export, the auto-export, and nobody asked for it.
    const list = await exportsOf(session.id);
    expect(list.map((j) => j.job_id)).toEqual([hit.body.data.job_id]);

    const file = join(t.dataDir, 'auto.m4a');
    await downloadTo(t, a.key, hit.body.data.job_id, file);
    const info = await probe(file);
    expect(info.audio).toMatch(/^aac/);
    expect(info.video).toBe('');
    expect(info.durationS).toBeGreaterThan(0.8);
  });

  it('exports with the layout and orientation of the preset', async () => {
    const set = await put({
      enabled: true,
      options: { layout: 'grid', orientation: 'vertical', names: false },
    });
    expect(set.body.data.options).toEqual({ layout: 'grid', orientation: 'vertical', names: false });
    const session = await createSession(t, a.key, 'auto grid');
    await recordSession(t, a.key, session.id, [
      ...(await h264Camera('ann', 'red', 1)),
      ...(await h264Camera('ben', 'blue', 1)),
    ]);
    const hit = await hitOf('export.completed', session.id);
    expect(verifies(secret, hit)).toBe(true);
    expect(hit.body.data).toMatchObject({
      auto: true,
      layout: 'grid',
      orientation: 'vertical',
      names: false,
      format: 'mp4',
    });
    const file = join(t.dataDir, 'auto-grid.mp4');
    await downloadTo(t, a.key, hit.body.data.job_id, file);
    expect((await probe(file)).video).toMatch(/^h264 .*720x1280/);

    // Handled again (a retried announcement): still the one auto-export.
    await announceReady(t, a, session.id);
    expect((await exportsOf(session.id)).map((j) => j.job_id)).toEqual([hit.body.data.job_id]);
  });

  it('exports nothing while disabled, and keeps the options', async () => {
    const set = await put({ enabled: false, options: { format: 'm4a' } });
    expect(set.body.data).toMatchObject({ enabled: false, options: { format: 'm4a' } });
    expect(set.body.data.options).toEqual({ format: 'm4a' });
    const session = await createSession(t, a.key, 'not exported');
    await recordSession(t, a.key, session.id, pcmVoice('ann', 440, 0.5));
    // The auto-export is queued while recording.ready is announced, before its webhook is.
    await hitOf('recording.ready', session.id);
    expect(await exportsOf(session.id)).toEqual([]);
  });

  it('skips a session with nothing recorded, without failing the announcement', async () => {
    await put({ enabled: true, options: {} });
    const session = await createSession(t, a.key, 'nothing recorded');
    await announceReady(t, a, session.id);
    expect(await exportsOf(session.id)).toEqual([]);
  });

  it('refuses bad presets with 400 naming the field, and writes nothing', async () => {
    const before = await put({ enabled: true, options: { format: 'm4a' } });
    const cases: [unknown, RegExp][] = [
      [{ enabled: true, options: { format: 'avi' } }, /^body\.options\.format must be one of "mp4", "m4a"/],
      [{ enabled: true, options: { layout: 'mosaic' } }, /^body\.options\.layout must be one of/],
      [{ enabled: true, options: { colour: 'red' } }, /^body\.options\.colour is not a known field/],
      [
        { enabled: true, options: { focus: 'ann' } },
        /^body\.options\.focus cannot be part of an auto-export preset: .*participants/,
      ],
      [
        { enabled: true, options: { from_ts: 1 } },
        /^body\.options\.from_ts cannot be part of an auto-export preset/,
      ],
      [
        { enabled: true, options: { to_ts: 2 } },
        /^body\.options\.to_ts cannot be part of an auto-export preset/,
      ],
      [{ enabled: 'yes', options: {} }, /^body\.enabled must be a boolean/],
      [{ options: {} }, /^body\.enabled is required/],
      [{ enabled: true }, /^body\.options is required/],
      [{ enabled: true, options: {}, extra: 1 }, /^body\.extra is not a known field/],
    ];
    for (const [body, message] of cases)
      expect(expectError(await put(body), 400, 'BAD_REQUEST'), JSON.stringify(body)).toMatch(message);
    expect((await call(t, 'GET', url(), { key: a.key })).body.data).toEqual(before.body.data);
  });

  it('lets owners and admins (and the project’s keys) set it; a member reads it only; another organisation gets 404', async () => {
    const address = `member-${Math.random().toString(36).slice(2)}@example.com`;
    const inv = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
      key: a.key,
      body: { email: address, role: 'member' },
    });
    const member = await register(t, address);
    const redeemed = await call(t, 'POST', '/v1/invitations/redeem', {
      cookie: member.cookie,
      body: { token: inv.body.data.token },
    });
    expect(redeemed.status).toBe(200);
    const before = (await call(t, 'GET', url(), { key: a.key })).body.data;
    expect((await call(t, 'GET', url(), { cookie: member.cookie })).body.data).toEqual(before);
    expect(
      expectError(await put({ enabled: false, options: {} }, { cookie: member.cookie }), 403, 'FORBIDDEN'),
    ).toMatch(/admin/);
    // The owner through the dashboard.
    expect((await put({ enabled: true, options: { format: 'm4a' } }, { cookie: a.cookie })).status).toBe(200);
    // Another organisation, by key and by cookie: as if the project did not exist.
    expectError(await call(t, 'GET', url(), { key: b.key }), 404, 'NOT_FOUND');
    expectError(await put({ enabled: false, options: {} }, { key: b.key }), 404, 'NOT_FOUND');
    expectError(await put({ enabled: false, options: {} }, { cookie: b.cookie }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', url()), 401, 'UNAUTHORIZED');
    expect((await call(t, 'GET', url(), { key: a.key })).body.data.enabled).toBe(true);
  });
});

describe('auto-export and billing', () => {
  let t: TestApp;
  let a: Tenant;
  let hook: Receiver;
  beforeAll(async () => {
    t = await startApp({
      env: {
        SESSION_DEPARTURE_TIMEOUT_S: '0',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        USAGE_FLUSH_INTERVAL_S: '1',
        FREE_TIER_STREAMING_MINUTES: '0.005',
      },
    });
    a = await tenant(t);
    hook = await receiver();
    await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: hook.url, events: ['recording.ready'] },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hook?.close();
  });

  it('skips the auto-export of an organisation that billing refuses exports, as a requested one is refused', async () => {
    const session = await createSession(t, a.key, 'recorded before the limit');
    const other = await createSession(t, a.key, 'uses up the free tier');
    await recordSession(t, a.key, session.id, pcmVoice('ann', 440, 0.5));
    await eventually(
      () => hook.hits.find((h) => h.body?.session_id === session.id),
      20_000,
      'recording.ready',
    );
    // Over the free tier without a subscription: a requested export is refused.
    const socket = await joinLive(t, a.key, other.id, 'ben');
    await eventually(
      async () => (await call(t, 'GET', '/v1/billing/limits', { key: a.key })).body.data.is_blocked,
      20_000,
      'the organisation to be blocked',
    );
    await leave(socket);
    expectError(
      await call(t, 'GET', `/v1/sessions/${session.id}/export`, { key: a.key }),
      503,
      'USAGE_LIMITS_EXCEEDED',
    );
    const url = `/v1/projects/${a.projectId}/auto-export`;
    expect((await call(t, 'PUT', url, { key: a.key, body: { enabled: true, options: {} } })).status).toBe(
      200,
    );
    // The recording announced again: the auto-export is refused too, and the announcement is not.
    await announceReady(t, a, session.id);
    expect((await call(t, 'GET', `/v1/sessions/${session.id}/exports`, { key: a.key })).body.data).toEqual(
      [],
    );
  });
});

describe("auto-export and the organisation's export queue", () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    // No worker here: what is queued stays queued, holding the organisation's one place.
    t = await startApp({
      env: { SESSION_DEPARTURE_TIMEOUT_S: '0', JOB_WORKER: 'false', EXPORT_QUEUE_PER_ORG: '1' },
    });
    a = await tenant(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  /** `recording.ready` in a transaction, as the recording's finalisation announces it. */
  const readyInTransaction = (sessionId: string) =>
    t.runtime.database.db.transaction().execute((trx) =>
      t.runtime.bus.emit(trx, 'recording.ready', {
        orgId: a.orgId,
        projectId: a.projectId,
        sessionId,
        data: { duration_ms: 500, stream_count: 1, bytes: 10_000 },
      }),
    );

  it('counts auto-exports against the cap, and skips one past it without failing the announcement', async () => {
    const first = await createSession(t, a.key, 'auto-exported');
    const second = await createSession(t, a.key, 'past the cap');
    await recordSession(t, a.key, first.id, pcmVoice('ann', 440, 0.5));
    await recordSession(t, a.key, second.id, pcmVoice('ann', 440, 0.5));
    const url = `/v1/projects/${a.projectId}/auto-export`;
    expect((await call(t, 'PUT', url, { key: a.key, body: { enabled: true, options: {} } })).status).toBe(
      200,
    );
    await readyInTransaction(first.id);
    const auto = (await call(t, 'GET', `/v1/sessions/${first.id}/exports`, { key: a.key })).body.data;
    expect(auto).toMatchObject([{ status: 'queued', auto: true }]);
    // The auto-export holds the organisation's one place: a requested export is refused.
    const refused = await call(t, 'GET', `/v1/sessions/${second.id}/export`, { key: a.key });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers['retry-after']).toBeDefined();
    // And so is the next auto-export; the announcement itself goes through.
    await readyInTransaction(second.id);
    expect((await call(t, 'GET', `/v1/sessions/${second.id}/exports`, { key: a.key })).body.data).toEqual([]);
  });
});
