/**
 * A member of a bench tenant's organisation in the dashboard's live room, as a person joins: an
 * invitation redeemed for a login cookie, then the live page opened in a browser and joined.
 */
import type { Browser, Page } from 'playwright-core';
import { expectCall } from './http.ts';

/** A member of the tenant's organisation, through an invitation: their login cookie. */
export async function member(base: string, projectId: string, auth: Record<string, string>, n: number) {
  const email = `call-${n}-${Date.now()}@example.com`;
  const inv = await expectCall<{ data: { token: string } }>(
    201,
    `${base}/v1/projects/${projectId}/invitations`,
    {
      method: 'POST',
      headers: auth,
      json: { email, role: 'member' },
    },
  );
  const reg = await expectCall(201, `${base}/v1/auth/register`, {
    method: 'POST',
    json: { email, password: 'bench-password-1234' },
  });
  const cookie = reg.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('service_session='))!;
  await expectCall(200, `${base}/v1/invitations/redeem`, {
    method: 'POST',
    headers: { cookie, origin: base },
    json: { token: inv.json.data.token },
  });
  return cookie.slice('service_session='.length);
}

/** Opens the live room as the member whose cookie this is, and joins as `name`. */
export async function joinLive(
  browser: Browser,
  base: string,
  sessionId: string,
  cookie: string,
  name: string,
): Promise<Page> {
  const ctx = await browser.newContext({
    baseURL: base,
    viewport: { width: 1280, height: 800 },
    permissions: ['camera', 'microphone'],
  });
  await ctx.addCookies([{ name: 'service_session', value: cookie, url: base }]);
  const page = await ctx.newPage();
  await page.goto(`/sessions/${sessionId}/live`);
  await page.getByLabel('Name in this session').fill(name);
  await page.getByRole('button', { name: 'Join' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Connected as ${name}` })
    .waitFor({ timeout: 60_000 });
  return page;
}
