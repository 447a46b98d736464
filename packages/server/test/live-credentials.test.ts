import { CLOSE } from '@vss/protocol';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  inviteMember,
  startApp,
  tenant,
  type Account,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { clockAhead, realClock } from './support/wait.js';
import { join, listen, openSocket, publish, token, type TestSocket } from './support/live.js';

/**
 * Who a live connection is: a dashboard member is their account, whatever name they type; a
 * restricted key mints only its app's ids and never takes over a stronger credential's place;
 * `guest-` ids come only from join links, whose unspent tokens die with the link.
 */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const url = (sessionId: string) => `/v1/sessions/${sessionId}/connection`;

describe('live identities', () => {
  let t: TestApp;
  let a: Tenant;
  let member: Account;
  let rk: string;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '1' } });
    a = await tenant(t);
    // A second member of the organisation, through an invitation.
    member = await inviteMember(t, a);
    rk = (await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: {} })).body.data.secret;
  });
  afterAll(async () => {
    await t.close();
    realClock();
  });

  /** A dashboard member's live connection, with the name typed on the pre-join screen. */
  async function memberJoins(who: Account, sessionId: string, name: string) {
    const res = await call(t, 'POST', url(sessionId), {
      cookie: who.cookie,
      headers: { origin: 'http://vss.test' },
      body: { display_name: name },
    });
    if (res.status !== 200) throw new Error(`connection failed: ${res.raw}`);
    const { access_token, user_id } = res.body.data;
    const socket = await openSocket(await listen(t), { session: sessionId, access_token, user_id });
    await socket.waitFor(isControl('welcome'));
    return { socket, userId: user_id as string };
  }

  it('makes two members who type the same name two participants, each their account', async () => {
    const s = await createSession(t, a.key);
    const owner = await memberJoins(a, s.id, 'Alex');
    const other = await memberJoins(member, s.id, 'Alex');
    expect(owner.userId).toBe(a.userId);
    expect(other.userId).toBe(member.userId);
    // Nobody was replaced: the owner is told the other Alex joined, and both stay.
    const joined = await owner.socket.waitFor(isControl('join'));
    expect(joined).toMatchObject({ user_id: member.userId, data: { display_name: 'Alex' } });
    const welcome = other.socket.received.text.find(isControl('welcome'))!;
    expect(welcome.data.participants.sort()).toEqual([a.userId, member.userId].sort());
    expect(welcome.data.names).toEqual({ [a.userId]: 'Alex', [member.userId]: 'Alex' });
    other.socket.send(publish('chat', Buffer.from(JSON.stringify({ text: 'hi' })), { id: 'm1' }));
    await owner.socket.waitFor((m) => m.type === 'message' && m.stream_type === 'chat');
    expect(owner.socket.received.text.some(isControl('replaced'))).toBe(false);
    expect(owner.socket.ws.readyState).toBe(WebSocket.OPEN);
    expect(other.socket.ws.readyState).toBe(WebSocket.OPEN);
    owner.socket.ws.close();
    other.socket.ws.close();
  });

  it("refuses a member's request for another id, naming user_id", async () => {
    const s = await createSession(t, a.key);
    for (const user_id of [a.userId, 'Alex', 'guest-abc']) {
      const res = await call(t, 'POST', url(s.id), {
        cookie: member.cookie,
        headers: { origin: 'http://vss.test' },
        body: { user_id, display_name: 'Alex' },
      });
      expect(expectError(res, 400, 'BAD_REQUEST')).toMatch(/^body\.user_id must be your own account's id/);
    }
    // Their own id, given, is fine.
    const own = await call(t, 'POST', url(s.id), {
      cookie: member.cookie,
      headers: { origin: 'http://vss.test' },
      body: { user_id: member.userId },
    });
    expect(own.body.data.user_id).toBe(member.userId);
  });

  it('reserves guest- ids for join links, whatever the key', async () => {
    const s = await createSession(t, a.key);
    for (const key of [a.key, rk]) {
      const res = await call(t, 'POST', url(s.id), { key, body: { user_id: 'guest-T1WqBy0bljXYSC6OF' } });
      expect(expectError(res, 400, 'BAD_REQUEST')).toMatch(/^body\.user_id must not begin with "guest-"/);
    }
    const keyless = await call(t, 'POST', url(s.id), { key: a.key, body: {} });
    expect(expectError(keyless, 400, 'BAD_REQUEST')).toBe('body.user_id is required');
  });

  it("keeps a restricted key to its app's ids: it cannot take the host's or a guest's place", async () => {
    const s = await createSession(t, a.key);
    const host = await join(t, a.key, s.id, 'host');
    const link = await call(t, 'POST', `/v1/sessions/${s.id}/join-links`, { key: a.key, body: {} });
    const g = (await call(t, 'POST', `/v1/join/${link.body.data.token}`, { body: { display_name: 'G' } }))
      .body.data;
    const guest = await openSocket(await listen(t), {
      session: s.id,
      access_token: g.access_token,
      user_id: g.user_id,
    });
    await guest.waitFor(isControl('welcome'));
    // The attack: the embedded key asks for the ids everyone learns from `welcome`.
    for (const user_id of ['host', g.user_id, a.userId]) {
      const res = await call(t, 'POST', url(s.id), { key: rk, body: { user_id } });
      expect(res.status).toBe(400);
      expect(res.body.error?.message).toMatch(
        /^body\.user_id must (begin with "app-"|not begin with "guest-")/,
      );
    }
    expect(
      expectError(
        await call(t, 'POST', url(s.id), { key: rk, body: { user_id: 'app-' } }),
        400,
        'BAD_REQUEST',
      ),
    ).toMatch(/^body\.user_id must begin with "app-"/);
    // Its own users connect, and replace their own connections as anyone does.
    const first = await join(t, rk, s.id, 'app-7');
    const again = await join(t, rk, s.id, 'app-7');
    expect(await first.closed).toMatchObject({ code: CLOSE.REPLACED });
    again.ws.close();
    expect(host.ws.readyState).toBe(WebSocket.OPEN);
    expect(guest.ws.readyState).toBe(WebSocket.OPEN);
    host.ws.close();
    guest.ws.close();
  });

  it('never lets a restricted key replace a connection made with an API key', async () => {
    const s = await createSession(t, a.key);
    const strong = await join(t, a.key, s.id, 'app-1');
    const weak = await token(t, rk, s.id, 'app-1');
    const refused = await openSocket(await listen(t), {
      session: s.id,
      access_token: weak,
      user_id: 'app-1',
    }).then(
      () => null,
      (err: { status: number; body: string }) => err,
    );
    expect(refused?.status).toBe(409);
    expect(JSON.parse(refused!.body).error.message).toMatch(/stronger credential/);
    // The API key's connection is untouched, and still publishes.
    strong.send(publish('chat', Buffer.from(JSON.stringify({ text: 'still here' })), { id: 'k1' }));
    await strong.waitFor(isControl('ack'));
    expect(strong.received.text.some(isControl('replaced'))).toBe(false);
    strong.ws.close();
  });

  describe("a join link's unspent tokens", () => {
    async function guestToken(sessionId: string, body: Record<string, unknown> = {}) {
      const link = (await call(t, 'POST', `/v1/sessions/${sessionId}/join-links`, { key: a.key, body })).body
        .data;
      const redeem = () => call(t, 'POST', `/v1/join/${link.token}`, { body: { display_name: 'G' } });
      const inRoom = (await redeem()).body.data;
      const unspent = (await redeem()).body.data;
      return { link, inRoom, unspent };
    }
    const open = (g: any): Promise<TestSocket> =>
      listen(t).then((base) =>
        openSocket(base, { session: g.session, access_token: g.access_token, user_id: g.user_id }),
      );
    const refusal = (g: any) =>
      open(g).then(
        () => null,
        (err: { status: number; body: string }) => ({ status: err.status, ...JSON.parse(err.body).error }),
      );

    it('are refused once the link is revoked; the guests in the room stay', async () => {
      const s = await createSession(t, a.key);
      const host = await join(t, a.key, s.id, 'host');
      const { link, inRoom, unspent } = await guestToken(s.id);
      const guest = await open(inRoom);
      await guest.waitFor(isControl('welcome'));
      const revoked = await call(t, 'DELETE', `/v1/sessions/${s.id}/join-links/${link.id}`, { key: a.key });
      expect(revoked.status).toBe(200);
      expect(await refusal(unspent)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      // The guest already in is still there: the host hears them.
      guest.send(publish('chat', Buffer.from(JSON.stringify({ text: 'still in' })), { id: 'g1' }));
      await host.waitFor((m) => m.type === 'message' && m.stream_type === 'chat');
      guest.ws.close();
      host.ws.close();
    });

    it('are refused once the link has expired', async () => {
      const s = await createSession(t, a.key);
      const { unspent } = await guestToken(s.id, { expires_in_minutes: 1 });
      clockAhead(61_000);
      expect(await refusal(unspent)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    });
  });
});
