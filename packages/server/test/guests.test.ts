import { CLOSE } from '@vss/protocol';
import { describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  useApp,
  type Tenant,
  type TestApp,
} from './support/app.js';
import {
  eventually,
  join,
  jpeg,
  leave,
  listen,
  openSocket,
  publish,
  type TestSocket,
} from './support/live.js';
import { receiver, verifies } from './support/webhooks.js';

/** Join links: guests without an account, display names, and removing a participant. */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const ORIGIN = { origin: 'http://vss.test' };

async function createLink(t: TestApp, key: string, sessionId: string, body: Record<string, unknown> = {}) {
  const res = await call(t, 'POST', `/v1/sessions/${sessionId}/join-links`, { key, body });
  if (res.status !== 201) throw new Error(`join link failed: ${res.raw}`);
  return res.body.data;
}

const redeem = (t: TestApp, token: string, display_name: unknown = 'Ana María') =>
  call(t, 'POST', `/v1/join/${token}`, { body: { display_name } });

/** Redeems a link and opens the guest's live connection. */
async function joinAsGuest(
  t: TestApp,
  token: string,
  name = 'Ana María',
): Promise<{ socket: TestSocket; guest: any }> {
  const res = await redeem(t, token, name);
  if (res.status !== 200) throw new Error(`join failed: ${res.raw}`);
  const guest = res.body.data;
  const socket = await openSocket(await listen(t), {
    session: guest.session,
    access_token: guest.access_token,
    user_id: guest.user_id,
  });
  await socket.waitFor(isControl('welcome'));
  return { socket, guest };
}

describe('join links', () => {
  let t: TestApp;
  let a: Tenant;
  useApp(
    (app, tenant) => {
      t = app;
      a = tenant;
    },
    { env: { SESSION_DEPARTURE_TIMEOUT_S: '1' } },
  );

  it('shows the token once, keeps only its hash, and lets a guest in under a new id with the name typed', async () => {
    const s = await createSession(t, a.key, 'Weekly sync');
    const link = await createLink(t, a.key, s.id, { max_uses: 5 });
    expect(link).toMatchObject({ session_id: s.id, uses: 0, max_uses: 5, can_publish: true });
    expect(link.url).toBe(`http://vss.test/join/${link.token}`);
    expect(link.token.length).toBeGreaterThanOrEqual(43);
    const rows = await t.runtime.database.db.selectFrom('join_links').selectAll().execute();
    const row = rows.find((r) => r.id === link.id)!;
    expect(row.token_hash).not.toContain(link.token);
    expect(JSON.stringify(rows)).not.toContain(link.token);
    const listed = await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key });
    expect(listed.body.data).toEqual([
      {
        id: link.id,
        session_id: s.id,
        expires_at: link.expires_at,
        max_uses: 5,
        uses: 0,
        can_publish: true,
        created_at: link.created_at,
      },
    ]);

    const info = await call(t, 'GET', `/v1/join/${link.token}`);
    expect(info.body.data).toMatchObject({
      session: { id: s.id, name: 'Weekly sync', ended: false, is_public: false },
      can_publish: true,
      used_up: false,
    });

    const host = await join(t, a.key, s.id, 'host');
    const { socket, guest } = await joinAsGuest(t, link.token, '  Ana María ');
    expect(guest).toMatchObject({
      session: s.id,
      display_name: 'Ana María',
      can_publish: true,
      expires_in: 300,
    });
    expect(guest.user_id).toMatch(/^guest-[0-9A-Za-z]{16,}$/);
    const welcome = socket.received.text.find(isControl('welcome'))!;
    expect(welcome.data).toMatchObject({
      user_id: guest.user_id,
      display_name: 'Ana María',
      can_publish: true,
      names: { host: 'host', [guest.user_id]: 'Ana María' },
    });
    const joined = await host.waitFor((m) => isControl('join')(m) && m.user_id === guest.user_id);
    expect(joined.data).toEqual({ display_name: 'Ana María' });
    // A guest publishes and chats like anyone.
    socket.send(publish(`media/${guest.user_id}/cam`, jpeg(1), { id: 'c1' }));
    socket.send(publish('chat', Buffer.from(JSON.stringify({ text: 'hola' })), { id: 'm1' }));
    await socket.waitForCount(isControl('ack'), 2);
    await host.waitFor((m) => m.type === 'message' && m.stream_type === 'chat');
    expect((await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key })).body.data[0].uses).toBe(
      1,
    );
    await leave(socket);
    await leave(host);
    const manifest = await eventually(async () => {
      const res = await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key });
      return res.status === 200 && res.body.data.participants.length === 1 ? res.body.data : null;
    });
    expect(manifest.participants[0]).toMatchObject({ user_id: guest.user_id, display_name: 'Ana María' });
  });

  it('answers one 404 for an unknown, a revoked and an expired token, and a spent link 409', async () => {
    const s = await createSession(t, a.key);
    const revoked = await createLink(t, a.key, s.id);
    const expired = await createLink(t, a.key, s.id, { expires_in_minutes: 1 });
    const twice = await createLink(t, a.key, s.id, { max_uses: 2 });
    const gone = await call(t, 'DELETE', `/v1/sessions/${s.id}/join-links/${revoked.id}`, { key: a.key });
    expect(gone.body.data).toEqual({ id: revoked.id, deleted: true });
    expectError(
      await call(t, 'DELETE', `/v1/sessions/${s.id}/join-links/${revoked.id}`, { key: a.key }),
      404,
      'NOT_FOUND',
    );
    // An hour later for this link: its expiry moved into the past.
    await t.runtime.database.db
      .updateTable('join_links')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', expired.id)
      .execute();
    const messages = new Set<string>();
    for (const token of ['no-such-token', revoked.token, expired.token]) {
      messages.add(expectError(await redeem(t, token), 404, 'NOT_FOUND'));
      messages.add(expectError(await call(t, 'GET', `/v1/join/${token}`), 404, 'NOT_FOUND'));
    }
    expect([...messages]).toEqual(['this join link does not exist, was revoked or has expired']);

    expect((await redeem(t, twice.token)).status).toBe(200);
    expect((await call(t, 'GET', `/v1/join/${twice.token}`)).body.data.used_up).toBe(false);
    expect((await redeem(t, twice.token, 'Bo')).status).toBe(200);
    // Spent: said before anyone types a name, and no use is taken by asking.
    expect((await call(t, 'GET', `/v1/join/${twice.token}`)).body.data.used_up).toBe(true);
    expect(expectError(await redeem(t, twice.token, 'Cy'), 409, 'CONFLICT')).toMatch(/used its 2 times/);
    const listed = (await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key })).body.data;
    expect(listed.map((l: any) => l.id).sort()).toEqual([expired.id, twice.id].sort());
    expect(listed.find((l: any) => l.id === twice.id).uses).toBe(2);
  });

  it('refuses a guest once the session has ended (409), and taking a link for it', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id);
    await leave(await join(t, a.key, s.id, 'host'));
    await eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
    );
    expect(expectError(await redeem(t, link.token), 409, 'CONFLICT')).toBe('the session has ended');
    expect((await call(t, 'GET', `/v1/join/${link.token}`)).body.data.session.ended).toBe(true);
    expectError(
      await call(t, 'POST', `/v1/sessions/${s.id}/join-links`, { key: a.key, body: {} }),
      409,
      'CONFLICT',
    );
    expect((await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key })).body.data[0].uses).toBe(
      0,
    );
  });

  it('lets a guest come back as the same guest with its rejoin token, taking no use', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id, { max_uses: 1 });
    const other = await createLink(t, a.key, s.id);
    const first = (await redeem(t, link.token)).body.data;
    expect(first.rejoin_token).toMatch(new RegExp(`^${first.user_id}\\.`));
    const back = await call(t, 'POST', `/v1/join/${link.token}`, {
      body: { display_name: 'Ana M.', rejoin_token: first.rejoin_token },
    });
    expect(back.body.data).toMatchObject({ user_id: first.user_id, display_name: 'Ana M.' });
    expect((await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key })).body.data[1].uses).toBe(
      1,
    );
    for (const forged of [
      `${first.user_id}.${'0'.repeat(64)}`,
      first.rejoin_token.replace(/^guest-/, 'guest-x'),
      'nonsense',
    ]) {
      const res = await call(t, 'POST', `/v1/join/${link.token}`, {
        body: { display_name: 'Eve', rejoin_token: forged },
      });
      expect(expectError(res, 400, 'BAD_REQUEST')).toBe('body.rejoin_token is not one this join link gave');
    }
    // Another link's guest is not this link's.
    const elsewhere = await call(t, 'POST', `/v1/join/${other.token}`, {
      body: { display_name: 'Ana', rejoin_token: first.rejoin_token },
    });
    expectError(elsewhere, 400, 'BAD_REQUEST');
  });

  it('lets a guest of a can_publish:false link chat, and refuses its media', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id, { can_publish: false });
    const { socket, guest } = await joinAsGuest(t, link.token);
    expect(guest.can_publish).toBe(false);
    expect(socket.received.text.find(isControl('welcome'))!.data.can_publish).toBe(false);
    socket.send(publish(`media/${guest.user_id}/cam`, jpeg(1), { id: 'cam' }));
    const refused = await socket.waitFor((m) => isControl('error')(m) && m.data.id === 'cam');
    expect(refused.data).toMatchObject({ code: 'FORBIDDEN_STREAM' });
    socket.send(publish('chat', Buffer.from(JSON.stringify({ text: 'just watching' })), { id: 'chat' }));
    await socket.waitFor((m) => isControl('ack')(m) && m.data.id === 'chat');
    await leave(socket);
  });

  it("refuses another project's key, and bad options naming the field", async () => {
    const s = await createSession(t, a.key);
    const other = await tenant(t);
    expectError(
      await call(t, 'POST', `/v1/sessions/${s.id}/join-links`, { key: other.key, body: {} }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: other.key }),
      404,
      'NOT_FOUND',
    );
    const mine = await createLink(t, a.key, s.id);
    expectError(
      await call(t, 'DELETE', `/v1/sessions/${s.id}/join-links/${mine.id}`, { key: other.key }),
      404,
      'NOT_FOUND',
    );
    for (const [body, field] of [
      [{ expires_in_minutes: 0 }, 'expires_in_minutes'],
      [{ expires_in_minutes: 43_201 }, 'expires_in_minutes'],
      [{ max_uses: 0 }, 'max_uses'],
      [{ max_uses: 10_001 }, 'max_uses'],
      [{ can_publish: 'yes' }, 'can_publish'],
    ] as const)
      expect(
        expectError(
          await call(t, 'POST', `/v1/sessions/${s.id}/join-links`, { key: a.key, body }),
          400,
          'BAD_REQUEST',
        ),
      ).toContain(`body.${field}`);
  });

  it('takes 64 characters of any script as a name; 65, only spaces or a control character answer 400 naming the field', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id);
    const names = [
      '山田 太郎'.repeat(12) + '山田 太',
      'Ана Мария '.repeat(6) + 'Анна',
      'محمد '.repeat(12) + 'محمد',
      'é'.repeat(64),
    ];
    for (const name of names) {
      expect([...name].length).toBe(64);
      const res = await redeem(t, link.token, name);
      expect(res.status, name).toBe(200);
      expect(res.body.data.display_name).toBe(name);
    }
    for (const bad of [
      'x'.repeat(65),
      '   ',
      '',
      'Ana\u0000',
      'Ana\nMaría',
      'Ana\u0085María',
      'Ana\u2028María',
    ]) {
      const message = expectError(await redeem(t, link.token, bad), 400, 'BAD_REQUEST');
      expect(message, JSON.stringify(bad)).toMatch(/^body\.display_name /);
    }
    expect(expectError(await redeem(t, link.token, 7), 400, 'BAD_REQUEST')).toMatch(/body\.display_name/);
    // Members name themselves the same way, on the connection route.
    const ok = await call(t, 'POST', `/v1/sessions/${s.id}/connection`, {
      key: a.key,
      body: { user_id: 'u1', display_name: 'Zoë Ölund' },
    });
    expect(ok.status).toBe(200);
    const long = await call(t, 'POST', `/v1/sessions/${s.id}/connection`, {
      key: a.key,
      body: { user_id: 'u1', display_name: 'x'.repeat(65) },
    });
    expect(expectError(long, 400, 'BAD_REQUEST')).toMatch(/^body\.display_name must be 1 to 64 characters/);
  });
});

describe('display names as people see them', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => {
    t = app;
    a = tenant;
  });

  const connect = (sessionId: string, display_name: string) =>
    call(t, 'POST', `/v1/sessions/${sessionId}/connection`, {
      key: a.key,
      body: { user_id: 'u1', display_name },
    });

  it('counts what a person sees as one character: 64 family emoji are a name, 65 are not', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id);
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect([...family].length).toBe(5);
    const name = family.repeat(64);
    const joined = await redeem(t, link.token, name);
    expect(joined.status, joined.raw).toBe(200);
    expect(joined.body.data.display_name).toBe(name);
    expect((await connect(s.id, name)).status).toBe(200);
    // Letters with combining accents count once each, as they are drawn.
    expect((await connect(s.id, 'e\u0301'.repeat(64))).status).toBe(200);

    const long = family.repeat(65);
    expect(expectError(await redeem(t, link.token, long), 400, 'BAD_REQUEST')).toMatch(
      /^body\.display_name must be 1 to 64 characters/,
    );
    expect(expectError(await connect(s.id, long), 400, 'BAD_REQUEST')).toMatch(/^body\.display_name /);
  });

  it('refuses a name with nothing visible in it, naming the field; ordinary names still pass', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id);
    for (const bad of [
      '\u200B\u200B',
      '\u2060',
      '\uFEFF \uFEFF',
      '\u00AD\u00AD',
      '\u3000\u200C\u200D',
      '\u3164',
      '\u2800\u2800',
      '\u{E0041}\u{E0042}',
      '\u202E\u2066',
      '\u0301',
    ]) {
      const message = expectError(await connect(s.id, bad), 400, 'BAD_REQUEST');
      expect(message, JSON.stringify(bad)).toMatch(/^body\.display_name .*visible/);
    }
    expect(expectError(await redeem(t, link.token, '\u200B\u200B'), 400, 'BAD_REQUEST')).toMatch(
      /^body\.display_name .*visible/,
    );
    for (const good of ['Ana María', '山田 太郎', 'محمد', 'Zoë\u00ADÖlund', '\u{1F600}', 'x', '\u202EAna']) {
      const res = await connect(s.id, good);
      expect(res.status, JSON.stringify(good)).toBe(200);
    }
    const guest = await redeem(t, link.token, 'Ana María');
    expect(guest.status).toBe(200);
    expect(guest.body.data.display_name).toBe('Ana María');
  });
});

describe('removing a participant', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => {
    t = app;
    a = tenant;
  });

  it('closes their connection with 4403 after `removed`, records it, and refuses their old token', async () => {
    const s = await createSession(t, a.key);
    const link = await createLink(t, a.key, s.id);
    const host = await join(t, a.key, s.id, 'host');
    const { socket, guest } = await joinAsGuest(t, link.token);
    const res = await call(t, 'POST', `/v1/sessions/${s.id}/participants/${guest.user_id}/remove`, {
      key: a.key,
    });
    expect(res.body.data).toEqual({ session_id: s.id, user_id: guest.user_id, removed: true });
    // Gone by the time the answer came: removing again finds nobody.
    const twice = await call(t, 'POST', `/v1/sessions/${s.id}/participants/${guest.user_id}/remove`, {
      key: a.key,
    });
    expectError(twice, 404, 'NOT_FOUND');
    const removed = await socket.waitFor(isControl('removed'));
    expect(removed.data.message).toMatch(/removed from the session/);
    expect(await socket.closed).toMatchObject({ code: CLOSE.REMOVED });
    expect(CLOSE.REMOVED).toBe(4403);
    await host.waitFor((m) => isControl('leave')(m) && m.user_id === guest.user_id);

    const again = openSocket(await listen(t), {
      session: s.id,
      access_token: guest.access_token,
      user_id: guest.user_id,
    });
    await expect(again).rejects.toThrow(/403/);
    const timeline = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body.data;
    expect(timeline.find((e: any) => e.type === 'participant.removed')).toMatchObject({
      data: { user_id: guest.user_id },
    });
    // Removed is removed: coming back with the link's rejoin token is refused.
    const rejoin = await call(t, 'POST', `/v1/join/${link.token}`, {
      body: { display_name: 'Ana María', rejoin_token: guest.rejoin_token },
    });
    expect(expectError(rejoin, 403, 'FORBIDDEN')).toMatch(/removed from this session/);
    // A member removed is let in again by a token issued after the removal.
    const bob = await join(t, a.key, s.id, 'bob');
    await call(t, 'POST', `/v1/sessions/${s.id}/participants/bob/remove`, {
      cookie: a.cookie,
      headers: ORIGIN,
    });
    expect(await bob.closed).toMatchObject({ code: CLOSE.REMOVED });
    const back = await join(t, a.key, s.id, 'bob');
    expect(back.received.text.find(isControl('welcome'))).toBeTruthy();
    await leave(back);
    await leave(host);
  });

  it("refuses another project's key and bad ids", async () => {
    const s = await createSession(t, a.key);
    const host = await join(t, a.key, s.id, 'host');
    const other = await tenant(t);
    expectError(
      await call(t, 'POST', `/v1/sessions/${s.id}/participants/host/remove`, { key: other.key }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(t, 'POST', `/v1/sessions/${s.id}/participants/nobody/remove`, { key: a.key }),
      404,
      'NOT_FOUND',
    );
    expect(
      expectError(
        await call(t, 'POST', `/v1/sessions/${s.id}/participants/..%2Fx/remove`, { key: a.key }),
        400,
        'BAD_REQUEST',
      ),
    ).toMatch(/userId/);
    expect(host.ws.readyState).toBe(host.ws.OPEN);
    await leave(host);
  });
});

describe('join limits', () => {
  it('counts join attempts per address: past 30 a minute, 429 with Retry-After', async () => {
    const t = await startApp();
    try {
      const a = await tenant(t);
      const s = await createSession(t, a.key);
      const link = await createLink(t, a.key, s.id);
      for (let i = 0; i < 29; i++) expect((await redeem(t, `guess-${i}`)).status).toBe(404);
      expect((await redeem(t, link.token)).status).toBe(200);
      const limited = await redeem(t, link.token);
      expect(expectError(limited, 429, 'RATE_LIMITED')).toMatch(/at most 30 per minute/);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });

  it('answers 503 while the organisation may not start a meeting, and takes no use', async () => {
    const t = await startApp({
      env: {
        USAGE_FLUSH_INTERVAL_S: '1',
        FREE_TIER_STREAMING_MINUTES: '0.005',
        SESSION_DEPARTURE_TIMEOUT_S: '1',
      },
    });
    try {
      const a = await tenant(t);
      const used = await createSession(t, a.key);
      const next = await createSession(t, a.key);
      const link = await createLink(t, a.key, next.id, { max_uses: 1 });
      const host = await join(t, a.key, used.id, 'host');
      await eventually(
        async () => (await call(t, 'GET', '/v1/billing/limits', { key: a.key })).body.data.is_blocked,
        10_000,
        'blocked',
      );
      await leave(host);
      expectError(await redeem(t, link.token), 503, 'USAGE_LIMITS_EXCEEDED');
      expect(
        (await call(t, 'GET', `/v1/sessions/${next.id}/join-links`, { key: a.key })).body.data[0].uses,
      ).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('participant webhooks', () => {
  it('sends participant.joined and participant.left, signed, with the display name', async () => {
    const t = await startApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    const r = await receiver();
    try {
      const a = await tenant(t);
      const hook = await call(t, 'POST', '/v1/webhooks', {
        key: a.key,
        body: { url: r.url, events: ['participant.joined', 'participant.left'] },
      });
      expect(hook.status).toBe(201);
      const s = await createSession(t, a.key);
      const link = await createLink(t, a.key, s.id);
      const { socket, guest } = await joinAsGuest(t, link.token, 'Ana María');
      await leave(socket);
      const hits = await eventually(() => (r.hits.length >= 2 ? r.hits : null), 15_000, 'two deliveries');
      const bodies = hits.map((h) => h.body);
      expect(bodies.map((b) => b.type).sort()).toEqual(['participant.joined', 'participant.left']);
      for (const b of bodies) {
        expect(b).toMatchObject({
          session_id: s.id,
          data: { user_id: guest.user_id, display_name: 'Ana María' },
        });
      }
      for (const h of hits) expect(verifies(hook.body.data.secret, h)).toBe(true);
    } finally {
      await r.close();
      await t.close();
    }
  });
});
