import { WebSocket } from 'ws';
import { call, type TestApp } from './app.js';

export { eventually } from './wait.js';

/** What a test socket has received, in order. */
export interface Received {
  text: Array<Record<string, any>>;
  binary: Buffer[];
}

/** A real WebSocket client of the app, recording everything it receives. */
export interface TestSocket {
  ws: WebSocket;
  received: Received;
  /** Resolves with the first received JSON message matching, waiting up to `ms`. */
  waitFor(pred: (m: Record<string, any>) => boolean, ms?: number): Promise<Record<string, any>>;
  /** Resolves once `n` JSON messages match. */
  waitForCount(
    pred: (m: Record<string, any>) => boolean,
    n: number,
    ms?: number,
  ): Promise<Array<Record<string, any>>>;
  send(obj: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** The app listening on a real port (once per app). */
export async function listen(t: TestApp): Promise<string> {
  const address = t.app.server.address();
  if (address && typeof address === 'object') return `ws://127.0.0.1:${address.port}`;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const a = t.app.server.address() as { port: number };
  return `ws://127.0.0.1:${a.port}`;
}

/** A connection token through the API. */
export async function token(
  t: TestApp,
  key: string,
  sessionId: string,
  userId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await call(t, 'POST', `/v1/sessions/${sessionId}/connection`, {
    key,
    body: { user_id: userId, ...extra },
  });
  if (res.status !== 200) throw new Error(`connection failed: ${res.raw}`);
  return res.body.data.access_token;
}

/** Opens a socket to `base` with the query; rejects with the HTTP status if the upgrade is refused. */
export function openSocket(
  base: string,
  query: Record<string, string>,
  options: { autoPong?: boolean } = {},
): Promise<TestSocket> {
  const qs = new URLSearchParams(query).toString();
  const ws = new WebSocket(`${base}/ws?${qs}`, {
    perMessageDeflate: false,
    // An upgrade the server never answers fails the test with a reason rather than hanging it.
    handshakeTimeout: 15_000,
    autoPong: options.autoPong ?? true,
  });
  const received: Received = { text: [], binary: [] };
  const waiters = new Set<() => void>();
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) received.binary.push(Buffer.from(data));
    else received.text.push(JSON.parse(data.toString('utf8')));
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((ok) =>
    ws.on('close', (code, reason) => {
      ok({ code, reason: reason.toString() });
      for (const w of waiters) w();
    }),
  );
  const waitForCount = (pred: (m: Record<string, any>) => boolean, n: number, ms = 10_000) =>
    new Promise<Array<Record<string, any>>>((ok, fail) => {
      const check = () => {
        const hits = received.text.filter(pred);
        if (hits.length >= n) {
          waiters.delete(check);
          clearTimeout(timer);
          ok(hits);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        fail(
          new Error(
            `timed out: ${received.text.filter(pred).length}/${n} messages; last: ${JSON.stringify(received.text.slice(-3)).slice(0, 600)}`,
          ),
        );
      }, ms);
      waiters.add(check);
      check();
    });
  const socket: TestSocket = {
    ws,
    received,
    waitFor: async (pred, ms) => (await waitForCount(pred, 1, ms))[0]!,
    waitForCount,
    send: (obj) => ws.send(JSON.stringify(obj)),
    closed,
  };
  return new Promise((ok, fail) => {
    ws.once('open', () => ok(socket));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () =>
        fail(
          Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), {
            status: res.statusCode,
            body,
          }),
        ),
      );
    });
    ws.once('error', (err) => fail(err));
  });
}

/** Joins a session live as `userId`, waiting for the welcome. */
export async function join(
  t: TestApp,
  key: string,
  sessionId: string,
  userId: string,
  format?: 'binary',
): Promise<TestSocket> {
  const base = await listen(t);
  const access_token = await token(t, key, sessionId, userId);
  const s = await openSocket(base, {
    session: sessionId,
    access_token,
    user_id: userId,
    ...(format ? { format } : {}),
  });
  await s.waitFor((m) => m.type === 'control' && m.event === 'welcome');
  return s;
}

/** Closes a socket and waits for the close to complete. */
export async function leave(s: TestSocket): Promise<void> {
  s.ws.close(1000);
  await s.closed;
}

/** A small valid JPEG-looking payload (SOI marker, then bytes) distinguishable by `n`. */
export function jpeg(n: number, size = 64): Buffer {
  const b = Buffer.alloc(size, n & 0xff);
  b[0] = 0xff;
  b[1] = 0xd8;
  b[2] = 0xff;
  b[3] = 0xe0;
  b.writeUInt32BE(n, 4);
  b[size - 2] = 0xff;
  b[size - 1] = 0xd9;
  return b;
}

/** A publish frame (JSON) of bytes. */
export function publish(streamType: string, payload: Buffer, extra: Record<string, unknown> = {}) {
  return { type: 'publish', stream_type: streamType, body: payload.toString('base64'), ...extra };
}
