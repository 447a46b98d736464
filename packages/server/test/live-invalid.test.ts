import { describe, expect, it } from 'vitest';
import { MAX_STRIKES, RATE_BURST } from '../src/modules/live/message-guard.js';
import { MAX_CONTROL_BYTES } from '../src/modules/live/wire-limits.js';
import { call, createSession, type Tenant, type TestApp, useApp } from './support/app.js';
import { join, jpeg, leave, listen, publish } from './support/live.js';

const isError = (code: string) => (m: Record<string, any>) =>
  m.type === 'control' && m.event === 'error' && m.data?.code === code;

describe('invalid live messages', () => {
  let t: TestApp;
  let a: Tenant;
  useApp((app, tenant) => ((t = app), (a = tenant)));

  it('count against the rate like valid ones: garbage uses up the burst too', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    // Fewer invalid messages than close a connection, then a burst's worth of valid pictures:
    // together they are over the burst, so a picture is refused for rate (garbage used to cost nothing).
    for (let i = 0; i < MAX_STRIKES; i++) alice.ws.send('not json');
    for (let i = 0; i < RATE_BURST; i++) alice.send(publish('media/alice/cam', jpeg(i), { id: `c${i}` }));
    const limited = await alice.waitFor(isError('RATE_LIMITED'));
    expect(limited.data.message).toMatch(/messages per second/);
    expect(limited.data.id).toMatch(/^c\d+$/);
    expect(alice.received.text.filter(isError('BAD_MESSAGE'))).toHaveLength(MAX_STRIKES);
    await leave(alice);
  });

  it('close a connection that keeps sending them with 1008 and a reason, without parsing a flood of deeply nested JSON', async () => {
    const s = await createSession(t, a.key);
    const mallory = await join(t, a.key, s.id, 'mallory');
    const health = `${(await listen(t)).replace('ws:', 'http:')}/health`;
    expect(await (await fetch(health)).text()).toBe('ok'); // the HTTP client's first use is slow
    // Each just under the size cap, so that it is the nesting that refuses it.
    const deep = Buffer.from('['.repeat(32_000) + ']'.repeat(32_000));
    for (let i = 0; i < 500; i++) mallory.ws.send(deep, { binary: false });
    // While the flood is read, /health keeps answering. (How fast is a benchmark's business, not
    // a test's: it took half a second when every message was parsed.)
    let closedYet = false;
    const closing = mallory.closed.then((c) => ((closedYet = true), c));
    const deadline = performance.now() + 10_000;
    while (!closedYet && performance.now() < deadline) expect(await (await fetch(health)).text()).toBe('ok');
    expect(await closing).toEqual({ code: 1008, reason: 'too many invalid messages' });
    // Each answered one said why; the rest were never looked at.
    const refused = mallory.received.text.filter(isError('BAD_MESSAGE'));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(MAX_STRIKES + 1);
    expect(refused[0]!.data.message).toMatch(/nest at most \d+ levels/);
    // The server answers at once afterwards.
    expect((await call(t, 'GET', '/health')).raw).toBe('ok');
  });

  it('refuse control and chat messages over their own size cap, naming the id, while media may be larger', async () => {
    const s = await createSession(t, a.key);
    const bob = await join(t, a.key, s.id, 'bob');
    const big = Buffer.from(JSON.stringify({ text: 'x'.repeat(MAX_CONTROL_BYTES) }));
    bob.send(publish('chat', big, { id: 'big-chat' }));
    const refused = await bob.waitFor((m) => m.event === 'error' && m.data?.id === 'big-chat');
    expect(refused.data).toMatchObject({ code: 'TOO_LARGE' });
    expect(refused.data.message).toMatch(/other than media publishes are limited to 65536 bytes/);
    bob.send({ type: 'unpublish', stream_type: 'x'.repeat(MAX_CONTROL_BYTES), id: 'big-unpublish' });
    expect((await bob.waitFor((m) => m.event === 'error' && m.data?.id === 'big-unpublish')).data.code).toBe(
      'TOO_LARGE',
    );
    // A 200 KiB camera frame is fine.
    const frame = Buffer.alloc(200 * 1024, 7);
    frame.set([0xff, 0xd8, 0xff, 0xe0]);
    frame.set([0xff, 0xd9], frame.length - 2);
    bob.send(publish('media/bob/cam', frame, { id: 'big-frame' }));
    expect(
      (await bob.waitFor((m) => m.event === 'ack' && m.data?.id === 'big-frame')).data.seq,
    ).toBeGreaterThan(0);
    await leave(bob);
  });

  it('refuse a large text message that is not a media publish before parsing it', async () => {
    const s = await createSession(t, a.key);
    const dave = await join(t, a.key, s.id, 'dave');
    // Not JSON at all, but too large for anything other than media: refused for its size, unread.
    dave.ws.send('x'.repeat(MAX_CONTROL_BYTES + 1));
    const refused = await dave.waitFor(isError('TOO_LARGE'));
    expect(refused.data.message).toMatch(/other than media publishes are limited to 65536 bytes/);
    // A large chat says which message it was (the id after the body is read without parsing).
    dave.send(publish('chat', Buffer.alloc(MAX_CONTROL_BYTES, 1), { id: 'large-chat' }));
    const named = await dave.waitFor((m) => m.event === 'error' && m.data?.id === 'large-chat');
    expect(named.data.code).toBe('TOO_LARGE');
    // A large media publish in JSON is still accepted.
    const frame = Buffer.alloc(200 * 1024, 7);
    frame.set([0xff, 0xd8, 0xff, 0xe0]);
    frame.set([0xff, 0xd9], frame.length - 2);
    dave.send(publish('media/dave/cam', frame, { id: 'json-frame' }));
    expect(
      (await dave.waitFor((m) => m.event === 'ack' && m.data?.id === 'json-frame')).data.seq,
    ).toBeGreaterThan(0);
    await leave(dave);
  });

  it('bound JSON nesting before parsing: a message nested deeper than the protocol needs is refused', async () => {
    const s = await createSession(t, a.key);
    const carol = await join(t, a.key, s.id, 'carol');
    let nested: unknown = 'x';
    for (let i = 0; i < 20; i++) nested = { n: nested };
    carol.send({ type: 'publish', stream_type: 'director', body: '', id: 'deep', extra: nested });
    const refused = await carol.waitFor(isError('BAD_MESSAGE'));
    expect(refused.data.message).toMatch(/nest at most 16 levels deep/);
    // Strings holding brackets are not nesting.
    carol.send(
      publish('chat', Buffer.from(JSON.stringify({ text: '[[[[{{{{'.repeat(10) })), {
        id: 'brackets',
        note: '"]]]\\"[[[',
      }),
    );
    expect(
      (await carol.waitFor((m) => m.event === 'ack' && m.data?.id === 'brackets')).data.seq,
    ).toBeGreaterThan(0);
    await leave(carol);
  });
});
