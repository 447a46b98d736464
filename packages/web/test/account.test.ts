import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  describeBrowser,
  newContext,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
  poll,
  fitsPhone,
} from './support/browser.js';

const path = (page: Page) => new URL(page.url()).pathname;

describeBrowser('usage, members, invitations and projects', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('shows a fresh account its daily usage, bill and limits; billing not configured', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    await page.getByRole('link', { name: 'Usage & billing' }).click();
    await page.getByRole('heading', { name: 'Usage & billing' }).waitFor();
    await page.getByRole('img', { name: /^Streaming participant-minutes: nothing over 30 days/ }).waitFor();
    await page.getByRole('img', { name: /^Storage at day end: nothing over 30 days/ }).waitFor();
    // The numbers behind each chart, one row per day (plus the header row).
    const table = page.getByRole('table', { name: 'Streaming participant-minutes, per day' });
    expect(await table.getByRole('row').count()).toBe(31);
    await page.getByLabel('Range').selectOption('7');
    await poll(() => table.getByRole('row').count()).toBe(8);
    const limits = page.getByRole('region', { name: 'Limits' });
    await limits.getByText('Within the free tier').waitFor();
    await limits.getByText('No subscription').waitFor();
    const month = page.getByRole('region', { name: /^This month/ });
    await month.getByText('$0.00').first().waitFor();
    expect(await month.textContent()).toMatch(/0 participant-minutes/);
    // No payment provider is configured: no button that could only fail.
    expect(await month.getByRole('button', { name: 'Manage billing' }).count()).toBe(0);
    await month.getByText(/no payment provider is configured/).waitFor();
    // 90 days of hidden per-day tables add no height: the page ends where its content does.
    await page.getByLabel('Range').selectOption('90');
    await poll(() => table.getByRole('row').count()).toBe(91);
    const slack = await page.evaluate(() => {
      const last = document.querySelector('main')!.lastElementChild!.getBoundingClientRect().bottom;
      return document.documentElement.scrollHeight - (last + window.scrollY);
    });
    expect(slack).toBeLessThan(100);
    expect(path(page)).toBe('/usage');
    expect(await fitsPhone(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    await context.close();
  });

  it(
    'creates and renames projects, invites a member who joins, changes roles and removes them',
    {
      timeout: 120_000,
    },
    async () => {
      const ownerContext = await newContext(browser, vss.base);
      const owner = await ownerContext.newPage();
      const ownerEmail = await signUp(owner);

      // Projects: an empty name is stopped by the browser; a new one reaches the switcher.
      await owner.getByRole('link', { name: 'Projects' }).click();
      await owner.getByRole('heading', { name: 'Projects' }).waitFor();
      const newProject = owner.getByRole('form', { name: 'New project' });
      // A project needs a name: the browser says so before anything is sent.
      await newProject.getByRole('button', { name: 'Create project' }).click();
      expect(
        await newProject.getByLabel('Project name').evaluate((e: HTMLInputElement) => e.validationMessage),
      ).not.toBe('');
      const projects = owner.getByRole('list', { name: 'Projects' });
      expect(await projects.getByRole('listitem').count()).toBe(1);
      await newProject.getByLabel('Project name').fill('Launch site');
      await newProject.getByLabel('Environment').selectOption('production');
      await newProject.getByRole('button', { name: 'Create project' }).click();
      await projects.getByText('Launch site').waitFor();
      await projects.getByText('production').waitFor();
      const switcher = owner.getByLabel('Project', { exact: true });
      await poll(() => switcher.locator('option').allTextContents()).toEqual(['Default', 'Launch site']);
      // Switching applies as the project is chosen: there is no second step.
      await switcher.selectOption({ label: 'Launch site' });
      await poll(() => path(owner)).toBe('/sessions');
      await owner.getByText('Project Launch site').waitFor();
      expect(await owner.getByRole('button', { name: 'Switch' }).count()).toBe(0);
      await switcher.selectOption({ label: 'Default' });
      await owner.getByText('Project Default').waitFor();
      await owner.getByRole('link', { name: 'Projects' }).click();

      // Editing in place: the name field takes focus, and the Edit button gets it back after.
      await projects.getByRole('button', { name: 'Edit Launch site' }).click();
      const edit = owner.getByRole('form', { name: 'Edit Launch site' });
      await poll(() => edit.getByLabel('Project name').evaluate((e) => e === document.activeElement)).toBe(
        true,
      );
      await edit.getByLabel('Project name').fill('');
      await edit.getByRole('button', { name: 'Save' }).click();
      expect(
        await edit.getByLabel('Project name').evaluate((e: HTMLInputElement) => e.validationMessage),
      ).not.toBe('');
      await edit.getByLabel('Project name').fill('Launch site v2');
      await edit.getByLabel('Environment').selectOption('staging');
      await edit.getByRole('button', { name: 'Save' }).click();
      await projects.getByText('Launch site v2').waitFor();
      await projects.getByText('staging').waitFor();
      await poll(() =>
        projects
          .getByRole('button', { name: 'Edit Launch site v2' })
          .evaluate((e) => e === document.activeElement),
      ).toBe(true);
      await poll(() => switcher.locator('option').allTextContents()).toEqual(['Default', 'Launch site v2']);

      // Invite: a malformed address is refused; a good one shows the link once.
      await owner.getByRole('link', { name: 'Members' }).click();
      await owner.getByRole('heading', { name: 'Members' }).waitFor();
      const invite = owner.getByRole('form', { name: 'Invite' });
      await invite.getByLabel('Email to invite').fill('not an address');
      await invite.getByRole('button', { name: 'Create invitation' }).click();
      expect(
        await invite.getByLabel('Email to invite').evaluate((e: HTMLInputElement) => e.validationMessage),
      ).not.toBe('');
      const memberEmail = `invited-${Date.now()}@example.com`;
      await invite.getByLabel('Email to invite').fill(memberEmail);
      await invite.getByRole('button', { name: 'Create invitation' }).click();
      const secret = owner.getByRole('region', { name: `Invitation link for ${memberEmail}` });
      const acceptUrl = (await secret.getByTestId('secret').textContent())!;
      expect(acceptUrl).toMatch(new RegExp(`^${vss.base}/invite\\?token=.+`));
      await owner.getByRole('table', { name: 'Invitations, newest first' }).getByText(memberEmail).waitFor();

      // Someone signed in with another email is refused (403), the invitation stays usable.
      const otherContext = await newContext(browser, vss.base);
      const other = await otherContext.newPage();
      await signUp(other);
      await other.goto(acceptUrl);
      await other.getByRole('button', { name: 'Join organisation' }).click();
      await poll(() => other.getByRole('alert').textContent()).toMatch(/another email address/);
      await otherContext.close();

      // The invitee opens the link signed out, creates the account from it and joins.
      const memberContext = await newContext(browser, vss.base);
      const member = await memberContext.newPage();
      await member.goto(acceptUrl);
      await member.getByRole('link', { name: 'Create an account' }).click();
      expect(path(member)).toBe('/signup');
      await member.getByLabel('Email').fill(memberEmail);
      await member.getByLabel('Password').fill('a long passphrase');
      await member.getByRole('button', { name: 'Create account' }).click();
      await member.getByRole('button', { name: 'Join organisation' }).click();
      await poll(() => path(member)).toBe('/sessions');
      await member.getByRole('link', { name: 'Projects' }).click();
      await member.getByRole('list', { name: 'Projects' }).getByText('Launch site v2').waitFor();
      expect(await member.getByText('Only owners and admins create and edit projects.').count()).toBe(1);
      // The link is used up: the page says so, with nothing to press.
      await member.goto(acceptUrl);
      await poll(() => member.getByRole('alert').textContent()).toMatch(/already/);
      expect(await member.getByRole('button', { name: 'Join organisation' }).count()).toBe(0);

      // Roles: the owner makes the member an admin; the last owner cannot demote themselves.
      await owner.reload();
      // A role is applied with its button, not as the select changes (arrow keys change it too).
      const role = owner.getByLabel(`Role of ${memberEmail}`);
      const roleOf = async (email: string) =>
        (
          (await (await owner.request.get('/v1/members')).json()).data as { email: string; role: string }[]
        ).find((m) => m.email === email)?.role;
      // Every change of a member the page asks for: the button's, and none before it.
      const changes: string[] = [];
      owner.on('request', (r) => {
        if (r.method() === 'PATCH' && new URL(r.url()).pathname.startsWith('/v1/members/'))
          changes.push((r.postDataJSON() as { role: string }).role);
      });
      await role.selectOption('admin');
      await owner.getByRole('button', { name: `Change role for ${memberEmail}` }).click();
      await poll(() => owner.getByRole('status').textContent()).toBe(`${memberEmail} is now an admin.`);
      expect(changes).toEqual(['admin']);
      expect(await roleOf(memberEmail)).toBe('admin');
      await owner.reload();
      await poll(() => owner.getByLabel(`Role of ${memberEmail}`).inputValue()).toBe('admin');
      await owner.getByLabel(`Role of ${ownerEmail}`).selectOption('member');
      await owner.getByRole('button', { name: `Change role for ${ownerEmail}` }).click();
      await poll(() => owner.getByRole('alert').first().textContent()).toMatch(/last owner/);
      expect(await owner.getByLabel(`Role of ${ownerEmail}`).inputValue()).toBe('owner');
      await screenshot(owner, 'members');
      expect(await fitsPhone(owner)).toBe(true);
      await owner.setViewportSize({ width: 1280, height: 800 });

      // Removal, confirmed: the member is gone and signed out.
      await owner.getByRole('button', { name: `Remove ${memberEmail}` }).click();
      const dialog = owner.getByRole('dialog', { name: `Remove ${memberEmail}?` });
      await dialog.getByRole('button', { name: 'Remove member' }).click();
      const members = owner.getByRole('table', { name: 'Members of the organisation, oldest first' });
      await poll(() => members.getByRole('cell', { name: memberEmail, exact: true }).count()).toBe(0);
      await members.getByRole('cell', { name: `${ownerEmail} (you)` }).waitFor();
      await member.goto('/projects');
      await poll(() => path(member)).toBe('/login');
      await ownerContext.close();
      await memberContext.close();
    },
  );
});
