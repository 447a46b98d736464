import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { eventually, join as joinLive, jpeg, leave, listen, publish } from './support/live.js';

/** An answer as read off the socket: the bytes a terminal running curl shows. */
interface Wire {
  status: number;
  type: string;
  length: string | null;
  body: Buffer;
}

/**
 * Every JSON answer ends with one newline, so that two answers printed one after the other
 * (`curl …; curl …`) start on lines of their own. Read over a real socket: Content-Length must
 * count the newline, or a client would stop short of it or wait for a byte that never comes.
 */
describe('JSON answers end with a newline', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;

  const get = async (path: string, init: RequestInit = {}): Promise<Wire> => {
    const res = await fetch(`${base}${path}`, init);
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      length: res.headers.get('content-length'),
      body: Buffer.from(await res.arrayBuffer()),
    };
  };
  const auth = () => ({ authorization: `Bearer ${a.key}` });

  /** Ends with exactly one "\n", parses as JSON, and Content-Length (when sent) counts every byte. */
  const expectLine = (res: Wire) => {
    const text = res.body.toString('utf8');
    expect(res.type).toMatch(/^application\/json/);
    expect(text.endsWith('\n'), JSON.stringify(text.slice(-20))).toBe(true);
    expect(text.endsWith('\n\n'), JSON.stringify(text.slice(-20))).toBe(false);
    if (res.length !== null) expect(Number(res.length)).toBe(res.body.length);
    return JSON.parse(text);
  };

  beforeAll(async () => {
    t = await startApp({ env: { LIVE_CLOCK_SKEW_S: '86400', SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    base = (await listen(t)).replace(/^ws:/, 'http:');
  });
  afterAll(() => t.close());

  it('ends a success envelope with a newline', async () => {
    const res = await get('/v1/sessions', { headers: auth() });
    expect(res.status).toBe(200);
    expect(expectLine(res)).toEqual({ data: [], error: null });
    const made = await get('/v1/sessions', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'with a newline' }),
    });
    expect(made.status).toBe(201);
    expect(expectLine(made).data.name).toBe('with a newline');
  });

  it('ends an error envelope with a newline: a refusal of a route, an unknown route, a bad body, a body too large, an unroutable path', async () => {
    const badField = await get('/v1/sessions', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 7 }),
    });
    expect(badField.status).toBe(400);
    expect(expectLine(badField).error.message).toBe('body.name must be a string');

    const noKey = await get('/v1/sessions');
    expect(noKey.status).toBe(401);
    expectLine(noKey);

    const unknown = await get('/v1/does-not-exist', { headers: auth() });
    expect(unknown.status).toBe(404);
    expect(expectLine(unknown).error.code).toBe('NOT_FOUND');

    const wrongMethod = await get('/v1/projects', { method: 'DELETE', headers: auth() });
    expect(wrongMethod.status).toBe(405);
    expectLine(wrongMethod);

    const notJson = await get('/v1/sessions', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(notJson.status).toBe(400);
    expect(expectLine(notJson).error.message).toMatch(/not valid JSON/);

    const tooLarge = await get('/v1/sessions', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
    });
    expect(tooLarge.status).toBe(413);
    expect(expectLine(tooLarge).error.code).toBe('PAYLOAD_TOO_LARGE');

    const badEncoding = await get('/v1/sessions/%zz', { headers: auth() });
    expect(badEncoding.status).toBe(400);
    expect(expectLine(badEncoding).error.message).toMatch(/percent-encoding/);
  });

  it('ends the refusal of a request that is not HTTP with a newline', async () => {
    const { port } = new URL(base);
    const text = await new Promise<string>((ok, fail) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('error', fail);
      socket.on('close', () => ok(got));
    });
    const head = text.slice(0, text.indexOf('\r\n\r\n'));
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(head).toMatch(/^HTTP\/1\.1 400/);
    expect(Number(/content-length: (\d+)/i.exec(head)?.[1])).toBe(Buffer.byteLength(body));
    expect(body.endsWith('}\n')).toBe(true);
    expect(JSON.parse(body).error.code).toBe('BAD_REQUEST');
  });

  it('ends a streamed playback answer with a newline, with events and without', async () => {
    const s = await createSession(t, a.key, 'streamed');
    const empty = await get(`/v1/sessions/${s.id}/playback?from_ts=0`, { headers: auth() });
    expect(empty.status).toBe(200);
    expect(expectLine(empty).data.events).toEqual([]);

    const t0 = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    const alice = await joinLive(t, a.key, s.id, 'alice');
    for (let i = 0; i < 5; i++)
      alice.send(publish('media/alice/cam', jpeg(i, 2000), { timestamp_ms: t0 + i * 100, id: `f${i}` }));
    await alice.waitFor((m) => m.event === 'ack' && m.data.id === 'f4', 20_000);
    await leave(alice);
    const played = await eventually(
      async () => {
        const res = await get(`/v1/sessions/${s.id}/playback?from_ts=${t0}&window_size=60000`, {
          headers: auth(),
        });
        return res.status === 200 && res.body.includes('"body_base64"') ? res : undefined;
      },
      10_000,
      'playback with events',
    );
    const events = expectLine(played).data.events as Array<{ stream_id: string }>;
    expect(events.filter((e) => e.stream_id === 'media/alice/cam')).toHaveLength(5);
    // Streamed in chunks: no Content-Length, the last chunk carries the newline.
    expect(played.length).toBeNull();
  });

  it('keeps the body the same through inject, as tests and in-process callers read it', async () => {
    const res = await call(t, 'GET', '/v1/sessions', { key: a.key });
    expect(res.raw).toBe(`${JSON.stringify(res.body)}\n`);
  });
});
