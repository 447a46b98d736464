import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import {
  CHROMIUM,
  describeBrowser,
  newContext,
  screenshot,
  accountId,
  signUp,
  signUpMember,
  type Vss,
  useBrowserApp,
  joinLive,
} from './support/browser.js';

/** Mean and spread of the luma of what a tile's canvas shows (read back from the page). */
async function canvasStats(page: Page, user: string): Promise<{ width: number; mean: number; sd: number }> {
  return page.evaluate((u) => {
    const canvas = document.querySelector<HTMLCanvasElement>(
      `.tile[data-user="${u}"][data-kind="cam"] canvas`,
    );
    if (!canvas || canvas.width < 16) return { width: canvas?.width ?? 0, mean: 0, sd: 0 };
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let sum = 0;
    let sq = 0;
    const n = data.length / 4;
    for (let i = 0; i < data.length; i += 4) {
      const y = 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
      sum += y;
      sq += y * y;
    }
    const mean = sum / n;
    return { width: canvas.width, mean, sd: Math.sqrt(Math.max(0, sq / n - mean * mean)) };
  }, user);
}

/** The tile of `user` on `page`, found by its label as a person reads it. */
function tileOf(page: Page, user: string) {
  return page.locator('.tile').filter({ has: page.locator('.label', { hasText: new RegExp(`^${user}$`) }) });
}

/** GET through the API with the page's login cookie; returns the envelope's data. */
async function apiGet<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(path);
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

describeBrowser('the live page, in two browsers', () => {
  let vss: Vss;
  let browser: Browser;
  /** a browser without the fake permission prompt: what a person has not allowed is refused */
  let strict: Browser | undefined;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('people see and hear each other, chat, direct the layout, leave; the recording has them all', async () => {
    const ctxA = await newContext(browser, vss.base);
    const ctxB = await newContext(browser, vss.base);
    const a = await ctxA.newPage();
    const b = await ctxB.newPage();
    await signUp(a);
    await a.getByLabel('New session name').fill('Live check');
    await a.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => new URL(a.url()).pathname).toMatch(/^\/sessions\/[0-9a-f-]{36}$/);
    const sessionPath = new URL(a.url()).pathname;
    await a.getByRole('link', { name: 'Join live' }).click();
    await expect.poll(() => new URL(a.url()).pathname).toBe(`${sessionPath}/live`);

    // A name of nothing but spaces: said, and nothing is joined.
    await a.getByLabel('Name in this session').fill('   ');
    await a.getByRole('button', { name: 'Join' }).click();
    await expect
      .poll(() => a.getByRole('alert').filter({ hasText: 'name' }).textContent())
      .toMatch(/^Enter the name the others will see/);
    await expect(a.getByRole('button', { name: 'Leave' }).count()).resolves.toBe(0);

    await joinLive(a, 'alice');
    await expect(a.title()).resolves.toMatch(/^Live · /);
    await a.getByRole('group', { name: 'Your devices' }).getByRole('button', { name: 'Camera' }).waitFor();
    // bob is another member of alice's organisation (each member is their own account in a call).
    await signUpMember(a, b);

    // Someone who leaves the page while still joining does not join behind its back: nobody
    // appears, nothing is published. (The token answer is held back so that there is time to go.)
    await b.goto(`${sessionPath}/live`);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await b.route('**/v1/sessions/*/connection', async (route) => {
      await held;
      await route.continue();
    });
    const answered = Promise.race([
      b.waitForEvent('requestfinished', (r) => r.url().endsWith('/connection')),
      b.waitForEvent('requestfailed', (r) => r.url().endsWith('/connection')),
    ]);
    await b.getByLabel('Name in this session').fill('ghost');
    await b.getByRole('button', { name: 'Join' }).click();
    await b.getByText('Getting a connection token…').waitFor();
    await b.getByRole('link', { name: '← Session' }).click();
    await expect.poll(() => new URL(b.url()).pathname).toBe(sessionPath);
    // The token's answer reaches the page that has gone on (or the page gave up on it).
    release();
    await answered;
    await b.unroute('**/v1/sessions/*/connection');

    // bob joins after that answer: a ghost joined with it would have been announced to alice
    // before bob is; and the timeline, at the end, has no ghost.
    await b.goto(`${sessionPath}/live`);
    await joinLive(b, 'bob');
    await tileOf(a, 'bob').waitFor();
    expect(await tileOf(a, 'ghost').count()).toBe(0);

    // Each sees the other's tile with a real picture: decoded frames, not a black canvas.
    const alice = await accountId(a);
    const bob = await accountId(b);
    for (const [page, name, other] of [
      [a, 'bob', bob],
      [b, 'alice', alice],
    ] as const) {
      await tileOf(page, name).waitFor();
      await expect
        .poll(() => canvasStats(page, other), { timeout: 20_000 })
        .toSatisfy(
          (s: { width: number; mean: number; sd: number }) => s.width >= 16 && s.mean > 8 && s.sd > 3,
        );
      await expect(page.getByRole('button', { name: 'Camera' }).getAttribute('aria-pressed')).resolves.toBe(
        'true',
      );
      await expect(
        page.getByRole('button', { name: 'Microphone' }).getAttribute('aria-pressed'),
      ).resolves.toBe('true');
    }

    // A third person who has not allowed the camera (a browser without the fake permission
    // prompt, microphone allowed): told so, and joins with the microphone only.
    strict = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--use-fake-device-for-media-stream'],
    });
    const ctxC = await strict.newContext({ baseURL: vss.base, permissions: ['microphone'] });
    ctxC.setDefaultTimeout(15_000);
    const c = await ctxC.newPage();
    await signUpMember(a, c);
    const carol = await accountId(c);
    await c.goto(`${sessionPath}/live`);
    await joinLive(c, 'carol');
    await expect.poll(() => c.getByRole('alert').textContent()).toMatch(/Camera access was denied/);
    await expect
      .poll(() => c.getByRole('button', { name: 'Microphone' }).getAttribute('aria-pressed'))
      .toBe('true');
    await expect(c.getByRole('button', { name: 'Camera' }).getAttribute('aria-pressed')).resolves.toBe(
      'false',
    );
    await tileOf(a, 'carol').getByText('Camera off').waitFor();
    await c.getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => new URL(c.url()).pathname).toBe(sessionPath);
    await tileOf(a, 'carol').waitFor({ state: 'detached' });
    await strict.close();

    // Chat both ways.
    await a.getByLabel('Message').fill('hello from alice');
    await a.getByRole('button', { name: 'Send' }).click();
    await b.getByRole('list', { name: 'Chat' }).getByText('hello from alice').waitFor();
    await b.getByLabel('Message').fill('hi alice, bob here');
    await b.getByRole('button', { name: 'Send' }).click();
    await a.getByRole('list', { name: 'Chat' }).getByText('hi alice, bob here').waitFor();

    // Turning the camera off shows on the other side; on again brings the picture back.
    await b.getByRole('button', { name: 'Camera' }).click();
    await expect
      .poll(() => b.getByRole('button', { name: 'Camera' }).getAttribute('aria-pressed'))
      .toBe('false');
    await tileOf(a, 'bob').getByText('Camera off').waitFor();
    await b.getByRole('button', { name: 'Camera' }).click();
    await expect
      .poll(() => b.getByRole('button', { name: 'Camera' }).getAttribute('aria-pressed'))
      .toBe('true');
    await tileOf(a, 'bob').getByText('Camera off').waitFor({ state: 'detached' });

    // The director's layout reaches the other participant.
    await a.getByRole('radio', { name: 'Presenter' }).check();
    await expect.poll(() => b.getByRole('radio', { name: 'Presenter' }).isChecked()).toBe(true);
    await expect
      .poll(() => b.getByRole('region', { name: 'Participants' }).getAttribute('class'))
      .toMatch(/\bpresenter\b/);
    // Picking in the focus list sends nothing (arrow keys walk it); Set focus sends it to everyone.
    // What bob sends next, the layout, reaches alice after anything the pick would have sent.
    await b.getByLabel('Focus').selectOption(bob);
    await b.getByRole('radio', { name: 'Grid' }).check();
    await expect.poll(() => a.getByRole('radio', { name: 'Grid' }).isChecked()).toBe(true);
    await expect(a.getByLabel('Focus').inputValue()).resolves.not.toBe(bob);
    await b.getByRole('button', { name: 'Set focus' }).click();
    await expect.poll(() => a.getByLabel('Focus').inputValue()).toBe(bob);
    await screenshot(a, 'live');

    // Both leave and land on the session page; the session ends after its departure timeout.
    await a.getByRole('button', { name: 'Leave' }).click();
    await b.getByRole('button', { name: 'Leave' }).click();
    for (const page of [a, b]) await expect.poll(() => new URL(page.url()).pathname).toBe(sessionPath);
    // The live page's title does not stay behind on the page that follows.
    await expect(a.title()).resolves.not.toMatch(/^Live · /);
    const sessionId = sessionPath.split('/').pop()!;
    await expect
      .poll(
        async () => (await apiGet<{ ended_at: string | null }>(a, `/v1/sessions/${sessionId}`)).ended_at,
        {
          timeout: 20_000,
        },
      )
      .not.toBeNull();
    const manifest = await apiGet<{ participants: { user_id: string; tracks: { kind: string }[] }[] }>(
      a,
      `/v1/sessions/${sessionId}/manifest`,
    );
    const kinds = Object.fromEntries(
      manifest.participants.map((p) => [p.user_id, [...new Set(p.tracks.map((t) => t.kind))].sort()]),
    );
    expect(kinds).toEqual({ [alice]: ['cam', 'mic'], [bob]: ['cam', 'mic'], [carol]: ['mic'] });
    const timeline = await apiGet<{ type: string; data: { display_name?: string } }[]>(
      a,
      `/v1/sessions/${sessionId}/timeline`,
    );
    const joined = timeline.filter((e) => e.type === 'participant.joined').map((e) => e.data.display_name);
    expect(new Set(joined)).toEqual(new Set(['alice', 'bob', 'carol']));

    // The recording these browsers made replays in the player: both cameras drawn (most of each
    // picture lit, where nothing drawn is black), the chat shown.
    await a.goto(`${sessionPath}/replay`);
    // At 4x, so that the chat sent well into the session comes up soon.
    await a.getByLabel('Speed').selectOption('4');
    await a.getByRole('button', { name: 'Play', exact: true }).click();
    const replayed = (user: string) =>
      a.getByRole('img', { name: `Video of ${user}` }).evaluate((c: HTMLCanvasElement) => {
        const ctx = c.getContext('2d');
        if (!ctx || c.width < 16) return 0;
        const { data } = ctx.getImageData(0, 0, c.width, c.height);
        let bright = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i]! + data[i + 1]! + data[i + 2]! > 30) bright++;
        return bright / (data.length / 4);
      });
    for (const user of ['alice', 'bob'])
      await expect.poll(() => replayed(user), { timeout: 20_000 }).toBeGreaterThan(0.5);
    const chat = a.getByRole('log', { name: 'Chat messages' });
    await chat.getByText('hello from alice').waitFor({ timeout: 30_000 });
    await chat.getByText('hi alice, bob here').waitFor({ timeout: 30_000 });

    // An ended session's live page offers its replay, not a join that would fail.
    await a.goto(`${sessionPath}/live`);
    await a.getByRole('heading', { name: 'This session has ended' }).waitFor();
    expect(await a.getByRole('button', { name: 'Join' }).count()).toBe(0);
    expect(await a.getByRole('link', { name: 'Watch the replay' }).getAttribute('href')).toBe(
      `${sessionPath}/replay`,
    );
    await ctxA.close();
    await ctxB.close();
  }, 120_000);

  it('a second tab joined as the same person takes over; the first says so in words', async () => {
    const ctx = await newContext(browser, vss.base);
    const first = await ctx.newPage();
    await signUp(first);
    await first.getByLabel('New session name').fill('Two tabs');
    await first.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => new URL(first.url()).pathname).toMatch(/^\/sessions\/[0-9a-f-]{36}$/);
    const live = `${new URL(first.url()).pathname}/live`;
    await first.goto(live);
    await joinLive(first, 'dana');

    const second = await ctx.newPage();
    await second.goto(live);
    await joinLive(second, 'dana');
    await first
      .getByRole('status')
      .filter({ hasText: 'You joined this session again from another tab or device' })
      .waitFor();
    // The first tab let go of the camera and microphone; the second is the live one.
    await expect
      .poll(() =>
        first.evaluate(() =>
          Array.from(document.querySelectorAll('video')).some((v) =>
            ((v.srcObject as MediaStream | null)?.getTracks() ?? []).some((t) => t.readyState === 'live'),
          ),
        ),
      )
      .toBe(false);
    await expect(second.getByRole('status').textContent()).resolves.toMatch(/Connected as dana/);
    await ctx.close();
  }, 120_000);
});
