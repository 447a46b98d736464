import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, newContext, signUp, type Vss, useBrowserApp } from './support/browser.js';
import { apiKey, call, camera, chat, microphone, record } from './support/record.js';

/** Seconds recorded: long enough that the player has not read the middle when it opens. */
const SECONDS = 13;

/** The chat of the recording, in order: who (display name), when (ms from the start), what. */
const MESSAGES = [
  { user: 'alice', name: 'Alice Liddell', atMs: 1000, text: 'First, from Alice' },
  { user: 'bob', name: 'Bob Marley', atMs: 7000, text: 'Second, from Bob' },
  { user: 'alice', name: 'Alice Liddell', atMs: 9000, text: 'Third, from Alice' },
  { user: 'bob', name: 'Bob Marley', atMs: 11500, text: 'Fourth, from Bob' },
];

/** The chat panel's messages as a viewer reads them: "<author> <text>", in order. */
async function shownChat(page: Page): Promise<string[]> {
  const items = page.getByRole('log', { name: 'Chat messages' }).getByRole('listitem');
  const texts = await items.evaluateAll((li) =>
    li.map((el) => (el.textContent ?? '').replace(/^\s*\d+:\d\d\s*/, '').trim()),
  );
  return texts;
}

/**
 * What the panel must show with the playhead `ms` from the start: every message up to it. `lead`:
 * how long before the plan's first message the recording starts (the joins come first).
 */
const expected = (ms: number, lead: number) =>
  MESSAGES.filter((m) => lead + m.atMs <= ms).map((m) => `${m.name} ${m.text}`);

const position = async (page: Page) =>
  Number(await page.getByRole('slider', { name: 'Position' }).inputValue());

/**
 * Seeks with the time bar (a click's value, the arrow keys, Home and End) and checks after each
 * seek that the chat panel holds exactly the messages up to the playhead, with their authors.
 */
async function seekAndCheckChat(page: Page, lead: number): Promise<void> {
  const slider = page.getByRole('slider', { name: 'Position' });
  const chatAt = (ms: number) =>
    expect.poll(() => shownChat(page), { timeout: 15_000 }).toEqual(expected(ms, lead));
  // Opened at the start: nothing yet.
  await page.getByText('No messages up to this point.').waitFor();

  // A click on the bar (the range's value) at 10 s: past the second and third messages, which the
  // player had not read when it opened, and before the fourth.
  await slider.fill('10000');
  await expect.poll(() => position(page)).toBe(10_000);
  await chatAt(10_000);

  // An arrow key back to 5 s: the second and third are gone.
  await slider.focus();
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => position(page)).toBe(5000);
  await chatAt(5000);

  // Forward again to 8 s: the second is back, the third not yet.
  await slider.fill('8000');
  await expect.poll(() => position(page)).toBe(8000);
  await chatAt(8000);

  // End: all of them, in order.
  await slider.focus();
  await page.keyboard.press('End');
  await chatAt(Number.POSITIVE_INFINITY);

  // Home: none again.
  await page.keyboard.press('Home');
  await expect.poll(() => position(page)).toBe(0);
  await page.getByText('No messages up to this point.').waitFor();
}

describeBrowser('replay chat after a seek, in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  let key: string;
  let sessionId: string;
  let lead: number;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('the dashboard replay shows the chat up to the playhead after every seek', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    key = await apiKey(page);
    sessionId = (await call(vss, key, 'POST', '/v1/sessions', { name: 'Chat seek' })).id;
    // Media all along, so that the player reads the recording window by window.
    const plan = [
      ...(await camera('alice', 'red', SECONDS)),
      ...(await microphone('alice', 440, SECONDS)),
      ...(await microphone('bob', 660, SECONDS)),
      ...MESSAGES.map((m) => chat(m.user, m.atMs, m.text)),
    ];
    const t0 = await record(vss, key, sessionId, { alice: 'Alice Liddell', bob: 'Bob Marley' }, plan);
    lead = t0 - (await call(vss, key, 'GET', `/v1/sessions/${sessionId}/manifest`)).start_ts;
    // The seeks below are at least a second from any message.
    expect(lead).toBeGreaterThanOrEqual(0);
    expect(lead).toBeLessThan(1000);

    await page.goto(`/sessions/${sessionId}/replay`);
    await page.getByRole('heading', { name: 'Replay: Chat seek' }).waitFor();
    await seekAndCheckChat(page, lead);
    await context.close();
  }, 120_000);

  it('the public /watch page does the same, with no account', async () => {
    await call(vss, key, 'PUT', `/v1/sessions/${sessionId}/visibility`, { is_public: true });
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await page.goto(`/watch/${sessionId}`);
    await page.getByRole('heading', { name: 'Chat seek' }).waitFor();
    await seekAndCheckChat(page, lead);
    await context.close();
  }, 60_000);
});
