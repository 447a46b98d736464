import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, joinLive, newContext, signUp, type Vss, useBrowserApp } from './support/browser.js';

describeBrowser('names on the live tiles', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('a name longer than its tile ends in an ellipsis, and the whole name is its title', async () => {
    const ctx = await newContext(browser, vss.base);
    const page = await ctx.newPage();
    await signUp(page);
    await page.getByLabel('New session name').fill('Long names');
    await page.getByRole('button', { name: 'Create session' }).click();
    await page.getByRole('link', { name: 'Join live' }).click();
    const name = 'Maximiliana Wolfeschlegelsteinhausenbergerdorff von Hohenzollern';
    await joinLive(page, name);
    // A phone's width: the tile is narrower than the name.
    await page.setViewportSize({ width: 375, height: 800 });
    const label = page.locator('.tile[data-kind="cam"] .label bdi');
    await label.waitFor();
    const shown = await label.evaluate((el) => {
      const tile = el.closest('.tile')!.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return {
        overflow: getComputedStyle(el).textOverflow,
        cut: el.scrollWidth > el.clientWidth,
        inside: box.right <= tile.right,
        title: el.getAttribute('title'),
      };
    });
    expect(shown).toEqual({ overflow: 'ellipsis', cut: true, inside: true, title: name });
    await ctx.close();
  });
});
