import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  createSession,
  describeBrowser,
  newContext,
  signUp,
  signUpMember,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

describeBrowser("another member's session page", () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('offers a member only what a member may do, and says who may do the rest', async () => {
    mkdirSync('/tmp/vss-host-actions', { recursive: true });
    const host = await (await newContext(browser, vss.base)).newPage();
    const member = await (await newContext(browser, vss.base)).newPage();
    await signUp(host);
    await signUpMember(host, member);
    const session = await createSession(host, 'Hosted by someone else');

    // The host (its creator) sees every action.
    for (const heading of ['Invite people', 'Replay links', 'Redact a participant', 'Delete this session'])
      await host.getByRole('heading', { name: heading }).waitFor();
    await expect.poll(() => host.getByRole('checkbox', { name: 'Public' }).isEnabled()).toBe(true);

    // A member sees the session, its recording and its exports, and is told who changes the rest.
    await member.goto(session.path);
    await member.getByRole('heading', { name: 'Recording' }).waitFor();
    await member.getByText('are for its host (the member who created it)').waitFor();
    for (const heading of ['Invite people', 'Replay links', 'Redact a participant', 'Delete this session'])
      expect(await member.getByRole('heading', { name: heading }).count(), heading).toBe(0);
    const publicBox = member.getByRole('checkbox', { name: 'Public' });
    expect(await publicBox.isDisabled()).toBe(true);
    expect(await member.getByText('403').count()).toBe(0);
    await member.screenshot({ path: '/tmp/vss-host-actions/member.png', fullPage: true });
    await Promise.all([host.context().close(), member.context().close()]);
  });
});
