import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  launchBrowser,
  newContext,
  screenshot,
  signIn,
  signUp,
  startVss,
  type Vss,
} from './support/browser.js';

describeBrowser('the dashboard, in a browser', () => {
  let vss: Vss;
  let browser: Browser;
  beforeAll(async () => {
    [vss, browser] = await Promise.all([startVss(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await vss?.stop();
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
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByRole('link', { name: 'Design review' }).waitFor();
    await screenshot(page, 'sessions');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await signIn(page, email);
    await page.getByRole('link', { name: 'Design review' }).waitFor();
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
    await page.getByLabel('Email').fill(`short-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/password/i);
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
