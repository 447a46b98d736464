import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { WebSocket } from 'ws';
import { VssClient, VssError, type DataOf, type Schemas, type WebhookPayload } from '../src/index.js';
import { startApp, type TestApp } from '../../server/test/support/app.js';
import { freePort, httpTenant } from '../../server/test/support/process.js';

let t: TestApp;
let baseUrl = '';
let key = '';

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startApp({ env: { PUBLIC_BASE_URL: baseUrl, RATE_LIMIT_PER_KEY: '60' } });
  await t.app.listen({ port, host: '127.0.0.1' });
  key = (await httpTenant(baseUrl)).key;
});
afterAll(() => t?.close());

/** fetch that lets each request reach the server, then loses the first `drop` answers on the way back. */
function lossyFetch(drop: number) {
  const seen: Request[] = [];
  const f = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(req.clone());
    const res = await fetch(req);
    if (seen.length <= drop) {
      await res.body?.cancel();
      throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    }
    return res;
  };
  return { fetch: f as typeof fetch, seen };
}

describe('VssClient', () => {
  it('answers the envelope data with its types, and lists page by page through Link', async () => {
    const vss = new VssClient({ baseUrl, apiKey: key });
    const created = await vss.post('/v1/sessions', { body: { name: 'typed' } });
    expect(created).toMatchObject({ name: 'typed', started_at: null, is_public: false });
    const got = await vss.get('/v1/sessions/{sessionId}', { params: { path: { sessionId: created.id } } });
    expect(got.id).toBe(created.id);

    for (let i = 0; i < 4; i += 1) await vss.post('/v1/sessions', { body: { name: `s${i}` } });
    const page = await vss.page('/v1/sessions', { params: { query: { limit: 2 } } });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));
    const names: string[] = [];
    for await (const s of vss.list('/v1/sessions', { params: { query: { limit: 2 } } })) names.push(s.name);
    expect(names).toEqual(['s3', 's2', 's1', 's0', 'typed']);
  });

  it('throws VssError with the API code, message and status', async () => {
    const vss = new VssClient({ baseUrl, apiKey: key });
    const missing = await vss
      .get('/v1/sessions/{sessionId}', {
        params: { path: { sessionId: '01900000-0000-7000-8000-000000000000' } },
      })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(VssError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404 });

    const bad = (await vss
      .post('/v1/sessions', { body: { name: 'x'.repeat(201) } })
      .catch((e: unknown) => e)) as VssError;
    expect(bad).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(bad.message).toContain('name');

    const wrong = new VssClient({ baseUrl, apiKey: 'sk_live_wrong' });
    await expect(wrong.get('/v1/sessions')).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('retries a create whose answer was lost with the same Idempotency-Key: one session, replayed', async () => {
    const lossy = lossyFetch(1);
    const vss = new VssClient({ baseUrl, apiKey: key, fetch: lossy.fetch, retry: { minDelayMs: 1 } });
    const { data, response } = await vss.request('post', '/v1/sessions', { body: { name: 'exactly once' } });
    expect(lossy.seen).toHaveLength(2);
    const keys = lossy.seen.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const all = [];
    for await (const s of new VssClient({ baseUrl, apiKey: key }).list('/v1/sessions', {
      params: { query: { limit: 200 } },
    }))
      if (s.name === 'exactly once') all.push(s.id);
    expect(all).toEqual([data.id]);
  });

  it('does not retry a POST that is not idempotent, and says there was no answer', async () => {
    const vss = new VssClient({ baseUrl, apiKey: key });
    const hook = await vss.post('/v1/webhooks', {
      body: { url: 'https://example.com/hook', events: ['session.created'] },
    });
    const lossy = lossyFetch(1);
    const flaky = new VssClient({ baseUrl, apiKey: key, fetch: lossy.fetch, retry: { minDelayMs: 1 } });
    const err = (await flaky
      .post('/v1/webhooks/{webhookId}/rotate-secret', { params: { path: { webhookId: hook.id } } })
      .catch((e: unknown) => e)) as VssError;
    expect(lossy.seen).toHaveLength(1);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
    expect(err.message).toBe(`no answer from ${baseUrl} (ECONNRESET)`);
    // A GET is safe to repeat: retried.
    const again = lossyFetch(2);
    const reader = new VssClient({ baseUrl, apiKey: key, fetch: again.fetch, retry: { minDelayMs: 1 } });
    expect(
      (await reader.get('/v1/webhooks/{webhookId}', { params: { path: { webhookId: hook.id } } })).id,
    ).toBe(hook.id);
    expect(again.seen).toHaveLength(3);
  });

  it('asks projectId at each request, as a page whose chosen project changes; a signal aborts a call', async () => {
    const { project_id } = await new VssClient({ baseUrl, apiKey: key }).post('/v1/sessions', {
      body: { name: 'which project' },
    });
    const seen: Request[] = [];
    const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      seen.push(req.clone());
      return fetch(req);
    }) as typeof fetch;
    let chosen: string | null = null;
    const vss = new VssClient({
      baseUrl,
      apiKey: key,
      credentials: 'include',
      projectId: () => chosen,
      fetch: recording,
    });
    await vss.get('/v1/sessions');
    chosen = project_id;
    const listed = await vss.get('/v1/sessions', { params: { query: { limit: 200 } } });
    expect(listed.map((s) => s.project_id)).toContain(project_id);
    expect(seen.map((r) => r.headers.get('x-project-id'))).toEqual([null, project_id]);
    expect(seen.every((r) => r.credentials === 'include')).toBe(true);

    const ctl = new AbortController();
    ctl.abort();
    await expect(vss.get('/v1/sessions', { signal: ctl.signal })).rejects.toMatchObject({
      code: 'ABORTED',
      status: 0,
    });
  });

  it('returns 429 as RATE_LIMITED with Retry-After instead of waiting longer than allowed', async () => {
    const other = (await httpTenant(baseUrl)).key;
    const vss = new VssClient({ baseUrl, apiKey: other, retry: { maxDelayMs: 10 } });
    let err: VssError | undefined;
    for (let i = 0; i < 70 && !err; i += 1)
      err = await vss.get('/v1/sessions').then(
        () => undefined,
        (e: VssError) => e,
      );
    expect(err).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(err!.retryAfterS).toBeGreaterThan(0);
  });

  it('joins a live session with a minted token and gets a durable ack', async () => {
    const vss = new VssClient({ baseUrl, apiKey: key });
    const session = await vss.post('/v1/sessions', { body: { name: 'live' } });
    const live = vss.live({
      sessionId: session.id,
      userId: 'alice',
      WebSocket: WebSocket as never,
      reconnect: false,
    });
    const welcome = await live.connect();
    expect(welcome.event).toBe('welcome');
    expect(await live.publishChat('hello', { ack: true })).toBeGreaterThan(0);
    await live.close();
  });

  it('names the webhook payloads: session events carry the session', () => {
    expectTypeOf<WebhookPayload<'session.ended'>['data']>().toEqualTypeOf<Schemas['Session']>();
    expectTypeOf<WebhookPayload<'export.completed'>['data']>().toEqualTypeOf<Schemas['ExportJob']>();
    expectTypeOf<WebhookPayload<'session.created'>['type']>().toEqualTypeOf<'session.created'>();
  });

  it('refuses a misspelt route, field or option when it compiles (npm run check type-checks this file)', () => {
    const vss = new VssClient({ baseUrl, apiKey: key });
    const typos = () => {
      // @ts-expect-error: `nam` is not a field of a session
      void vss.post('/v1/sessions', { body: { nam: 'x' } });
      // @ts-expect-error: `parms` is not an option of a call
      void vss.get('/v1/sessions', { parms: { query: { limit: 5 } } });
      // @ts-expect-error: `limt` is not a query parameter of the list
      void vss.get('/v1/sessions', { params: { query: { limt: 5 } } });
      // @ts-expect-error: there is no such route
      void vss.get('/v1/sesions');
      // @ts-expect-error: the session id is required
      void vss.get('/v1/sessions/{sessionId}');
    };
    expectTypeOf(typos).toBeFunction();
    expectTypeOf<DataOf<'/v1/exports/{jobId}/download', 'get'>>().toEqualTypeOf<undefined>();
  });
});
