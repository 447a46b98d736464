import { LiveClient, type LiveMessage } from '@vss/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { eventually, jpeg, listen, token } from './support/live.js';

describe('the live client against the real server', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = await listen(t);
  });
  afterAll(() => t.close());

  it('publishes with acks, receives in both formats, and reconnects with a fresh token after the connection drops', async () => {
    const s = await createSession(t, a.key);
    let tokens = 0;
    const make = (userId: string, format: 'json' | 'binary') => {
      const c = new LiveClient({
        url: base,
        session: s.id,
        userId,
        format,
        WebSocket: WebSocket as never,
        reconnect: { maxRetries: 5, minDelayMs: 20, maxDelayMs: 200 },
        token: async () => {
          tokens += 1;
          return token(t, a.key, s.id, userId);
        },
      });
      const got: LiveMessage[] = [];
      c.on('message', (m) => got.push(m));
      return { c, got };
    };
    const alice = make('alice', 'json');
    const bob = make('bob', 'binary');
    await alice.c.connect();
    await bob.c.connect();

    const seq = await alice.c.publish('media/alice/cam', jpeg(5, 10_000), { ack: true });
    expect(seq).toBeGreaterThan(0);
    const frame = await eventually(
      () => bob.got.find((m) => m.streamType === 'media/alice/cam'),
      10_000,
      'frame at bob',
    );
    expect(frame.seq).toBe(seq);
    expect(Buffer.from(frame.payload).equals(jpeg(5, 10_000))).toBe(true);
    await bob.c.publishChat('hi alice', { ack: true });
    const chat = await eventually(
      () => alice.got.find((m) => m.streamType === 'chat'),
      10_000,
      'chat at alice',
    );
    expect(JSON.parse(Buffer.from(chat.payload).toString()).data.text).toBe('hi alice');

    // The server drops every socket (as on a network cut): the clients come back by themselves.
    const reconnected = Promise.all(
      [alice, bob].map((x) => new Promise<void>((ok) => x.c.on('reconnect', () => ok()))),
    );
    const before = tokens;
    t.runtime.hub.dropAllSockets();
    await reconnected;
    expect(tokens).toBeGreaterThan(before);
    await alice.c.publish('media/alice/cam', jpeg(6), { ack: true });
    await eventually(
      () => bob.got.filter((m) => m.streamType === 'media/alice/cam').length === 2,
      10_000,
      'second frame at bob',
    );
    await alice.c.close();
    await bob.c.close();
  });
});
