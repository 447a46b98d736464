import type { LiveClient } from '@vss/client';
import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { evc1, opusPackets, vpxChunks } from '../../server/test/support/media.js';
import { eventually } from '../../server/test/support/wait.js';
import {
  describeBrowser,
  nodeLiveClient,
  newContext,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** Seconds of media each participant publishes. */
const SECONDS = 6;

/** Calls the API with an API key; returns the envelope's data, throwing on an error answer. */
async function call(vss: Vss, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${vss.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** One message of the recording plan, `atMs` after the start. */
interface Planned {
  user: string;
  atMs: number;
  send(c: LiveClient, ts: number): Promise<unknown>;
}

/** A participant's camera (VP8 of one colour) and microphone (an Opus tone), as planned messages. */
async function camAndMic(user: string, colour: string, tone: number): Promise<Planned[]> {
  const [video, audio] = await Promise.all([vpxChunks('vp8', colour, SECONDS), opusPackets(tone, SECONDS)]);
  const plan = (stream: string, codec: string, chunks: typeof video): Planned[] =>
    chunks.map((c) => ({
      user,
      atMs: c.offsetUs / 1000,
      send: (client, ts) =>
        client.publish(`media/${user}/${stream}`, evc1(codec, c, ts * 1000), {
          timestampMs: ts,
          binary: true,
        }),
    }));
  return [...plan('cam', 'vp8', video), ...plan('mic', 'opus', audio)];
}

/**
 * Records a session with two participants over the real WebSocket: alice (red camera) and bob
 * (blue camera), each with a microphone, a chat message each and a director switch to the
 * presenter layout focused on bob. Messages go out at the pace of a live session, with their
 * media timestamps, and the function returns once the server has ended the session.
 */
async function recordTwo(vss: Vss, key: string, sessionId: string): Promise<void> {
  const talk: Planned[] = [
    { user: 'alice', atMs: 1000, send: (c, ts) => c.publishChat('Hello from Alice', { timestampMs: ts }) },
    { user: 'bob', atMs: 2500, send: (c, ts) => c.publishChat('Hi Alice, Bob here', { timestampMs: ts }) },
    {
      user: 'alice',
      atMs: 4500,
      send: async (c, ts) => {
        await c.publishDirector(
          { type: 'director.layout', data: { layout: 'presenter' } },
          { timestampMs: ts },
        );
        await c.publishDirector({ type: 'director.focus', data: { user_id: 'bob' } }, { timestampMs: ts });
      },
    },
  ];
  const plan = [
    ...(await camAndMic('alice', 'red', 440)),
    ...(await camAndMic('bob', 'blue', 660)),
    ...talk,
  ].sort((a, b) => a.atMs - b.atMs);
  const clients = new Map<string, LiveClient>();
  for (const user of ['alice', 'bob']) {
    const c = nodeLiveClient(
      vss.base,
      sessionId,
      user,
      async () =>
        (await call(vss, key, 'POST', `/v1/sessions/${sessionId}/connection`, { user_id: user }))
          .access_token,
    );
    await c.connect();
    clients.set(user, c);
  }
  const t0 = Date.now();
  for (const m of plan) {
    // A live publisher's cadence: each message leaves when its moment comes.
    const due = t0 + m.atMs - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    await m.send(clients.get(m.user)!, t0 + m.atMs);
  }
  // An acknowledged message is durably written, and everything sent before it on that connection.
  for (const c of clients.values()) await c.publishChat('bye', { ack: true });
  for (const c of clients.values()) await c.close();
  await eventually(
    async () => (await call(vss, key, 'GET', `/v1/sessions/${sessionId}`)).ended_at,
    20_000,
    'the session to end',
  );
}

/** The colour at the centre of a participant's tile, or null while nothing is drawn. */
function tileColour(page: Page, user: string): Promise<number[] | null> {
  return page.getByRole('img', { name: `Video of ${user}` }).evaluate((c: HTMLCanvasElement) => {
    const ctx = c.getContext('2d');
    if (!ctx || !c.width) return null;
    const d = ctx.getImageData(Math.floor(c.width / 2), Math.floor(c.height / 2), 1, 1).data;
    return d[3] ? [d[0]!, d[1]!, d[2]!] : null;
  });
}

const isRed = (c: number[] | null) => !!c && c[0]! > 150 && c[1]! < 100 && c[2]! < 100;
const isBlue = (c: number[] | null) => !!c && c[2]! > 150 && c[0]! < 100 && c[1]! < 100;

/** Waits until alice's tile shows red and bob's blue. */
async function bothDrawn(page: Page): Promise<void> {
  await expect.poll(() => tileColour(page, 'alice'), { timeout: 15_000 }).toSatisfy(isRed);
  await expect.poll(() => tileColour(page, 'bob'), { timeout: 15_000 }).toSatisfy(isBlue);
}

const position = async (page: Page) =>
  Number(await page.getByRole('slider', { name: 'Position' }).inputValue());

describeBrowser('replay and the public pages, in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  let key: string;
  let sessionId: string;
  let link: string;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('plays a two-person recording: both tiles, chat, director, seeking and speed', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    // An API key of the new account's project, made with its cookie from the page (same origin).
    key = await page.evaluate(async () => {
      const projects = await (await fetch('/v1/projects')).json();
      const res = await fetch(`/v1/projects/${projects.data[0].id}/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'replay test' }),
      });
      return (await res.json()).data.secret as string;
    });
    sessionId = (await call(vss, key, 'POST', '/v1/sessions', { name: 'Team sync' })).id;
    await recordTwo(vss, key, sessionId);

    await page.goto(`/sessions/${sessionId}/replay`);
    await page.getByRole('heading', { name: 'Replay: Team sync' }).waitFor();
    await page.getByRole('link', { name: 'Back to session' }).waitFor();
    // Paused at the start: no chat yet, and each tile shows its first picture rather than black.
    await page.getByText('No messages up to this point.').waitFor();
    await bothDrawn(page);
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const chat = page.getByRole('log', { name: 'Chat messages' });
    await chat.getByText('Hello from Alice').waitFor();
    // The time is shown, but not in a live region that would read it out ten times a second.
    await page.getByText(/^\d+:\d\d \/ \d+:\d\d$/).waitFor();
    expect(
      await page
        .getByRole('status')
        .filter({ hasText: /\d:\d\d \/ / })
        .count(),
    ).toBe(0);
    await chat.getByText('Hi Alice, Bob here').waitFor();
    expect(await position(page)).toBeGreaterThanOrEqual(2500);
    await bothDrawn(page);
    await screenshot(page, 'replay');
    // The director's switch at 4.5 s: presenter layout, bob in focus.
    await page.getByRole('group', { name: 'Participants, presenter layout' }).waitFor();
    await expect.poll(() => page.getByText('(in focus)').count()).toBe(1);
    // bob's camera is the large tile (the rule the export follows: no screen shared, the focus).
    await expect
      .poll(() => page.locator('.tile.main').getByRole('img').getAttribute('aria-label'))
      .toBe('Video of bob');
    // The timeline lists the joins, as markers and as buttons.
    await page.getByRole('button', { name: /alice joined/ }).waitFor();
    await page.getByRole('button', { name: /bob joined/ }).waitFor();

    // Played to the end, it stops there and offers to play again.
    await page.getByRole('button', { name: 'Play again' }).waitFor({ timeout: 10_000 });
    // The recording ends at the last leave, not when the session ended after the departure wait
    // (SESSION_DEPARTURE_TIMEOUT_S): the time bar is as long as the manifest says.
    const manifest = await call(vss, key, 'GET', `/v1/sessions/${sessionId}/manifest`);
    const timeline: Array<{ type: string; ts: number }> = await call(
      vss,
      key,
      'GET',
      `/v1/sessions/${sessionId}/timeline`,
    );
    const lastLeave = Math.max(...timeline.filter((e) => e.type === 'participant.left').map((e) => e.ts));
    expect(manifest.end_ts).toBe(lastLeave);
    expect(Number(await page.getByRole('slider', { name: 'Position' }).getAttribute('max'))).toBe(
      manifest.end_ts - manifest.start_ts,
    );

    // Seek back while stopped: the chat follows the playhead, the pictures are decoded again.
    const slider = page.getByRole('slider', { name: 'Position' });
    await slider.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => position(page)).toBe(0);
    await page.getByText('No messages up to this point.').waitFor();
    await page.getByRole('group', { name: 'Participants, grid layout' }).waitFor();
    await slider.fill('2000');
    await chat.getByText('Hello from Alice').waitFor();
    expect(await chat.getByText('Hi Alice, Bob here').count()).toBe(0);
    await bothDrawn(page);

    // 2×: the playhead covers 1.5 s of recording in well under 1.5 s, and sound is muted.
    await page.getByLabel('Speed').selectOption('2');
    await page.getByText('Sound is muted at speeds other than 1×').waitFor();
    const from = await position(page);
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const started = Date.now();
    await expect
      .poll(() => position(page), { timeout: 5000, interval: 50 })
      .toBeGreaterThanOrEqual(from + 1500);
    expect(Date.now() - started).toBeLessThan(1400);
    await chat.getByText('Hi Alice, Bob here').waitFor();
    await page.getByRole('button', { name: 'Play again' }).waitFor({ timeout: 10_000 });
    await context.close();
  }, 120_000);

  it('plays a replay link in a fresh browser with no account, and explains a bad or revoked one', async () => {
    link = (await call(vss, key, 'POST', `/v1/sessions/${sessionId}/replay-links`, {})).link;
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    // A visitor is not asked for an account it does not have: no request is refused on the way.
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 401) refused.push(r.url());
    });
    await page.goto(link);
    // The page says which session it plays.
    await page.getByRole('heading', { name: 'Team sync' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    // The whole timeline is listed before playing, as for a signed-in user: the leaves at the end
    // of the recording too, not only what the first windows read hold.
    await page.getByRole('button', { name: /alice left/ }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: /bob left/ }).waitFor();
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await bothDrawn(page);
    await page.getByRole('log', { name: 'Chat messages' }).getByText('Hello from Alice').waitFor();
    expect(await position(page)).toBeGreaterThan(0);
    expect(refused).toEqual([]);

    // A tampered token, then the real one once every link of the session is revoked.
    await page.goto(link.replace(/token=(.)/, (_, c: string) => `token=${c === 'a' ? 'b' : 'a'}`));
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/expired or was revoked/);
    await call(vss, key, 'DELETE', `/v1/sessions/${sessionId}/replay-links`);
    await page.goto(link);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/expired or was revoked/);
    expect(await page.getByRole('img', { name: /Video of/ }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it('lists public sessions at /watch and plays them with no account; a private one is not found', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await page.goto('/watch');
    await page.getByText('No public sessions yet').waitFor();
    await call(vss, key, 'PUT', `/v1/sessions/${sessionId}/visibility`, { is_public: true });
    const hidden = (await call(vss, key, 'POST', '/v1/sessions', { name: 'Private talk' })).id;
    await page.reload();
    await page.getByRole('link', { name: 'Team sync' }).waitFor();
    expect(await page.getByRole('link', { name: 'Private talk' }).count()).toBe(0);
    await screenshot(page, 'watch');
    await page.getByRole('link', { name: 'Team sync' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/watch/${sessionId}`);
    await page.getByRole('heading', { name: 'Team sync' }).waitFor();
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await bothDrawn(page);
    await page.getByRole('log', { name: 'Chat messages' }).getByText('Hello from Alice').waitFor();

    // At phone width the player fits: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 800 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(375);

    await page.goto(`/watch/${hidden}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not public, or does not exist/);
    await context.close();
  }, 60_000);
});
