import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, joinLive, newContext, signUp, type Vss, useBrowserApp } from './support/browser.js';

describeBrowser('names written right to left', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('a name holding U+202E reverses only itself: the chat line still shows its time as written', async () => {
    const ctx = await newContext(browser, vss.base);
    const page = await ctx.newPage();
    await signUp(page);
    await page.getByLabel('New session name').fill('Bidi check');
    await page.getByRole('button', { name: 'Create session' }).click();
    await page.getByRole('link', { name: 'Join live' }).click();
    await joinLive(page, 'Ana\u202E');
    await page.getByLabel('Message').fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const line = page.getByRole('list', { name: 'Chat' }).locator('li').filter({ hasText: 'hello' });
    await line.waitFor();
    const time = (await line.locator('small').textContent())!;
    expect(time).toMatch(/\d/);
    // What a person reads, in visual order: the time left to right after the name, not mirrored.
    const shown = await line.evaluate((li) => {
      const small = li.querySelector('small')!;
      const range = document.createRange();
      range.selectNodeContents(small.firstChild!);
      const first = range.cloneRange();
      first.setEnd(small.firstChild!, 1);
      const last = range.cloneRange();
      last.setStart(small.firstChild!, small.textContent!.length - 1);
      return { first: first.getBoundingClientRect().x, last: last.getBoundingClientRect().x };
    });
    expect(shown.first).toBeLessThan(shown.last);
    await ctx.close();
  });
});
