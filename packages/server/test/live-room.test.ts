import { CLOSE } from '@vss/protocol';
import { describe, expect, it } from 'vitest';
import { call, createSession, useApp, type Tenant, type TestApp } from './support/app.js';
import { join, jpeg, listen, openSocket, publish, type TestSocket } from './support/live.js';

/** One room per session: a member replacing their own connection stays in the room everyone joins. */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const chat = (text: string, id: string) => publish('chat', Buffer.from(JSON.stringify({ text })), { id });
const isChat = (text: string) => (m: Record<string, any>) =>
  m.type === 'message' &&
  m.stream_type === 'chat' &&
  JSON.parse(Buffer.from(m.body, 'base64').toString('utf8')).data.text === text;

async function joinAsGuest(t: TestApp, key: string, sessionId: string): Promise<TestSocket & { id: string }> {
  const link = await call(t, 'POST', `/v1/sessions/${sessionId}/join-links`, { key, body: {} });
  const res = await call(t, 'POST', `/v1/join/${link.body.data.token}`, { body: { display_name: 'Guest' } });
  if (res.status !== 200) throw new Error(`join failed: ${res.raw}`);
  const g = res.body.data;
  const socket = await openSocket(await listen(t), {
    session: g.session,
    access_token: g.access_token,
    user_id: g.user_id,
  });
  await socket.waitFor(isControl('welcome'));
  return Object.assign(socket, { id: g.user_id as string });
}

/** The session's timeline as recorded: each event's type and actor. */
async function timeline(t: TestApp, sessionId: string): Promise<string[]> {
  await t.runtime.writer.flush();
  const out: string[] = [];
  for await (const e of t.runtime.streams.read(sessionId, {}))
    if (e.streamId === 'events') {
      const ev = JSON.parse(Buffer.from(e.body).toString('utf8'));
      out.push(`${ev.type}:${ev.actor}`);
    }
  return out;
}

describe('a member who opens a second tab, then a guest', () => {
  let t: TestApp;
  let a: Tenant;
  useApp(
    (app, tenant) => {
      t = app;
      a = tenant;
    },
    { env: { SESSION_DEPARTURE_TIMEOUT_S: '1' } },
  );

  it('keeps one room: the guest sees the member publishing, and chat crosses both ways', async () => {
    const s = await createSession(t, a.key);
    const first = await join(t, a.key, s.id, 'alice');
    const second = await join(t, a.key, s.id, 'alice');
    expect(await first.closed).toMatchObject({ code: CLOSE.REPLACED });
    second.send(publish('media/alice/cam', jpeg(1), { id: 'c1' }));
    await second.waitFor(isControl('ack'));

    const guest = await joinAsGuest(t, a.key, s.id);
    const welcome = guest.received.text.find(isControl('welcome'))!;
    expect(welcome.data.participants.sort()).toEqual(['alice', guest.id].sort());
    // The member's newer tab is told of the guest: both are in one room.
    await second.waitFor((m) => isControl('join')(m) && m.user_id === guest.id);
    // The member publishes and the guest receives it, as a track and as media.
    second.send(publish('media/alice/cam', jpeg(2), { id: 'c2' }));
    await guest.waitFor((m) => m.type === 'message' && m.stream_type === 'media/alice/cam');
    second.send(chat('hello guest', 'm1'));
    await guest.waitFor(isChat('hello guest'));
    guest.send(chat('hello alice', 'm2'));
    await second.waitFor(isChat('hello alice'));

    // The recording holds one session: alice joined, was replaced (left, joined again), then the guest.
    const events = (await timeline(t, s.id)).filter((e) => /^(session|participant)\./.test(e));
    expect(events).toEqual([
      'session.started:system',
      'participant.joined:alice',
      'participant.left:alice',
      'participant.joined:alice',
      `participant.joined:${guest.id}`,
    ]);
    second.ws.close();
    guest.ws.close();
  });
});
