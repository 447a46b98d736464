import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createSession,
  dashboardPost,
  describeBrowser,
  joinLive,
  launchBrowser,
  newContext,
  poll,
  signUp,
  startVss,
  type Vss,
} from './support/browser.js';

/** Whether `page` shows a picture on the camera tile of `name` (someone else's, decoded). */
function seesVideoOf(page: Page, name: string): Promise<boolean> {
  return page
    .locator('.tile[data-kind="cam"]')
    .filter({ has: page.locator('.label', { hasText: name }) })
    .locator('canvas')
    .evaluate((c: HTMLCanvasElement) => c.width >= 16)
    .catch(() => false);
}

/** Collects garbage in `page` (the browser runs with --expose-gc). */
async function collect(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { gc(): void }).gc());
}

/**
 * Waits for one whole round of Chromium's check for frames collected unclosed (every 10 s, per
 * page): a page of its own lets one frame go unclosed and waits for its warning, which comes at
 * its check's first round, a whole interval after it began; every other page's check has run in
 * that interval too.
 */
async function oneRoundOfChecks(browser: Browser): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.setContent('<canvas width="16" height="16"></canvas>');
    let warned = false;
    page.on('console', (m) => {
      if (/VideoFrame/.test(m.text())) warned = true;
    });
    await page.evaluate(() => {
      new VideoFrame(document.querySelector('canvas')!, { timestamp: 0 });
    });
    await poll(async () => {
      await collect(page);
      return warned;
    }).toBe(true);
  } finally {
    await page.close();
  }
}

describeBrowser('video frames on the live page', () => {
  let vss: Vss;
  let browser: Browser;
  beforeAll(async () => {
    [vss, browser] = await Promise.all([startVss(), launchBrowser({ args: ['--js-flags=--expose-gc'] })]);
  });
  afterAll(async () => {
    await browser?.close();
    await vss?.stop();
  });

  it('every VideoFrame is closed: Chromium warns of none collected unclosed, in the call or after leaving', async () => {
    const ctxA = await newContext(browser, vss.base);
    const a = await ctxA.newPage();
    await signUp(a);
    const { id } = await createSession(a, 'Frames');
    const link = (await dashboardPost(a.request, vss.base, `/v1/sessions/${id}/join-links`, {})) as {
      url: string;
    };
    const ctxG = await newContext(browser, vss.base);
    const g = await ctxG.newPage();
    const said: string[] = [];
    // Each warning with the page that gave it and when: after a failure, where to look.
    let phase = 'in the call';
    for (const [who, page] of [
      ['Olivia', a],
      ['Gina', g],
    ] as const)
      page.on('console', (m) => said.push(`${who}, ${phase}: ${m.text()}`));

    await a.getByRole('link', { name: 'Join live' }).click();
    await joinLive(a, 'Olivia');
    await g.goto(link.url);
    await joinLive(g, 'Gina');
    // Each sees the other's camera: frames are captured, encoded, sent, decoded and drawn.
    await poll(() => seesVideoOf(a, 'Gina')).toBe(true);
    await poll(() => seesVideoOf(g, 'Olivia')).toBe(true);
    // Frames made and let go during the call: collected, then Chromium's check runs over them.
    await collect(a);
    await collect(g);
    await oneRoundOfChecks(browser);
    expect(said.filter((m) => /VideoFrame/i.test(m))).toEqual([]);

    // Gina leaves; then Olivia leaves too: whatever was in flight is let go as well.
    phase = 'leaving';
    await g.getByRole('button', { name: 'Leave' }).click();
    await g.getByRole('heading', { name: 'You left the call' }).waitFor();
    // Olivia leaves from a page held up for a moment (a busy machine): frames the camera made
    // meanwhile wait, unread, when reading stops.
    await a.getByRole('button', { name: 'Leave' }).evaluate((button: HTMLButtonElement) => {
      const until = performance.now() + 700;
      while (performance.now() < until);
      button.click();
    });
    await poll(() => new URL(a.url()).pathname).toBe(`/sessions/${id}`);
    await collect(a);
    await collect(g);
    await oneRoundOfChecks(browser);
    expect(said.filter((m) => /VideoFrame/i.test(m))).toEqual([]);
    await Promise.all([ctxA.close(), ctxG.close()]);
  });
});
