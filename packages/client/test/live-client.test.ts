import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import {
  backoffDelay,
  LiveClient,
  LiveError,
  type LiveClientEvents,
  type LiveClientOptions,
} from '../src/live-client.js';
import {
  BINARY_MESSAGE,
  BINARY_PUBLISH,
  decodeBinaryFrame,
  encodeBinaryFrame,
  fromBase64,
  toBase64,
  type BinaryFrame,
  type ControlFrame,
} from '@vss/protocol';

const DEADLINE_MS = 5000;
const utf8 = new TextEncoder();
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** Rejects if `p` has not settled within `ms`: tests wait on events, never on fixed sleeps. */
function within<T>(p: Promise<T>, what: string, ms = DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** The next `event` of `client` (matching `pred`), with a deadline. */
function next<K extends keyof LiveClientEvents>(
  client: LiveClient,
  event: K,
  pred: (arg: LiveClientEvents[K]) => boolean = () => true,
): Promise<LiveClientEvents[K]> {
  let off = () => {};
  const p = new Promise<LiveClientEvents[K]>((resolve) => {
    off = client.on(event, (arg) => {
      if (pred(arg)) resolve(arg);
    });
  });
  return within(p, `client event '${String(event)}'`).finally(() => off());
}

/** What the test server received from a client. */
interface Received {
  sock: WebSocket;
  binary: boolean;
  /** the parsed JSON of a text frame */
  json?: any;
  /** the decoded binary frame */
  frame?: BinaryFrame;
}

/**
 * A minimal live server: checks nothing but `access_token=bad` (refused with HTTP 401 before the
 * upgrade; `ended`: 409), sends a welcome, acks publishes that carry an id (unless `respond` says otherwise).
 */
class TestServer {
  readonly wss: WebSocketServer;
  readonly requests: string[] = [];
  readonly sockets: WebSocket[] = [];
  readonly received: Received[] = [];
  url = '';
  seq = 0;
  /** how to answer a publish with an id; default: ack with the next seq */
  respond: (sock: WebSocket, id: string, streamType: string) => void = (sock, id) => this.ack(sock, id);
  private readonly watchers = new Set<() => void>();

  constructor() {
    this.wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: (info, cb) => {
        const q = new URL(info.req.url ?? '/', 'http://x').searchParams;
        if (q.get('access_token') === 'bad') cb(false, 401, 'Unauthorized');
        else if (q.get('access_token') === 'ended') cb(false, 409, 'Conflict');
        else cb(true);
      },
    });
    this.wss.on('connection', (sock, req) => {
      this.requests.push(req.url ?? '');
      this.sockets.push(sock);
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const userId = q.get('user_id') ?? '';
      this.control(sock, 'welcome', {
        session_id: q.get('session'),
        user_id: userId,
        participants: [{ user_id: userId }],
      });
      sock.on('message', (data: RawData, isBinary: boolean) => this.onMessage(sock, data, isBinary));
      this.changed();
    });
  }

  async start(): Promise<this> {
    if (!this.wss.address())
      await new Promise<void>((resolve) => this.wss.once('listening', () => resolve()));
    this.url = `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
    return this;
  }

  control(sock: WebSocket, event: ControlFrame['event'], data: Record<string, unknown>): void {
    const frame: ControlFrame = { type: 'control', event, user_id: 'system', timestamp_ms: Date.now(), data };
    sock.send(JSON.stringify(frame));
  }

  ack(sock: WebSocket, id: string): void {
    this.control(sock, 'ack', { id, seq: ++this.seq });
  }

  /** Resolves with the first value `probe` returns that is not undefined, re-probing on every change. */
  until<T>(probe: () => T | undefined, what: string): Promise<T> {
    let watcher = () => {};
    const p = new Promise<T>((resolve) => {
      watcher = () => {
        const v = probe();
        if (v !== undefined) resolve(v);
      };
      this.watchers.add(watcher);
      watcher();
    });
    return within(p, what).finally(() => this.watchers.delete(watcher));
  }

  /** The n-th received frame (0-based) matching `pred`. */
  frame(pred: (r: Received) => boolean, what: string): Promise<Received> {
    return this.until(() => this.received.find(pred), what);
  }

  connection(n: number): Promise<WebSocket> {
    return this.until(() => this.sockets[n], `server connection #${n + 1}`);
  }

  async stop(): Promise<void> {
    for (const s of this.wss.clients) s.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onMessage(sock: WebSocket, data: RawData, isBinary: boolean): void {
    const buf = data as Buffer;
    if (isBinary) {
      const frame = decodeBinaryFrame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      this.received.push({ sock, binary: true, frame });
      if (frame.id) this.respond(sock, frame.id, frame.streamType);
    } else {
      const json = JSON.parse(buf.toString('utf8'));
      this.received.push({ sock, binary: false, json });
      if (json.type === 'publish' && json.id) this.respond(sock, json.id, json.stream_type);
    }
    this.changed();
  }

  private changed(): void {
    for (const w of [...this.watchers]) w();
  }
}

let server: TestServer;
const clients: LiveClient[] = [];

async function setup(opts: Partial<LiveClientOptions> = {}): Promise<LiveClient> {
  server ??= await new TestServer().start();
  const client = new LiveClient({
    url: server.url,
    session: 'sess-1',
    userId: 'u1',
    token: 'tok',
    WebSocket,
    reconnect: { minDelayMs: 5, maxDelayMs: 20, maxRetries: 5 },
    ...opts,
  });
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  if (server) await server.stop();
  server = undefined as unknown as TestServer;
});

describe('LiveClient: connecting', () => {
  it('resolves connect() with the welcome and emits it as a control event', async () => {
    const client = await setup();
    const control = next(client, 'control');
    const welcome = await within(client.connect(), 'connect');
    expect(welcome).toMatchObject({
      type: 'control',
      event: 'welcome',
      data: { session_id: 'sess-1', user_id: 'u1' },
    });
    expect((welcome.data.participants as unknown[]).length).toBe(1);
    expect(await control).toBe(welcome);
    expect(client.welcome).toBe(welcome);
    expect(client.readyState).toBe(WebSocket.OPEN);
    // a second connect() while connected hands out the same welcome
    expect(await client.connect()).toBe(welcome);
    expect(server.sockets.length).toBe(1);
  });

  it('puts the URL-encoded session, token and user id in the query', async () => {
    const client = await setup({ session: 'sess/1 ü', userId: 'u 1&x=y', token: 'a+b/c=' });
    await within(client.connect(), 'connect');
    const raw = server.requests[0]!;
    expect(raw.startsWith('/ws?')).toBe(true);
    expect(raw).toContain(`session=${encodeURIComponent('sess/1 ü')}`);
    expect(raw).toContain('access_token=a%2Bb%2Fc%3D');
    expect(raw).toContain('user_id=u%201%26x%3Dy');
    expect(raw).not.toContain('format=');
    const q = new URL(raw, 'http://x').searchParams;
    expect([q.get('session'), q.get('access_token'), q.get('user_id')]).toEqual([
      'sess/1 ü',
      'a+b/c=',
      'u 1&x=y',
    ]);
    expect(client.connectUrl('t')).toBe(
      `${server.url}/ws?session=sess%2F1%20%C3%BC&access_token=t&user_id=u%201%26x%3Dy`,
    );
  });

  it('adds format=binary for binary connections and tolerates a trailing slash in url', async () => {
    const client = await setup({ format: 'binary' });
    const slashed = new LiveClient({
      url: `${server.url}/`,
      session: 's',
      userId: 'u',
      token: 't',
      WebSocket,
      format: 'binary',
    });
    expect(slashed.connectUrl('t')).toBe(`${server.url}/ws?session=s&access_token=t&user_id=u&format=binary`);
    await within(client.connect(), 'connect');
    expect(new URL(server.requests[0]!, 'http://x').searchParams.get('format')).toBe('binary');
  });

  it('rejects connect() with UNAUTHORIZED on an HTTP 401 upgrade refusal', async () => {
    const client = await setup({ token: async () => 'bad' });
    const err = await within(client.connect(), 'connect').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LiveError);
    expect((err as LiveError).code).toBe('UNAUTHORIZED');
    expect((err as LiveError).message).toMatch(/401/);
    expect((err as LiveError).message).toMatch(/token/);
    expect(client.readyState).toBe(WebSocket.CLOSED);
    expect(server.sockets.length).toBe(0);
  });

  it('rejects connect() with CONFLICT on an HTTP 409 (session ended) refusal', async () => {
    const client = await setup({ token: 'ended' });
    await expect(within(client.connect(), 'connect')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/409.*ended/),
    });
  });

  it('rejects connect() when the token function throws', async () => {
    const client = await setup({
      token: () => Promise.reject(new Error('auth service down')),
    });
    await expect(within(client.connect(), 'connect')).rejects.toMatchObject({
      code: 'TOKEN',
      message: expect.stringMatching(/auth service down/),
    });
  });

  it('rejects connect() when the server is not there', async () => {
    const s = await new TestServer().start();
    const url = s.url;
    await s.stop();
    const client = new LiveClient({ url, session: 's', userId: 'u', token: 't', WebSocket });
    clients.push(client);
    await expect(within(client.connect(), 'connect')).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('rejects publish with NOT_CONNECTED before connecting', async () => {
    const client = await setup();
    await expect(client.publish('chat', utf8.encode('{}'))).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    await expect(client.unpublish('media/u1/cam')).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
  });

  it('needs a WebSocket constructor where there is no global one', () => {
    const g = globalThis as { WebSocket?: unknown };
    if (g.WebSocket) return; // Node 22+: the global is used
    expect(() => new LiveClient({ url: 'ws://x', session: 's', userId: 'u', token: 't' })).toThrow(
      /WebSocket/,
    );
  });
});

describe('LiveClient: publishing', () => {
  it('sends JSON publish frames with base64 bodies on a JSON connection', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    const payload = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    await client.publish('media/u1/cam', payload);
    await client.publish('media/u1/cam', payload, { timestampMs: 1234 });
    const [a, b] = [
      await server.frame((r) => !r.binary && r.json.timestamp_ms === undefined, 'first publish'),
      await server.frame((r) => !r.binary && r.json.timestamp_ms === 1234, 'second publish'),
    ];
    expect(a.json).toEqual({ type: 'publish', stream_type: 'media/u1/cam', body: toBase64(payload) });
    expect(b.json).toEqual({
      type: 'publish',
      stream_type: 'media/u1/cam',
      body: toBase64(payload),
      timestamp_ms: 1234,
    });
    expect(server.received.every((r) => !r.binary)).toBe(true);
  });

  it('sends binary publish frames on a binary connection, JSON when asked', async () => {
    const client = await setup({ format: 'binary' });
    await within(client.connect(), 'connect');
    const payload = new Uint8Array([9, 8, 7]);
    await client.publish('media/u1/mic', payload, { timestampMs: 77 });
    const got = await server.frame((r) => r.binary, 'binary publish');
    expect(got.frame).toMatchObject({ kind: BINARY_PUBLISH, streamType: 'media/u1/mic', timestampMs: 77 });
    expect(got.frame!.id).toBeUndefined();
    expect([...got.frame!.payload]).toEqual([9, 8, 7]);

    await client.publish('media/u1/mic', payload, { binary: false });
    const json = await server.frame((r) => !r.binary, 'JSON publish');
    expect(json.json).toMatchObject({
      type: 'publish',
      stream_type: 'media/u1/mic',
      body: toBase64(payload),
    });

    // chat stays JSON on a binary connection
    await client.publishChat('hi');
    const chat = await server.frame((r) => !r.binary && r.json.stream_type === 'chat', 'chat publish');
    expect(JSON.parse(text(fromBase64(chat.json.body)))).toEqual({ text: 'hi' });
  });

  it('sends a binary frame on a JSON connection when asked', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    const before = Date.now();
    await client.publish('media/u1/cam', new Uint8Array([1]), { binary: true });
    const got = await server.frame((r) => r.binary, 'binary publish');
    expect(got.frame!.streamType).toBe('media/u1/cam');
    // without timestampMs, binary frames carry the wall clock (the header has no "absent")
    expect(got.frame!.timestampMs).toBeGreaterThanOrEqual(before);
  });

  it('resolves acked publishes with their seq, JSON and binary', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    server.seq = 100;
    const [s1, s2, s3] = await within(
      Promise.all([
        client.publish('media/u1/cam', new Uint8Array([1]), { ack: true }),
        client.publish('media/u1/cam', new Uint8Array([2]), { ack: true, binary: true }),
        client.publishChat('hello', { ack: true }),
      ]),
      'acks',
    );
    expect([s1, s2, s3]).toEqual([101, 102, 103]);
    const ids = server.received.map((r) => (r.binary ? r.frame!.id : r.json.id));
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
  });

  it('rejects an acked publish on an error control frame carrying its id', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    server.respond = (sock, id, streamType) => {
      if (streamType === 'media/u2/cam') {
        // an error for some other id first: it must not settle ours
        server.control(sock, 'error', { id: 'someone-else', code: 'BAD_MESSAGE', message: 'nope' });
        server.control(sock, 'error', {
          id,
          code: 'FORBIDDEN_STREAM',
          message: 'media only under your own user_id',
        });
      } else server.ack(sock, id);
    };
    const errControl = next(
      client,
      'control',
      (c) => c.event === 'error' && c.data.code === 'FORBIDDEN_STREAM',
    );
    const refused = client.publish('media/u2/cam', new Uint8Array([1]), { ack: true });
    await expect(within(refused, 'refusal')).rejects.toMatchObject({
      name: 'LiveError',
      code: 'FORBIDDEN_STREAM',
      message: 'media only under your own user_id',
    });
    expect((await errControl).data.id).toBeTypeOf('string');
    // the connection is still usable
    await expect(
      within(client.publish('media/u1/cam', new Uint8Array([1]), { ack: true }), 'ack'),
    ).resolves.toBe(1);
  });

  it('sends director commands and unpublish', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    await client.publishDirector({ type: 'director.layout', data: { layout: 'presenter' } });
    await client.publishDirector({ type: 'director.focus', data: { user_id: 'u2' } });
    await client.unpublish('media/u1/cam');
    await server.until(() => (server.received.length === 3 ? true : undefined), 'three frames');
    const [l, f, u] = server.received.map((r) => r.json);
    expect(l.stream_type).toBe('director');
    expect(JSON.parse(text(fromBase64(l.body)))).toEqual({
      type: 'director.layout',
      data: { layout: 'presenter' },
    });
    expect(JSON.parse(text(fromBase64(f.body)))).toEqual({ type: 'director.focus', data: { user_id: 'u2' } });
    expect(u).toEqual({ type: 'unpublish', stream_type: 'media/u1/cam' });
  });

  it('rejects a publish whose stream type does not fit the binary header', async () => {
    const client = await setup({ format: 'binary' });
    await within(client.connect(), 'connect');
    await expect(client.publish('x'.repeat(256), new Uint8Array(1))).rejects.toBeInstanceOf(RangeError);
  });
});

describe('LiveClient: receiving', () => {
  it('emits messages from JSON and binary frames', async () => {
    const client = await setup({ format: 'binary' });
    await within(client.connect(), 'connect');
    const sock = await server.connection(0);
    const first = next(client, 'message');
    const payload = new Uint8Array([1, 2, 3, 255]);
    sock.send(
      JSON.stringify({
        type: 'message',
        stream_type: 'chat',
        timestamp_ms: 10,
        body: toBase64(payload),
        seq: 5,
      }),
    );
    expect(await first).toEqual({ streamType: 'chat', timestampMs: 10, seq: 5, payload });

    const second = next(client, 'message');
    sock.send(
      encodeBinaryFrame({
        kind: BINARY_MESSAGE,
        streamType: 'media/u2/cam',
        timestampMs: 11,
        seq: 6,
        payload,
      }),
    );
    const m = await second;
    expect(m).toMatchObject({ streamType: 'media/u2/cam', timestampMs: 11, seq: 6 });
    expect([...m.payload]).toEqual([...payload]);
  });

  it("reports undecodable frames as 'error' and keeps going", async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    const sock = await server.connection(0);
    const err = next(client, 'error');
    sock.send('not json');
    expect(await err).toMatchObject({ code: 'BAD_FRAME' });
    const err2 = next(client, 'error');
    sock.send(new Uint8Array([1, 2, 3]));
    expect(await err2).toMatchObject({ code: 'BAD_FRAME' });
    const msg = next(client, 'message');
    sock.send(JSON.stringify({ type: 'message', stream_type: 'chat', timestamp_ms: 1, body: '', seq: 1 }));
    expect((await msg).seq).toBe(1);
  });

  it('keeps delivering to other listeners when one throws, and unsubscribes', async () => {
    const client = await setup();
    const seen: string[] = [];
    const off = client.on('control', () => seen.push('a'));
    client.on('control', () => {
      throw new Error('listener bug');
    });
    client.on('control', () => seen.push('c'));
    const err = next(client, 'error');
    await within(client.connect(), 'connect');
    expect(seen).toEqual(['a', 'c']);
    expect((await err).message).toBe('listener bug');
    off();
    const sock = await server.connection(0);
    const ctl = next(client, 'control');
    server.control(sock, 'join', { user_id: 'u2' });
    await ctl;
    expect(seen).toEqual(['a', 'c', 'c']);
  });
});

describe('LiveClient: reconnecting', () => {
  it('reconnects with a fresh token after the server drops the socket, rejecting pending acks', async () => {
    let n = 0;
    const client = await setup({ token: async () => `tok-${++n}` });
    await within(client.connect(), 'connect');
    const sock = await server.connection(0);

    server.respond = () => {}; // never ack: the drop must reject it
    const pendingAck = client.publish('media/u1/cam', new Uint8Array([1]), { ack: true });
    await server.frame((r) => !r.binary && r.json.type === 'publish', 'the publish');

    const closed = next(client, 'close');
    const reconnecting = next(client, 'reconnecting');
    const reconnected = next(client, 'reconnect');
    const welcomed = next(client, 'control', (c) => c.event === 'welcome');
    sock.terminate();

    await expect(within(pendingAck, 'ack rejection')).rejects.toMatchObject({ code: 'CLOSED' });
    expect(await closed).toMatchObject({ code: 1006, willReconnect: true });
    expect((await reconnecting).attempt).toBe(1);
    expect(await reconnected).toBe(1);
    await welcomed;
    expect(client.readyState).toBe(WebSocket.OPEN);
    expect(server.requests.map((u) => new URL(u, 'http://x').searchParams.get('access_token'))).toEqual([
      'tok-1',
      'tok-2',
    ]);

    // the new connection works, acks included
    server.respond = (s, id) => server.ack(s, id);
    await expect(within(client.publishChat('back', { ack: true }), 'ack')).resolves.toBeTypeOf('number');
    expect(server.received.at(-1)!.sock).toBe(server.sockets[1]);
  });

  it('reconnects after a 1013 (slow receiver) close', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    const closed = next(client, 'close');
    const reconnected = next(client, 'reconnect');
    (await server.connection(0)).close(1013, 'too slow');
    expect(await closed).toEqual({ code: 1013, reason: 'too slow', willReconnect: true });
    expect(await reconnected).toBe(1);
    expect(server.sockets.length).toBe(2);
  });

  it('does not reconnect after close(1000), and rejects pending acks', async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    let reconnecting = 0;
    client.on('reconnecting', () => reconnecting++);
    server.respond = () => {};
    const pendingAck = client.publish('media/u1/cam', new Uint8Array([1]), { ack: true });
    await server.frame((r) => !r.binary, 'the publish');
    const closed = next(client, 'close');
    const serverSaw = new Promise<number>((resolve) =>
      server.sockets[0]!.once('close', (code) => resolve(code)),
    );
    await within(client.close(1000), 'close');
    expect(await closed).toMatchObject({ code: 1000, willReconnect: false });
    await expect(within(pendingAck, 'ack rejection')).rejects.toMatchObject({ code: 'CLOSED' });
    expect(await within(serverSaw, 'server close')).toBe(1000);
    expect(client.readyState).toBe(WebSocket.CLOSED);
    expect(reconnecting).toBe(0);
    expect(server.sockets.length).toBe(1);
  });

  it.each([
    [4000, 'session ended'],
    [4403, 'removed'],
    [1008, 'policy'],
    [1000, 'bye'],
  ])('does not reconnect after a server close %i', async (code, reason) => {
    const client = await setup();
    await within(client.connect(), 'connect');
    let reconnecting = 0;
    client.on('reconnecting', () => reconnecting++);
    const closed = next(client, 'close');
    (await server.connection(0)).close(code, reason);
    expect(await closed).toEqual({ code, reason, willReconnect: false });
    expect(client.readyState).toBe(WebSocket.CLOSED);
    expect(reconnecting).toBe(0);
    // the client may be connected again explicitly
    await within(client.connect(), 'connect again');
    expect(server.sockets.length).toBe(2);
  });

  it('does not reconnect with reconnect: false', async () => {
    const client = await setup({ reconnect: false });
    await within(client.connect(), 'connect');
    const closed = next(client, 'close');
    (await server.connection(0)).terminate();
    expect(await closed).toMatchObject({ code: 1006, willReconnect: false });
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });

  it('gives up after maxRetries refused attempts', async () => {
    let n = 0;
    const client = await setup({
      token: () => (++n === 1 ? 'good' : 'bad'),
      reconnect: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 5 },
    });
    await within(client.connect(), 'connect');
    const closes: boolean[] = [];
    client.on('close', (c) => closes.push(c.willReconnect));
    const gaveUp = next(client, 'error', (e) => (e as LiveError).code === 'RECONNECT_FAILED');
    (await server.connection(0)).terminate();
    expect((await gaveUp).message).toMatch(/2 attempts/);
    expect(closes).toEqual([true, true, false]);
    expect(n).toBe(3);
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });

  it('close() during the backoff wait cancels the reconnect', async () => {
    const client = await setup({ reconnect: { maxRetries: 5, minDelayMs: 60_000, maxDelayMs: 60_000 } });
    await within(client.connect(), 'connect');
    const reconnecting = next(client, 'reconnecting');
    (await server.connection(0)).terminate();
    expect((await reconnecting).delayMs).toBeGreaterThanOrEqual(30_000);
    expect(client.readyState).toBe(WebSocket.CONNECTING);
    await within(client.close(), 'close');
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });

  it("close() from a 'close' listener stops the reconnect", async () => {
    const client = await setup();
    await within(client.connect(), 'connect');
    let reconnecting = 0;
    client.on('reconnecting', () => reconnecting++);
    const closed = next(client, 'close');
    client.on('close', () => void client.close());
    (await server.connection(0)).terminate();
    expect((await closed).willReconnect).toBe(true);
    expect(reconnecting).toBe(0);
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });

  it('close() while connecting rejects connect()', async () => {
    let release: (t: string) => void = () => {};
    const client = await setup({ token: () => new Promise<string>((resolve) => (release = resolve)) });
    const connecting = client.connect();
    await client.close();
    release('tok');
    await expect(within(connecting, 'connect')).rejects.toMatchObject({ code: 'CLOSED' });
    expect(server.sockets.length).toBe(0);
  });
});

describe('backoffDelay', () => {
  const opts = { maxRetries: 10, minDelayMs: 100, maxDelayMs: 1000 };
  it('grows exponentially with jitter between half and all of the step, capped', () => {
    expect(backoffDelay(1, opts, () => 0)).toBe(50);
    expect(backoffDelay(1, opts, () => 1)).toBe(100);
    expect(backoffDelay(3, opts, () => 0.5)).toBe(300);
    expect(backoffDelay(20, opts, () => 1)).toBe(1000);
    expect(backoffDelay(20, opts, () => 0)).toBe(500);
  });
});

describe('LiveClient: bad url', () => {
  it('rejects connect() when the WebSocket constructor throws', async () => {
    const client = new LiveClient({ url: 'not a url', session: 's', userId: 'u', token: 't', WebSocket });
    const closed = next(client, 'close');
    await expect(within(client.connect(), 'connect')).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    expect((await closed).willReconnect).toBe(false);
    expect(client.readyState).toBe(WebSocket.CLOSED);
  });
});
