// The prebuilt room at /embed/{projectId}, framed by other sites: only the project's embed origins
// may, its credential travels in the fragment, and the person in the frame joins the call.
import { createServer, type Server } from 'node:http';
import type { LiveClient } from '@vss/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  launchBrowser,
  newAccount,
  newContext,
  nodeLiveClient,
  poll,
  screenshot,
  startVss,
  type Vss,
} from './support/browser.js';

/** A new account's project id, API key headers, and one session of it. */
async function tenant(base: string) {
  const { projectId, secret, cookie } = await newAccount(base, 'embed');
  const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    return ((await res.json()) as { data: Record<string, string> }).data;
  };
  const sessionId = (await post('/v1/sessions', { name: 'Embedded' })).id!;
  const token = async (user: string, session = sessionId) =>
    (await post(`/v1/sessions/${session}/connection`, { user_id: user, display_name: user })).access_token!;
  return { projectId, auth, sessionId, token, post, cookie };
}

/** A site on its own origin whose page frames `src` as the embedding page should. */
function site(): Promise<{ server: Server; origin: string; frame(src: string): string }> {
  let src = '';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>A site</title><iframe src="${src}" allow="camera; microphone; display-capture; autoplay" style="width:900px;height:600px"></iframe>`,
    );
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      ok({
        server,
        origin,
        frame: (s) => {
          src = s;
          return origin;
        },
      });
    }),
  );
}

describeBrowser('the prebuilt room in an iframe', () => {
  let vss: Vss;
  let browser: Browser;
  let t: Awaited<ReturnType<typeof tenant>>;
  let listed: Awaited<ReturnType<typeof site>>;
  let unlisted: Awaited<ReturnType<typeof site>>;
  beforeAll(async () => {
    [vss, browser] = await Promise.all([startVss(), launchBrowser()]);
    t = await tenant(vss.base);
    [listed, unlisted] = await Promise.all([site(), site()]);
  });
  afterAll(async () => {
    listed?.server.close();
    unlisted?.server.close();
    await browser?.close();
    await vss?.stop();
  });

  const patch = (body: unknown) =>
    fetch(`${vss.base}/v1/projects/${t.projectId}`, {
      method: 'PATCH',
      headers: t.auth,
      body: JSON.stringify(body),
    });
  const origins = async () =>
    (
      (await (await fetch(`${vss.base}/v1/projects/${t.projectId}`, { headers: t.auth })).json()) as {
        data: { embed_origins: string[] };
      }
    ).data.embed_origins;

  it('embed_origins: each wrong entry is refused naming it, and nothing changes; a good list is kept', async () => {
    expect(await origins()).toEqual([]);
    const bad = [
      ['javascript:alert(1)'],
      ['https://app.example.com/path'],
      ['https://app.example.com/'],
      ['https://*.example.com'],
      ['http://app.example.com'],
      ['https://user:pw@app.example.com'],
      Array.from({ length: 21 }, (_, i) => `https://a${i}.example.com`),
    ];
    for (const list of bad) {
      const res = await patch({ embed_origins: list });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status, JSON.stringify(list)).toBe(400);
      expect(body.error.message, JSON.stringify(list)).toContain('embed_origins');
    }
    expect(await origins()).toEqual([]);
    const ok = await patch({ embed_origins: [listed.origin, 'https://app.example.com', listed.origin] });
    expect(ok.status).toBe(200);
    expect(await origins()).toEqual([listed.origin, 'https://app.example.com']);
  });

  it('a listed site frames the room and its person is seen by the others; an unlisted one is refused and nobody joins', async () => {
    await patch({ embed_origins: [listed.origin] });
    const watcher: LiveClient = nodeLiveClient(vss.base, t.sessionId, 'watcher', () => t.token('watcher'));
    const joined = new Set<string>();
    const video = new Set<string>();
    watcher.on('control', (c) => {
      if (c.event === 'join') joined.add(c.user_id);
    });
    watcher.on('message', (m) => void (m.streamType.endsWith('/cam') && video.add(m.streamType)));
    await watcher.connect();

    // Every other page keeps refusing to be framed; the room's page allows the listed site only.
    const csp = async (path: string) =>
      (await fetch(`${vss.base}${path}`)).headers.get('content-security-policy');
    expect(await csp('/')).toContain("frame-ancestors 'none'");
    expect(await csp('/sessions')).toContain("frame-ancestors 'none'");
    expect(await csp(`/embed/${t.projectId}`)).toContain(`frame-ancestors ${listed.origin}`);
    expect((await fetch(`${vss.base}/embed/no-such-project`)).status).toBe(404);

    const ann = await (await newContext(browser, listed.origin)).newPage();
    await ann.goto(listed.frame(`${vss.base}/embed/${t.projectId}#token=${await t.token('app-ann')}`));
    const frame = ann.frameLocator('iframe');
    await frame.locator('.vss-room').waitFor({ timeout: 30_000 });
    await poll(() => joined.has('app-ann')).toBe(true);
    await poll(() => video.has('media/app-ann/cam')).toBe(true);
    // The token left the frame's address at once.
    await poll(() => ann.frames()[1]?.url() ?? '').not.toContain('#token=');
    await screenshot(ann, 'embed');

    const ben = await (await newContext(browser, unlisted.origin)).newPage();
    await ben.goto(unlisted.frame(`${vss.base}/embed/${t.projectId}#token=${await t.token('app-ben')}`));
    // The browser refuses to render it: the frame shows its own error page, and no script of ours ran.
    await poll(() => ben.frames()[1]?.url() ?? '').toMatch(/^chrome-error:/);
    expect(await ben.frameLocator('iframe').locator('.vss-room').count()).toBe(0);
    expect(joined.has('app-ben')).toBe(false);
    await watcher.close();
    await ann.context().close();
    await ben.context().close();
  });

  it("the dashboard's Projects page edits the list, and says a wrong line in words", async () => {
    const ctx = await newContext(browser, vss.base);
    await ctx.addCookies([{ name: 'service_session', value: t.cookie, url: vss.base }]);
    const page = await ctx.newPage();
    await page.goto('/projects');
    await page.getByRole('button', { name: 'Embedding settings of Default' }).click();
    const sites = page.getByLabel("Sites that may show this project's room in a frame");
    await sites.fill('https://app.example.com\n\nhttps://app.example.com/call');
    await page.getByRole('button', { name: 'Save sites' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const words = (await alert.textContent()) ?? '';
    // eslint-disable-next-line no-console -- what a person reads, for whoever reads the run
    console.log(`[embed] the dashboard says: ${words}`);
    expect(words).toContain('Line 3: "https://app.example.com/call" is not an origin');
    expect(words).not.toContain('body.');
    await sites.fill(`https://app.example.com\n${listed.origin}`);
    await page.getByRole('button', { name: 'Save sites' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await origins()).toEqual(['https://app.example.com', listed.origin]);
    await screenshot(page, 'projects-embedding');
    await ctx.close();
  });

  it('#join=: a guest gives a name, joins, and is seen under it', async () => {
    await patch({ embed_origins: [listed.origin] });
    // A session of its own: the first one ended once its people left.
    const session = (await t.post('/v1/sessions', { name: 'Guests' })).id!;
    const link = await t.post(`/v1/sessions/${session}/join-links`, {});
    const watcher = nodeLiveClient(vss.base, session, 'watcher-2', () => t.token('watcher-2', session));
    const names = new Map<string, string>();
    watcher.on('control', (c) => {
      const name = (c.data as { display_name?: string } | null)?.display_name;
      if (c.event === 'join' && name) names.set(c.user_id, name);
    });
    await watcher.connect();
    const page = await (await newContext(browser, listed.origin)).newPage();
    await page.goto(listed.frame(`${vss.base}/embed/${t.projectId}#join=${link.token}`));
    const frame = page.frameLocator('iframe');
    await frame.getByLabel('Your name').fill('Dora');
    await frame.getByRole('button', { name: 'Join' }).click();
    await frame.locator('.vss-room').waitFor({ timeout: 30_000 });
    await poll(() => [...names.values()]).toContain('Dora');
    expect([...names.keys()].find((u) => names.get(u) === 'Dora')).toMatch(/^guest-/);
    await watcher.close();
    await page.context().close();
  });
});
