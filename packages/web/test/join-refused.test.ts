import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  createSession,
  dashboardPost,
  describeBrowser,
  joinLive,
  newContext,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

describeBrowser('a join link that no longer lets anyone in', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('a link whose uses are spent, or that was revoked, is refused in words before any form; the guest who used it can still reload', async () => {
    const ctxA = await newContext(browser, vss.base);
    const a = await ctxA.newPage();
    await signUp(a);
    const { id } = await createSession(a, 'Spent links');
    const once = (await dashboardPost(a.request, vss.base, `/v1/sessions/${id}/join-links`, {
      max_uses: 1,
    })) as { token: string; url: string };

    // The one use is taken by a guest who joins through the page.
    const ctxG = await newContext(browser, vss.base);
    const g = await ctxG.newPage();
    await g.goto(once.url);
    await joinLive(g, 'Gina');

    // Someone else opening the link is told at once: no name field, no camera asked for.
    const ctxO = await newContext(browser, vss.base);
    const o = await ctxO.newPage();
    await o.goto(once.url);
    await o.getByRole('heading', { name: 'This invitation link has been used up' }).waitFor();
    await o.getByText('It has been used as many times as it allows').waitFor();
    expect(await o.getByLabel('Name in this session').count()).toBe(0);
    expect(await o.getByRole('button', { name: 'Join' }).count()).toBe(0);

    // Gina reloading her tab is the same guest (no use taken): she is offered the call again.
    await g.reload();
    await g.getByRole('heading', { name: 'Join Spent links' }).waitFor();
    await joinLive(g, 'Gina');

    // A revoked link: refused up front as well.
    const revoked = (await dashboardPost(a.request, vss.base, `/v1/sessions/${id}/join-links`, {})) as {
      id: string;
      url: string;
    };
    const res = await a.request.delete(`${vss.base}/v1/sessions/${id}/join-links/${revoked.id}`, {
      headers: { origin: vss.base },
    });
    expect(res.ok(), await res.text()).toBe(true);
    await o.goto(revoked.url);
    await o.getByRole('heading', { name: 'This invitation link does not work' }).waitFor();
    await o.getByText(/expired.*revoked/).waitFor();
    expect(await o.getByLabel('Name in this session').count()).toBe(0);
    await Promise.all([ctxA.close(), ctxG.close(), ctxO.close()]);
  });
});
