import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vss } from './support.js';

/** Terminal escapes a name could carry: a window title (OSC … BEL), clear screen, carriage return, CSI in 8 bits, DEL. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\r\u009b31m\u007fend';
/** Anything a terminal acts on: C0 but newline and tab, DEL, C1. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const session = (id: string, name: string) => ({
  id,
  project_id: '00000000-0000-4000-8000-000000000001',
  name,
  is_public: false,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  ended_at: null,
});

/**
 * A local server speaking the API's envelope as a hostile or broken server would: session names
 * with terminal escapes, an error message with them, and a list whose next page is always itself.
 */
let server: Server;
let baseUrl = '';
const requests: string[] = [];
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    requests.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v1/sessions' && url.searchParams.get('limit') === '1')
      // The same cursor, page after page.
      return send(
        200,
        { data: [session(`a${requests.length}`, 'looping')], error: null },
        {
          link: `<${baseUrl}/v1/sessions?limit=1&cursor=same>; rel="next"`,
        },
      );
    if (url.pathname === '/v1/sessions') return send(200, { data: [session('s1', HOSTILE)], error: null });
    if (url.pathname === '/v1/sessions/s1') return send(200, { data: session('s1', HOSTILE), error: null });
    return send(404, { data: null, error: { code: 'NOT_FOUND', message: `no such thing ${HOSTILE}` } });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const env = () => ({
  VSS_BASE_URL: baseUrl,
  VSS_API_KEY: 'sk_live_anything',
  VSS_CONFIG: '/nonexistent/vss.json',
});

describe('what a server sends is never written raw to the terminal', () => {
  it('escapes control characters in tables, one-object output, JSON and error lines', async () => {
    const list = await vss(['sessions', 'list'], { env: env() });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(CONTROL);
    // What was there is still shown, readably.
    expect(list.stdout).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\r');
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);

    const one = await vss(['sessions', 'get', 's1'], { env: env() });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).not.toMatch(CONTROL);
    expect(one.stdout).toContain('pwned');

    const json = await vss(['--json', 'sessions', 'list'], { env: env() });
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(CONTROL);
    // Still the same value for a script.
    expect(JSON.parse(json.stdout)[0].name).toBe(HOSTILE);

    const failed = await vss(['sessions', 'get', 'missing'], { env: env() });
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(CONTROL);
    expect(failed.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): no such thing /);
  });

  it('--all stops with an error when the server gives the same cursor again', async () => {
    const before = requests.length;
    const r = await vss(['sessions', 'list', '--all', '--limit', '1'], { env: env(), timeoutMs: 20_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^vss: .*cursor.*again/);
    expect(r.stdout).toBe('');
    // The first page, the page the cursor named, and no more.
    expect(requests.length - before).toBe(2);
  });
});
