import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, newContext, signUp, type Vss, useBrowserApp } from './support/browser.js';
import { apiKey, call, camera, microphone, record, unpublish } from './support/record.js';

/** A tile of the player by the name it shows (its card or its caption). */
const tile = (page: Page, name: string) => page.locator('.player-tiles .tile').filter({ hasText: name });

/** The colour at the centre of a participant's canvas, or null while nothing is drawn. */
function canvasColour(page: Page, name: string): Promise<number[] | null> {
  return page.getByRole('img', { name: `Video of ${name}` }).evaluate((c: HTMLCanvasElement) => {
    const ctx = c.getContext('2d');
    if (!ctx || !c.width) return null;
    const d = ctx.getImageData(Math.floor(c.width / 2), Math.floor(c.height / 2), 1, 1).data;
    return d[3] ? [d[0]!, d[1]!, d[2]!] : null;
  });
}

const isRed = (c: number[] | null) => !!c && c[0]! > 150 && c[1]! < 100 && c[2]! < 100;

describeBrowser('replay name cards, in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('shows a name card where there is no picture: a microphone only, a camera not yet on or stopped', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    const key = await apiKey(page);
    const voice = (await call(vss, key, 'POST', '/v1/sessions', { name: 'Voice only' })).id;
    const late = (await call(vss, key, 'POST', '/v1/sessions', { name: 'Late camera' })).id;
    // Recorded side by side: Bob with a microphone and no camera; Alice with a microphone all
    // along and a camera from 3 s to 6 s.
    const [, lateStart] = await Promise.all([
      record(vss, key, voice, { bob: 'Bob Marley' }, await microphone('bob', 660, 4)),
      record(vss, key, late, { alice: 'Alice Liddell' }, [
        ...(await microphone('alice', 440, 9)),
        ...(await camera('alice', 'red', 3, 3000)),
        unpublish('alice', 'cam', 6500),
      ]),
    ]);

    // Nobody had a camera: one tile, Bob's name on it, and no video element at all.
    await page.goto(`/sessions/${voice}/replay`);
    await page.getByRole('heading', { name: 'Replay: Voice only' }).waitFor();
    const bob = tile(page, 'Bob Marley');
    await bob.waitFor();
    expect((await bob.innerText()).trim()).toBe('Bob Marley');
    expect(await page.locator('.player-tiles canvas').count()).toBe(0);
    expect(await page.getByText('No video at this point.').count()).toBe(0);
    await page.screenshot({ path: '/tmp/replay-namecard.png' });

    // Alice's camera: her name before it started, her picture while it was on, her name after.
    await page.goto(`/sessions/${late}/replay`);
    await page.getByRole('heading', { name: 'Replay: Late camera' }).waitFor();
    const lead = lateStart - (await call(vss, key, 'GET', `/v1/sessions/${late}/manifest`)).start_ts;
    const slider = page.getByRole('slider', { name: 'Position' });
    const alice = tile(page, 'Alice Liddell');
    const card = alice.locator('.tile-card');
    const video = page.getByRole('img', { name: 'Video of Alice Liddell' });

    await slider.fill(String(lead + 1500));
    await card.waitFor();
    expect((await card.innerText()).trim()).toBe('Alice Liddell');
    expect(await video.isVisible()).toBe(false);

    await slider.fill(String(lead + 4500));
    await card.waitFor({ state: 'hidden' });
    await video.waitFor();
    await expect.poll(() => canvasColour(page, 'Alice Liddell'), { timeout: 15_000 }).toSatisfy(isRed);

    await slider.fill(String(lead + 8000));
    await card.waitFor();
    expect((await card.innerText()).trim()).toBe('Alice Liddell');
    expect(await video.isVisible()).toBe(false);
    await context.close();
  }, 120_000);
});
