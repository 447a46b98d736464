import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, newContext, poll, signUp, type Vss, useBrowserApp } from './support/browser.js';

/** Whether the page scrolls sideways: its content is wider than the window. */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** A cookie request as the dashboard makes it: same origin, JSON. */
async function post(page: Page, base: string, path: string, body: unknown) {
  const res = await page.request.post(`${base}${path}`, { data: body, headers: { origin: base } });
  const json = await res.json();
  if (!res.ok()) throw new Error(`${path}: ${res.status()} ${JSON.stringify(json)}`);
  return json.data;
}

describeBrowser("the dashboard's pages, as a person reads them", () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('wraps a 200-character name without spaces instead of running it off the page', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    const name = 'L'.repeat(200);
    const s = await post(page, vss.base, '/v1/sessions', { name });
    await page.reload();
    const table = page.getByRole('table', { name: /Sessions of this project/ });
    await table.getByRole('link', { name }).waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    // Every column stays in view: the table needs no sideways scrolling in its frame either.
    const frame = page.locator('.table-wrap');
    expect(await frame.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    await table.getByRole('columnheader', { name: 'Visibility' }).waitFor();
    const right = await table
      .getByRole('columnheader', { name: 'Visibility' })
      .evaluate((e) => e.getBoundingClientRect().right);
    expect(right).toBeLessThanOrEqual(1280);

    // The session's own page: the title wraps within the window.
    await table.getByRole('link', { name }).click();
    const title = page.getByRole('heading', { level: 1, name });
    await title.waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    expect(await title.evaluate((e) => e.getBoundingClientRect().right)).toBeLessThanOrEqual(1280);
    // Nothing recorded yet: the empty recording box keeps its distance from the Visibility card.
    const empty = page.getByText('Nothing recorded yet');
    await empty.waitFor();
    const gap = await page.evaluate(() => {
      const box = document.querySelector('.session-page .empty')!.getBoundingClientRect();
      const card = document.querySelector('[aria-labelledby="visibility-title"]')!.getBoundingClientRect();
      return card.top - box.bottom;
    });
    expect(gap).toBeGreaterThanOrEqual(12);
    expect(new URL(page.url()).pathname).toBe(`/sessions/${s.id}`);
    await context.close();
  });

  it('lists the replay links of a session, shows an address once, and revokes one link alone', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    const s = await post(page, vss.base, '/v1/sessions', { name: 'Shared review' });
    // One link made elsewhere (the API, the CLI): listed, without its address.
    const earlier = await post(page, vss.base, `/v1/sessions/${s.id}/replay-links`, {});
    await page.goto(`/sessions/${s.id}`);
    const links = page.getByRole('region', { name: 'Replay links' });
    const listed = links.getByRole('list', { name: 'Replay links of this session' }).getByRole('listitem');
    await poll(() => listed.count()).toBe(1);
    expect(await links.textContent()).not.toContain(earlier.token);

    // The browser refuses an expiry out of range before anything is sent.
    const expiry = links.getByLabel('Expires in (minutes)');
    for (const bad of ['0', '50000', '']) {
      await expiry.fill(bad);
      await links.getByRole('button', { name: 'Create replay link' }).click();
      expect(await expiry.evaluate((e: HTMLInputElement) => e.validationMessage)).not.toBe('');
    }
    expect(await listed.count()).toBe(1);
    await expiry.fill('60');
    await links.getByRole('button', { name: 'Create replay link' }).click();
    await poll(() => listed.count()).toBe(2);
    const made = listed.first();
    const address = await made.locator('code').textContent();
    expect(address).toMatch(new RegExp(`/v1/public/sessions/${s.id}/replay\\?token=`));
    // After a reload the new link is still listed, its address no longer shown.
    await page.reload();
    await poll(() => listed.count()).toBe(2);
    expect(await links.locator('code').count()).toBe(0);

    // Revoking the earlier link leaves the new one working.
    await listed
      .nth(1)
      .getByRole('button', { name: /^Revoke the link created/ })
      .click();
    await links.getByRole('status').filter({ hasText: 'Link revoked.' }).waitFor();
    await poll(() => listed.count()).toBe(1);
    const open = async (link: string) => (await fetch(`${link}&from_ts=0`)).status;
    expect(await open(earlier.link)).toBe(401);
    expect(await open(address!)).toBe(200);
    await context.close();
  });

  it('says what is wrong in plain words, and lets the browser check a form before sending it', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    // Sign-up: a short password is stopped by the browser, and nothing is sent.
    let sent = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/auth/register')) sent += 1;
    });
    await page.goto('/signup');
    await page.getByLabel('Email').fill(`short-${Date.now()}@example.com`);
    const password = page.getByLabel('Password');
    await password.fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await password.evaluate((e: HTMLInputElement) => e.validationMessage)).not.toBe('');
    expect(sent).toBe(0);
    await signUp(page);

    // A webhook without events: the API refuses it, and the page says so without the API's terms.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Endpoint URL').fill('https://example.com/hooks/vss');
    await form.getByRole('checkbox', { name: /session\.ended/ }).uncheck();
    await form.getByRole('checkbox', { name: /recording\.ready/ }).uncheck();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const said = form.getByRole('alert');
    await poll(() => said.textContent()).toBe('Events needs at least one choice.');
    // A malformed address is stopped by the browser.
    await form.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await form.getByRole('checkbox', { name: /session\.ended/ }).check();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    expect(
      await form.getByLabel('Endpoint URL').evaluate((e: HTMLInputElement) => e.validationMessage),
    ).not.toBe('');
    expect((await (await page.request.get('/v1/webhooks?include_inactive=true')).json()).data).toEqual([]);
    await context.close();
  });

  it('greets a signed-in person on the public catalog, and asks a visitor for nothing', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 401) refused.push(r.url());
    });
    await page.goto('/watch');
    await page.getByRole('heading', { name: 'Public sessions' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    expect(refused).toEqual([]);
    const email = await signUp(page);
    await page.goto('/watch');
    const account = page.getByRole('navigation', { name: 'Account' });
    await account.getByRole('link', { name: 'Dashboard' }).waitFor();
    await account.getByText(email).waitFor();
    expect(await account.getByRole('link', { name: 'Sign in' }).count()).toBe(0);
    await context.close();
  });
});
