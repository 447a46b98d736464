import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { eventually, join, jpeg, listen, openSocket, publish, type TestSocket } from './support/live.js';

/**
 * Chat and the director stream are text written into the recording. They were unbounded: any
 * string as a `director.focus` target, megabytes a second of chat from one connection (a
 * watch-only guest's too), past the recording rules and past the free tier's storage. Each test
 * here makes the attack as it was made, and checks what is stored afterwards.
 */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const chat = (text: string, id: string) => publish('chat', Buffer.from(JSON.stringify({ text })), { id });
const director = (cmd: unknown, id: string) => publish('director', Buffer.from(JSON.stringify(cmd)), { id });
const focus = (userId: string, id: string) =>
  director({ type: 'director.focus', data: { user_id: userId } }, id);

/** The answer (ack or error) to each of `ids`, once all have one. */
async function answers(s: TestSocket, ids: string[]): Promise<Map<string, Record<string, any>>> {
  return eventually(
    () => {
      const got = new Map<string, Record<string, any>>();
      for (const m of s.received.text)
        if (m.type === 'control' && (m.event === 'ack' || m.event === 'error') && ids.includes(m.data?.id))
          got.set(m.data.id, m);
      return got.size === ids.length ? got : null;
    },
    20_000,
    `answers to ${ids.length} messages`,
  );
}

/** The bytes stored of each stream of a session. */
async function stored(t: TestApp, sessionId: string): Promise<Map<string, number>> {
  await t.runtime.writer.flush();
  const bytes = new Map<string, number>();
  for await (const e of t.runtime.streams.read(sessionId, {}))
    bytes.set(e.streamId, (bytes.get(e.streamId) ?? 0) + e.body.length);
  return bytes;
}

describe('the director stream', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('takes a focus only on a participant of the session: a 45,000-character user_id and a stranger are refused', async () => {
    const s = await createSession(t, a.key);
    const host = await join(t, a.key, s.id, 'host');
    const bob = await join(t, a.key, s.id, 'bob');
    bob.ws.close();
    await bob.closed;
    host.send(focus('x'.repeat(45_000), 'huge'));
    host.send(focus('nobody-here', 'stranger'));
    host.send(focus('', 'empty'));
    host.send(focus('host', 'self'));
    // bob left, but was in the session: a presenter layout may still name him.
    host.send(focus('bob', 'left'));
    const got = await answers(host, ['huge', 'stranger', 'empty', 'self', 'left']);
    for (const id of ['huge', 'stranger', 'empty']) {
      expect(got.get(id)!.event).toBe('error');
      expect(got.get(id)!.data.code).toBe('BAD_MESSAGE');
      expect(got.get(id)!.data.message).toMatch(
        /data\.user_id of director\.focus must be the user_id of a participant/,
      );
    }
    expect(got.get('self')!.event).toBe('ack');
    expect(got.get('left')!.event).toBe('ack');
    const bytes = await stored(t, s.id);
    // Two small envelopes, nothing of the refused ones.
    expect(bytes.get('director')).toBeLessThan(500);
    host.ws.close();
  });

  it('records no director command of a participant the recording rules leave out', async () => {
    const s = await createSession(t, a.key);
    const rules = [
      { type: 'exclude', all: true },
      { type: 'include', user_id: 'host' },
    ];
    expect(
      (await call(t, 'PUT', `/v1/sessions/${s.id}/recording-rules`, { key: a.key, body: { rules } })).status,
    ).toBe(200);
    const host = await join(t, a.key, s.id, 'host');
    const other = await join(t, a.key, s.id, 'other');
    other.send(director({ type: 'director.layout', data: { layout: 'presenter' } }, 'o1'));
    host.send(director({ type: 'director.layout', data: { layout: 'grid' } }, 'h1'));
    // A rule for one kind of stream does not take the director stream with it.
    const camOnly = [...rules, { type: 'exclude', user_id: 'host', kind: 'cam' }];
    const [o1, h1] = [(await answers(other, ['o1'])).get('o1')!, (await answers(host, ['h1'])).get('h1')!];
    expect(o1.event).toBe('ack');
    expect(o1.data.recorded).toBe(false);
    expect(h1.event).toBe('ack');
    expect(h1.data.recorded).toBeUndefined();
    expect(
      (await call(t, 'PUT', `/v1/sessions/${s.id}/recording-rules`, { key: a.key, body: { rules: camOnly } }))
        .status,
    ).toBe(200);
    await host.waitFor((m) => m.type === 'control' && m.event === 'recording' && m.data.rules?.length === 3);
    host.send(director({ type: 'director.layout', data: { layout: 'presenter' } }, 'h2'));
    expect((await answers(host, ['h2'])).get('h2')!.data.recorded).toBeUndefined();
    const layouts: string[] = [];
    await t.runtime.writer.flush();
    for await (const e of t.runtime.streams.read(s.id, { streamId: 'director' })) {
      const env = JSON.parse(e.body.toString());
      layouts.push(`${env.actor}:${env.data.layout}`);
    }
    expect(layouts).toEqual(['host:grid', 'host:presenter']);
    host.ws.close();
    other.ws.close();
  });
});

describe('chat and director commands from one connection', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
  });
  afterAll(() => t.close());

  /** Sends 4000-character chat messages as fast as the socket takes them for `ms`. */
  async function flood(s: TestSocket, ms: number, prefix: string): Promise<string[]> {
    const ids: string[] = [];
    const until = Date.now() + ms;
    // Four bytes a character in UTF-8: 16,000 bytes a message.
    const text = '😀'.repeat(2000);
    while (Date.now() < until) {
      const id = `${prefix}${ids.length}`;
      ids.push(id);
      s.send(chat(text, id));
      if (ids.length % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    return ids;
  }

  it('are rate-limited: a flood of 4000-character chat stores a bounded amount, and the server answers after it', async () => {
    const s = await createSession(t, a.key);
    const attacker = await join(t, a.key, s.id, 'attacker');
    const started = Date.now();
    const ids = await flood(attacker, 2000, 'c');
    const got = await answers(attacker, ids);
    const seconds = (Date.now() - started) / 1000;
    const acked = ids.filter((id) => got.get(id)!.event === 'ack');
    const refused = ids.filter((id) => got.get(id)!.event === 'error');
    expect(refused.length).toBeGreaterThan(0);
    expect(got.get(refused[0]!)!.data.code).toBe('RATE_LIMITED');
    expect(got.get(refused[0]!)!.data.message).toMatch(
      /chat and director commands are limited to 10 messages and 16 KiB a second/,
    );
    // At most the 64 KiB burst and 16 KiB a second after it (each envelope a little over 16,000 bytes).
    const bytes = (await stored(t, s.id)).get('chat') ?? 0;
    expect(bytes).toBeLessThanOrEqual(64 * 1024 + 16 * 1024 * seconds);
    expect(acked.length).toBeGreaterThan(0);
    // The connection goes on: a message sent in a while is taken, and the API answers.
    await eventually(
      async () => {
        const id = `later${Date.now()}`;
        attacker.send(chat('still here', id));
        return (await answers(attacker, [id])).get(id)!.event === 'ack';
      },
      10_000,
      'a later message to be taken',
    );
    expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).status).toBe(200);
    attacker.ws.close();
  });

  it("limit a watch-only guest's chat as everyone's", async () => {
    const s = await createSession(t, a.key);
    const link = await call(t, 'POST', `/v1/sessions/${s.id}/join-links`, {
      key: a.key,
      body: { can_publish: false },
    });
    expect(link.status).toBe(201);
    const redeemed = await call(t, 'POST', `/v1/join/${link.body.data.token}`, {
      body: { display_name: 'Watcher' },
    });
    expect(redeemed.status).toBe(200);
    const g = redeemed.body.data;
    const guest = await openSocket(await listen(t), {
      session: g.session,
      access_token: g.access_token,
      user_id: g.user_id,
    });
    await guest.waitFor(isControl('welcome'));
    const started = Date.now();
    const ids = await flood(guest, 1500, 'g');
    const got = await answers(guest, ids);
    const seconds = (Date.now() - started) / 1000;
    expect(ids.some((id) => got.get(id)!.data.code === 'RATE_LIMITED')).toBe(true);
    expect((await stored(t, s.id)).get('chat') ?? 0).toBeLessThanOrEqual(64 * 1024 + 16 * 1024 * seconds);
    guest.ws.close();
  });
});

describe("a session's recorded text", () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    // 100 kB of chat and director commands recorded of a session.
    t = await startApp({ env: { LIVE_TEXT_MB_PER_SESSION: '0.1' } });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('stops being recorded at the budget, and is still delivered live', async () => {
    const s = await createSession(t, a.key);
    const listener = await join(t, a.key, s.id, 'listener');
    // Ten participants each send a 64 KiB burst: more than the session records.
    const senders = await Promise.all(Array.from({ length: 10 }, (_, i) => join(t, a.key, s.id, `p${i}`)));
    const text = 'x'.repeat(3900);
    const sent = senders.map((p, i) => {
      const ids = Array.from({ length: 4 }, (_, n) => `p${i}-${n}`);
      for (const id of ids) p.send(chat(text, id));
      return ids;
    });
    const got = await Promise.all(senders.map((p, i) => answers(p, sent[i]!)));
    const acks = got.flatMap((m) => [...m.values()]);
    expect(acks.every((m) => m.event === 'ack')).toBe(true);
    expect(acks.filter((m) => m.data.recorded === false).length).toBeGreaterThan(0);
    expect((await stored(t, s.id)).get('chat')).toBeLessThanOrEqual(0.1 * 1024 * 1024);
    // Everything reached the listener all the same.
    await listener.waitForCount((m) => m.type === 'message' && m.stream_type === 'chat', 40);
    for (const p of [listener, ...senders]) p.ws.close();
  });
});

describe('chat and director commands of an organisation without a subscription', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    // 200 kB of free storage: three 64 KiB frames fit, a fourth does not.
    t = await startApp({ env: { FREE_TIER_STORAGE_GB: '0.0002' } });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('count against its storage: past the limit they are delivered live and not recorded', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    for (let i = 0; i < 3; i++) alice.send(publish('media/alice/cam', jpeg(i, 60 * 1024), { id: `f${i}` }));
    await answers(alice, ['f0', 'f1', 'f2']);
    // What is left of the 200 kB is less than three 16 kB messages.
    const ids = Array.from({ length: 3 }, (_, i) => `c${i}`);
    for (const id of ids) alice.send(chat('😀'.repeat(2000), id));
    const got = await answers(alice, ids);
    expect(ids.map((id) => got.get(id)!.event)).toEqual(['ack', 'ack', 'ack']);
    expect(ids.filter((id) => got.get(id)!.data.recorded === false).length).toBeGreaterThan(0);
    const bytes = await stored(t, s.id);
    const total = [...bytes.values()].reduce((x, y) => x + y, 0);
    expect(total).toBeLessThanOrEqual(0.0002 * 1024 ** 3);
    await bob.waitForCount((m) => m.type === 'message' && m.stream_type === 'chat', 3);
    alice.ws.close();
    bob.ws.close();
  });
});
