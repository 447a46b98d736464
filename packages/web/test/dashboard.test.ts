import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  describeBrowser,
  newContext,
  screenshot,
  signIn,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** Polls up to 15 s: the machine may be busy (the default is 1 s). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

/** The focused element as a person would name it: its tag and its text. */
const focused = (page: Page) =>
  page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim()}`);

describeBrowser('the dashboard, in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('signs a new user up, creates a session, signs out and back in', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await page.goto('/');
    // Signed out: sent to sign in, and brought back after.
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    const email = await signUp(page);
    await page.getByText('No sessions yet').waitFor();
    await page.getByLabel('New session name').fill('Design review');
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/sessions\/[0-9a-f-]{36}$/);
    // Each page names the tab, and after navigating focus starts at the new page's heading.
    await poll(() => page.title()).toBe('Design review · vss');
    await poll(() => focused(page)).toBe('H1 Design review');
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByRole('link', { name: 'Design review' }).waitFor();
    await poll(() => page.title()).toBe('Sessions · vss');
    await poll(() => focused(page)).toBe('H1 Sessions');
    await screenshot(page, 'sessions');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await signIn(page, email);
    await page.getByRole('link', { name: 'Design review' }).waitFor();
    await context.close();
  });

  it('keeps the pages loaded with "Load more", and keyboard focus, while the sessions list refreshes', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    const create = (name: string) =>
      page.request.post('/v1/sessions', { data: { name }, headers: { origin: vss.base } });
    // 110 sessions: two pages of 50 loaded leave a third to load.
    for (let i = 0; i < 11; i++)
      await Promise.all(Array.from({ length: 10 }, (_, j) => create(`Older ${i * 10 + j}`)));
    // The page's clock, moved ahead to each refresh below rather than waited through.
    await page.clock.install();
    await page.reload();
    const rows = page.getByRole('table', { name: /Sessions of this project/ }).getByRole('row');
    await poll(() => rows.count()).toBe(51);
    const more = page.getByRole('button', { name: 'Load more' });
    await more.focus();
    await page.keyboard.press('Enter');
    await poll(() => rows.count()).toBe(101);
    // A session created meanwhile appears at the top at the next refresh (every 5 s); the second
    // page stays, and so does focus on "Load more". And again at the refresh after.
    for (const [name, count] of [
      ['Newest', 102],
      ['Newer', 103],
    ] as const) {
      expect((await create(name)).status()).toBe(201);
      await page.clock.runFor(5_000);
      await rows.nth(1).getByRole('link', { name }).waitFor();
      expect(await rows.count()).toBe(count);
    }
    expect(await more.evaluate((b) => b === document.activeElement)).toBe(true);
    // The third page follows the second, each session once.
    await page.keyboard.press('Enter');
    await poll(() => rows.count()).toBe(113);
    const names = await rows.getByRole('link').allTextContents();
    expect(new Set(names).size).toBe(112);
    await context.close();
  });

  it('after signing in, follows a "next" on this site and nothing else', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    const email = await signUp(page);
    const signInTo = async (next: string) => {
      await context.clearCookies();
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('a long passphrase');
      await page.getByRole('button', { name: 'Sign in' }).click();
    };
    for (const elsewhere of ['/\\evil.example', '//evil.example', 'https://evil.example/x']) {
      await signInTo(elsewhere);
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      expect(page.url()).toBe(`${vss.base}/sessions`);
    }
    await signInTo('/webhooks?from=mail#log');
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    expect(page.url()).toBe(`${vss.base}/webhooks?from=mail#log`);
    await context.close();
  });

  it('explains a wrong password and a taken email in the form, from the API', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    const email = await signUp(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/email or password/i);
    await page.goto('/signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/already/i);
    // A short password is stopped by the browser's own check, which says why.
    await page.getByLabel('Email').fill(`short-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await page.getByLabel('Password').evaluate((e: HTMLInputElement) => e.validationMessage)).not.toBe(
      '',
    );
    await context.close();
  });

  it('says a newer version is available, with a way to reload, when a page can no longer be loaded', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    // As after an upgrade under an open tab: the page's code under its old name is gone.
    await page.route(/\/assets\/webhooks-[^/]+\.js$/, (route) => route.fulfill({ status: 404, body: '' }));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'A newer version of vss is available' }).waitFor();
    await page.unroute(/\/assets\/webhooks-[^/]+\.js$/);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await context.close();
  });
});
