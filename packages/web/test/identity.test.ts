import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  accountId,
  createSession,
  describeBrowser,
  joinLive,
  newContext,
  poll,
  signUp,
  signUpMember,
  type Vss,
  useBrowserApp,
} from './support/browser.js';
import type { Browser } from 'playwright-core';

/** Who a member is in a live call: their account, never the name they type. */

/** The heading of the live page's people list, e.g. "People (2)". */
const people = (page: Page) => page.getByRole('heading', { name: /^People \(/ }).textContent();

/** Sends a chat message and waits until `other` shows it. */
async function chatReaches(from: Page, other: Page, text: string): Promise<void> {
  await from.getByLabel('Message').fill(text);
  await from.getByRole('button', { name: 'Send' }).click();
  await other.getByRole('list', { name: 'Chat' }).getByText(text).waitFor();
}

describeBrowser('members in a live call', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('two members who both type "Alex" are two people: both stay in, see each other and chat', async () => {
    const ctxA = await newContext(browser, vss.base);
    const ctxB = await newContext(browser, vss.base);
    const a = await ctxA.newPage();
    const b = await ctxB.newPage();
    await signUp(a);
    await signUpMember(a, b);
    const session = await createSession(a, 'Two Alexes');
    await a.goto(`${session.path}/live`);
    await joinLive(a, 'Alex');
    await b.goto(`${session.path}/live`);
    await joinLive(b, 'Alex');

    for (const page of [a, b]) await poll(() => people(page)).toBe('People (2)');
    // Each sees the other's tile, under their account's id.
    const [idA, idB] = [await accountId(a), await accountId(b)];
    expect(idA).not.toBe(idB);
    await a.locator(`.tile[data-user="${idB}"]`).first().waitFor();
    await b.locator(`.tile[data-user="${idA}"]`).first().waitFor();
    await chatReaches(b, a, 'Hello from the other Alex');
    await chatReaches(a, b, 'Hello back');
    // Nobody was thrown out as if joining again from another tab.
    for (const page of [a, b]) {
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/Connected as Alex/);
      expect(await page.getByText('You joined this session again from another tab or device').count()).toBe(
        0,
      );
    }
    await ctxA.close();
    await ctxB.close();
  }, 120_000);

  it('a member in a second tab, then a guest: all three pages see each other and chat crosses', async () => {
    const ctx = await newContext(browser, vss.base);
    const ctxG = await newContext(browser, vss.base);
    const first = await ctx.newPage();
    await signUp(first);
    const session = await createSession(first, 'Second tab');
    await first.goto(`${session.path}/live`);
    await joinLive(first, 'Maya');
    const second = await ctx.newPage();
    await second.goto(`${session.path}/live`);
    await joinLive(second, 'Maya');
    await first
      .getByRole('status')
      .filter({ hasText: 'You joined this session again from another tab or device' })
      .waitFor();

    // A guest joins through a join link made with the member's cookie.
    const link = await second.evaluate(async (id) => {
      const res = await fetch(`/v1/sessions/${id}/join-links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return ((await res.json()) as { data: { url: string } }).data.url;
    }, session.id);
    const g = await ctxG.newPage();
    await g.goto(new URL(link).pathname);
    await g.getByLabel('Name in this session').fill('Guest Gia');
    await g.getByRole('button', { name: 'Join' }).click();
    await g.getByRole('status').filter({ hasText: 'Connected as Guest Gia' }).waitFor();

    for (const page of [second, g]) await poll(() => people(page)).toBe('People (2)');
    const member = await accountId(second);
    await g.locator(`.tile[data-user="${member}"][data-kind="cam"]`).waitFor();
    await chatReaches(g, second, 'Hi Maya');
    await chatReaches(second, g, 'Hi Gia');
    await ctx.close();
    await ctxG.close();
  }, 120_000);
});
