import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  createSession,
  describeBrowser,
  joinLive,
  newContext,
  poll,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** What the live page's recording line says, without its dot: "Recording", "Paused — not recording"… */
async function recordingSays(page: Page): Promise<string> {
  const line = page.getByRole('region', { name: 'Recording', exact: true }).locator('.recording-state');
  return ((await line.textContent()) ?? '').replace(/^[●○❚\s]+/, '').trim();
}

/** GET through the API with the page's login cookie; returns the envelope's data. */
async function apiGet<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(path);
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

interface TimelineEvent {
  type: string;
  ts: number;
  data: Record<string, unknown>;
}

describeBrowser(
  'recording: the indicator, pause and resume, rules, and the replay skipping the pause',
  () => {
    let vss: Vss;
    let browser: Browser;
    useBrowserApp((v, b) => {
      vss = v;
      browser = b;
    });

    it('says nothing is recorded when the rules leave everyone out, and that it records once the host they include is here', async () => {
      const ctx = await newContext(browser, vss.base);
      const a = await ctx.newPage();
      await signUp(a);
      const { id, path } = await createSession(a, 'Nobody recorded');
      // Before anyone joined, the session's page does not claim it is recording.
      const panel = a.getByRole('region', { name: 'What is recorded' });
      await panel.getByText('Not recording yet — nobody has joined').waitFor();
      expect(await panel.locator('.recording-now.on').count()).toBe(0);
      const setRules = async (rules: unknown[]) => {
        const res = await a.request.put(`/v1/sessions/${id}/recording-rules`, { data: { rules } });
        expect(res.status(), await res.text()).toBe(200);
      };
      await setRules([{ type: 'exclude', all: true }]);
      await a.goto(`${path}/live`);
      await joinLive(a, 'alice');
      await poll(() => recordingSays(a)).toBe('Not recording — the rules leave out everyone here');
      // No red dot: the line is not styled as recording.
      expect(await a.locator('.recording-bar.on').count()).toBe(0);
      // Someone the rules include, but who is not here, changes nothing.
      await setRules([
        { type: 'exclude', all: true },
        { type: 'include', user_id: 'somebody-else' },
      ]);
      await poll(() => a.getByRole('list', { name: 'Recording rules' }).textContent()).toContain(
        'somebody-else',
      );
      expect(await recordingSays(a)).toBe('Not recording — the rules leave out everyone here');
      // The host alone: this member created the session, so it records them.
      await setRules([
        { type: 'exclude', all: true },
        { type: 'include', host: true },
      ]);
      await poll(() => recordingSays(a)).toBe('Recording');
      await a.getByRole('region', { name: 'Recording rules' }).getByText('Record only the host').waitFor();
      // In another tab, while the call goes on, the session's page agrees: recording the host…
      const b = await ctx.newPage();
      await b.goto(path);
      const panelB = b.getByRole('region', { name: 'What is recorded' });
      await poll(() => panelB.locator('.recording-state').textContent()).toContain('Recording');
      expect(await panelB.locator('.recording-now.on').count()).toBe(1);
      // …and, once the rules leave everyone out, not recording.
      await setRules([{ type: 'exclude', all: true }]);
      await panelB.getByText('Not recording — the rules leave everyone out').waitFor();
      expect(await panelB.locator('.recording-now.on').count()).toBe(0);
      // The rule editor offers the host: recording them alone again, from the form.
      await panelB.getByLabel('Rule', { exact: true }).selectOption({ label: 'Record' });
      await panelB.getByLabel('Whose').selectOption({ label: 'The host (who created the session)' });
      await panelB.getByRole('button', { name: 'Add rule' }).click();
      await panelB.getByRole('button', { name: 'Save rules' }).click();
      await panelB.getByText('Rules saved: they apply from now on.').waitFor();
      const saved = await a.request.get(`/v1/sessions/${id}/recording-rules`);
      expect(((await saved.json()) as { data: { rules: unknown[] } }).data.rules).toEqual([
        { type: 'exclude', all: true },
        { type: 'include', host: true },
      ]);
      await poll(() => recordingSays(a)).toBe('Recording');
      await ctx.close();
    });

    it('everyone sees whether they are recorded and the rules; the owner pauses, resumes and leaves a guest’s camera out from the room', async () => {
      // The owner makes a session and a join link for a guest.
      const ctxA = await newContext(browser, vss.base);
      const a = await ctxA.newPage();
      await signUp(a);
      const { id, path } = await createSession(a, 'Recorded call');
      const panel = a.getByRole('region', { name: 'What is recorded' });
      await panel.getByText('No rules: everything is recorded.').waitFor();
      const invite = a.getByRole('region', { name: 'Invite people' });
      await invite.getByRole('button', { name: 'Create join link' }).click();
      const url = (await a.getByRole('region', { name: 'New join link' }).locator('code').textContent())!;

      // Both join; each page says the call is recorded from the start. Only the owner may pause.
      await a.goto(`${path}/live`);
      await joinLive(a, 'alice');
      await poll(() => recordingSays(a)).toBe('Recording');
      const ctxG = await newContext(browser, vss.base);
      const g = await ctxG.newPage();
      await g.goto(url);
      await g.getByLabel('Name in this session').fill('Bob');
      const answered = g.waitForResponse(
        (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/v1/join/'),
      );
      await g.getByRole('button', { name: 'Join' }).click();
      const bob = ((await (await answered).json()).data as { user_id: string }).user_id;
      await g.getByRole('status').filter({ hasText: 'Connected as Bob' }).waitFor();
      await poll(() => recordingSays(g)).toBe('Recording');
      expect(await g.getByRole('button', { name: /recording$/ }).count()).toBe(0);
      await a
        .getByRole('list', { name: /People/ })
        .getByText('Bob')
        .waitFor();
      await a.getByLabel('Message').fill('said while recording');
      await a.getByRole('button', { name: 'Send' }).click();
      await g.getByRole('list', { name: 'Chat' }).getByText('said while recording').waitFor();
      await screenshot(a, 'recording-live');

      // The owner pauses: both pages say so. What is said meanwhile still reaches the others live.
      await a.getByRole('button', { name: 'Pause recording' }).click();
      for (const page of [a, g]) await poll(() => recordingSays(page)).toBe('Paused — not recording');
      await a.getByRole('button', { name: 'Resume recording' }).waitFor();
      const pausedState = await apiGet<{ state: string; paused_at: string }>(
        a,
        `/v1/sessions/${id}/recording-rules`,
      );
      expect(pausedState.state).toBe('paused');
      await g.getByLabel('Message').fill('said while paused');
      await g.getByRole('button', { name: 'Send' }).click();
      await a.getByRole('list', { name: 'Chat' }).getByText('said while paused').waitFor();
      await screenshot(a, 'recording-paused');
      await screenshot(g, 'recording-paused-guest');

      // The replay below jumps over the paused span, which must be long enough to land inside:
      // the pause, as the server recorded its start, has lasted 0.7 s (on a fast machine the steps
      // above take less).
      const pausedAt = Date.parse(pausedState.paused_at);
      await poll(() => Date.now() - pausedAt).toBeGreaterThan(700);
      // Resumed: both pages say it records again.
      await a.getByRole('button', { name: 'Resume recording' }).click();
      for (const page of [a, g]) await poll(() => recordingSays(page)).toBe('Recording');
      await g.getByLabel('Message').fill('said after resuming');
      await g.getByRole('button', { name: 'Send' }).click();
      await a.getByRole('list', { name: 'Chat' }).getByText('said after resuming').waitFor();

      // In the room, everybody sees the rules in force; only the owner may change them.
      const roomRules = (page: Page) => page.getByRole('region', { name: 'Recording rules' });
      const ruleList = (page: Page) => roomRules(page).getByRole('list', { name: 'Recording rules' });
      for (const page of [a, g])
        await roomRules(page).getByText('No rules: everything is recorded.').waitFor();
      await roomRules(g)
        .getByText(/can change them/)
        .waitFor();
      expect(await roomRules(g).getByRole('button').count()).toBe(0);

      // The owner leaves Bob's camera out, from the room: Bob is offered by the name he joined with.
      const here = roomRules(a);
      await poll(() => here.getByLabel('Whose').locator('option').allTextContents()).toContain('Bob');
      await here.getByLabel('Rule', { exact: true }).selectOption({ label: "Don't record" });
      await here.getByLabel('Whose').selectOption({ label: 'Bob' });
      await here.getByLabel('What').selectOption({ label: 'Camera' });
      await here.getByRole('button', { name: 'Add rule' }).click();
      await ruleList(a).getByText("Don't record Bob's camera").waitFor();
      await here.getByText('Not saved yet.').waitFor();
      // Not saved yet: Bob's room does not have it.
      expect(await roomRules(g).getByText("Don't record Bob's camera").count()).toBe(0);
      await here.getByRole('button', { name: 'Save rules' }).click();
      await here.getByRole('status').filter({ hasText: 'Rules saved' }).waitFor();

      // Bob's page tells him his camera is not recorded, and both rooms list the rule in words;
      // Alice's page says nothing of hers is left out. The API says the same.
      const bar = (page: Page) => page.getByRole('region', { name: 'Recording', exact: true });
      await bar(g).getByText('Your camera is not being recorded.').waitFor();
      await poll(() => recordingSays(g)).toBe('Recording');
      for (const page of [a, g])
        await poll(() => ruleList(page).locator('li > span').allTextContents()).toEqual([
          "Don't record Bob's camera",
        ]);
      expect(await here.getByText('Not saved yet.').count()).toBe(0);
      expect(
        await bar(a)
          .getByText(/not being recorded/)
          .count(),
      ).toBe(0);
      expect((await apiGet<{ rules: unknown[] }>(a, `/v1/sessions/${id}/recording-rules`)).rules).toEqual([
        { type: 'exclude', user_id: bob, kind: 'cam' },
      ]);
      await screenshot(a, 'recording-rules-live', true);
      await screenshot(g, 'recording-guest-camera-left-out');

      // The session page (another tab) lists the same rule, and edits it too.
      const s = await ctxA.newPage();
      await s.goto(path);
      const rules = s.getByRole('region', { name: 'What is recorded' });
      const list = rules.getByRole('list', { name: 'Rules' });
      await list.getByText("Don't record Bob's camera").waitFor();
      // An id that cannot be one is refused in words, before anything is sent.
      await rules.getByLabel('Whose').selectOption({ label: 'Someone else (by participant id)…' });
      await rules.getByLabel('Participant id').fill('two words');
      await rules.getByRole('button', { name: 'Add rule' }).click();
      await rules.getByRole('alert').filter({ hasText: 'cannot be a participant id' }).waitFor();
      // Bob is offered by his name, once the session's timeline has him; his microphone is left out too.
      const whose = rules.getByLabel('Whose');
      await poll(() => whose.locator('option').allTextContents()).toContain('Bob');
      await rules.getByLabel('Rule', { exact: true }).selectOption({ label: "Don't record" });
      await whose.selectOption({ label: 'Bob' });
      await rules.getByLabel('What').selectOption({ label: 'Microphone' });
      await rules.getByRole('button', { name: 'Add rule' }).click();
      await list.getByText("Don't record Bob's microphone").waitFor();
      await rules.getByText('Not saved yet.').waitFor();
      await rules.getByRole('button', { name: 'Save rules' }).click();
      await rules.getByRole('status').filter({ hasText: 'Rules saved' }).waitFor();
      expect((await apiGet<{ rules: unknown[] }>(s, `/v1/sessions/${id}/recording-rules`)).rules).toEqual([
        { type: 'exclude', user_id: bob, kind: 'cam' },
        { type: 'exclude', user_id: bob, kind: 'mic' },
      ]);
      await screenshot(s, 'recording-rules', true);
      // The rooms follow at once.
      await bar(g).getByText('Your camera and microphone are not being recorded.').waitFor();
      for (const page of [a, g])
        await poll(() => ruleList(page).locator('li > span').allTextContents()).toEqual([
          "Don't record Bob's camera",
          "Don't record Bob's microphone",
        ]);

      // Both leave; the session ends.
      await g.getByRole('button', { name: 'Leave' }).click();
      await a.getByRole('button', { name: 'Leave' }).click();
      await s.close();
      await a.getByText('ended', { exact: true }).waitFor({ timeout: 30_000 });

      // The replay: the paused span is marked on the time bar and jumped over.
      const timeline = await apiGet<TimelineEvent[]>(a, `/v1/sessions/${id}/timeline`);
      const paused = timeline.find((e) => e.type === 'recording.paused')!;
      const resumed = timeline.find((e) => e.type === 'recording.resumed')!;
      expect(resumed.data.paused_ms).toBe(resumed.ts - paused.ts);
      expect(resumed.ts - paused.ts).toBeGreaterThan(600);
      const manifest = await apiGet<{ start_ts: number }>(a, `/v1/sessions/${id}/manifest`);
      const from = paused.ts - manifest.start_ts;
      const to = resumed.ts - manifest.start_ts;
      await a.goto(`${path}/replay`);
      const slider = a.getByRole('slider', { name: 'Position' });
      await slider.waitFor();
      await a.locator('.timebar-gap').waitFor({ state: 'attached' });
      // Asked to go where it was paused, it goes to where it resumed.
      await a.getByRole('button', { name: /Recording paused/ }).click();
      await poll(async () => Math.abs(Number(await slider.inputValue()) - to)).toBeLessThanOrEqual(100);
      // Played from a moment before the pause, the playhead never stands inside it.
      await slider.evaluate(
        (el: HTMLInputElement, v: number) => {
          const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
          set.call(el, String(v));
          el.dispatchEvent(new Event('input', { bubbles: true }));
        },
        Math.max(0, from - 1000),
      );
      await poll(async () => Number(await slider.inputValue())).toBeLessThan(from);
      const seen = slider.evaluate(
        (el: HTMLInputElement, until: number) =>
          new Promise<number[]>((resolve) => {
            const values: number[] = [];
            const look = () => {
              values.push(Number(el.value));
              if (Number(el.value) >= until || values.length > 3000) resolve(values);
              else requestAnimationFrame(look);
            };
            look();
          }),
        to + 500,
      );
      await a.getByRole('button', { name: 'Play', exact: true }).click();
      const values = await seen;
      expect(values.at(-1)).toBeGreaterThanOrEqual(to + 500);
      expect(values.filter((v) => v > from + 200 && v < to - 200)).toEqual([]);
      // What was said while paused was relayed, not stored.
      const chat = a.getByRole('log', { name: 'Chat messages' });
      await chat.getByText('said after resuming').waitFor();
      await chat.getByText('said while recording').waitFor();
      expect(await chat.getByText('said while paused').count()).toBe(0);

      // An export may keep the paused span (silent, showing names) rather than cut it out.
      await a.goto(path);
      await a.getByLabel('Keep paused parts (silent, showing names)').check();
      await a.getByRole('button', { name: 'Export MP4' }).click();
      const jobs = a.getByRole('list', { name: 'Exports' });
      await jobs.getByText('Grid, landscape, paused parts kept').waitFor();
      const exported = await apiGet<Array<{ keep_gaps: boolean }>>(a, `/v1/sessions/${id}/exports`);
      expect(exported.map((j) => j.keep_gaps)).toEqual([true]);
      await ctxA.close();
      await ctxG.close();
    });
  },
);
