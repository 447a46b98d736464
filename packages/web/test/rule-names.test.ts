import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  createSession,
  dashboardPost,
  describeBrowser,
  joinLive,
  newContext,
  nodeLiveClient,
  poll,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

describeBrowser("the recording rules' list of people", () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('offers guests by the names they joined with; an id is added only to tell two of the same name apart', async () => {
    const ctx = await newContext(browser, vss.base);
    const a = await ctx.newPage();
    await signUp(a);
    const { id, path } = await createSession(a, 'Named rules');
    const link = (await dashboardPost(a.request, vss.base, `/v1/sessions/${id}/join-links`, {})) as {
      token: string;
    };
    await a.getByRole('link', { name: 'Join live' }).click();
    await joinLive(a, 'Olivia');

    // Three guests join through the link: two of them typed the same name.
    const guests: string[] = [];
    const clients = [];
    for (const name of ['Gina', 'Sam', 'Sam']) {
      const res = await fetch(`${vss.base}/v1/join/${link.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ display_name: name }),
      });
      expect(res.status).toBe(200);
      const g = ((await res.json()) as { data: { user_id: string; access_token: string } }).data;
      guests.push(g.user_id);
      const c = nodeLiveClient(vss.base, id, g.user_id, async () => g.access_token);
      await c.connect();
      clients.push(c);
    }
    const [gina, sam1, sam2] = guests as [string, string, string];
    // Olivia created the session in the dashboard: she is its host, offered as such too.
    const expected = [
      'Everyone',
      'The host (who created the session)',
      'Olivia',
      'Gina',
      `Sam (${sam1})`,
      `Sam (${sam2})`,
      'Someone else (by participant id)…',
    ];

    // In the room.
    const room = a.getByRole('region', { name: 'Recording rules' });
    const options = (region: typeof room) => region.getByLabel('Whose').locator('option').allTextContents();
    await poll(() => options(room)).toEqual(expected);
    // Picking Gina by her name makes a rule about her id.
    await room.getByLabel('Whose').selectOption({ label: 'Gina' });
    await room.getByRole('button', { name: 'Add rule' }).click();
    await room.getByRole('button', { name: 'Save rules' }).click();
    await room.getByRole('status').filter({ hasText: 'Rules saved' }).waitFor();
    const saved = await a.request.get(`/v1/sessions/${id}/recording-rules`);
    expect(((await saved.json()) as { data: { rules: unknown[] } }).data.rules).toEqual([
      { type: 'exclude', user_id: gina },
    ]);

    // On the session page, from its timeline: the same.
    const s = await ctx.newPage();
    await s.goto(path);
    const page = s.getByRole('region', { name: 'What is recorded' });
    await poll(() => options(page)).toEqual(expected);
    for (const c of clients) c.close();
    await ctx.close();
  });
});
