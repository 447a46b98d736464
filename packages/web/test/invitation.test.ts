import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  dashboardPost,
  describeBrowser,
  newContext,
  poll,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

describeBrowser('the invitation page', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('says who invited whom into which organisation, with which role, before and after signing in', async () => {
    const ownerContext = await newContext(browser, vss.base);
    const owner = await ownerContext.newPage();
    const ownerEmail = await signUp(owner);
    const projects = (await (await owner.request.get('/v1/projects')).json()) as {
      data: Array<{ id: string }>;
    };
    const invitee = `invitee-${Date.now()}@example.com`;
    const invitation = await dashboardPost(
      owner.request,
      vss.base,
      `/v1/projects/${projects.data[0]!.id}/invitations`,
      { email: invitee, role: 'admin' },
    );

    // Signed out: the page names the inviter, the organisation (named after its first owner's
    // email) and the role, and the address to sign in with.
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await page.goto(invitation.accept_url);
    const offer = page.getByRole('region', { name: 'Invitation' });
    await poll(() => offer.textContent()).toContain(
      `${ownerEmail} invited you to join ${ownerEmail} as an admin.`,
    );
    await offer.getByText(invitee).waitFor();
    // Signed in as the invitee: the same words above the button that joins.
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill(invitee);
    await page.getByLabel('Password').fill('a long passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await poll(() => offer.textContent()).toContain(
      `${ownerEmail} invited you to join ${ownerEmail} as an admin.`,
    );
    await page.getByRole('button', { name: 'Join organisation' }).click();
    await poll(() => new URL(page.url()).pathname).toBe('/sessions');
    const me = (await (await page.request.get('/v1/me')).json()) as { data: { role: string } };
    expect(me.data.role).toBe('admin');

    // Used, the link says so in words, and offers nothing to press.
    await page.goto(invitation.accept_url);
    await poll(() => page.getByRole('alert').textContent()).toMatch(/already redeemed/);
    expect(await page.getByRole('button', { name: 'Join organisation' }).count()).toBe(0);

    // A token nobody issued, and a link without its token, are said to be so.
    await page.goto('/invite?token=no-such-invitation-token');
    await poll(() => page.getByRole('alert').textContent()).toMatch(/does not exist, or it was revoked/);
    expect(await page.getByRole('button', { name: 'Join organisation' }).count()).toBe(0);
    await page.goto('/invite');
    await poll(() => page.getByRole('alert').textContent()).toMatch(/has no token/);

    await context.close();
    await ownerContext.close();
  });
});
