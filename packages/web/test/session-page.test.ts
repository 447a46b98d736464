import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { probe } from '../../server/test/support/decode.js';
import { evc1, opusPackets, vpxChunks } from '../../server/test/support/media.js';
import { eventually } from '../../server/test/support/wait.js';
import {
  dashboardPost,
  describeBrowser,
  nodeLiveClient,
  newContext,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
  poll,
  fitsPhone,
  liveToken,
} from './support/browser.js';

/**
 * Records a session over the real WebSocket with the live client, as the signed-in user of `page`:
 * alice publishes a blue VP8 camera and an opus microphone, bob a green VP8 camera, for 2 s; then
 * both leave and the session ends.
 */
async function recordSession(page: Page, base: string, name: string): Promise<string> {
  const session = await dashboardPost(page.request, base, '/v1/sessions', { name });
  const [blue, green, tone] = await Promise.all([
    vpxChunks('vp8', 'blue', 2),
    vpxChunks('vp8', 'green', 2),
    opusPackets(440, 1),
  ]);
  const startMs = Date.now() - 3_000;
  const connect = async (user: string) => {
    const c = nodeLiveClient(base, session.id, user, () => liveToken(page, session.id, user));
    await c.connect();
    return c;
  };
  const [alice, bob] = [await connect('alice'), await connect('bob')];
  for (let k = 0; k < blue.length; k++) {
    const ts = startMs + blue[k]!.offsetUs / 1000;
    await alice.publish('media/alice/cam', evc1('vp8', blue[k]!, 0), { timestampMs: ts, binary: true });
    await bob.publish('media/bob/cam', evc1('vp8', green[k]!, 0), { timestampMs: ts, binary: true });
  }
  for (const c of tone)
    await alice.publish('media/alice/mic', evc1('opus', c, 0), {
      timestampMs: startMs + c.offsetUs / 1000,
      binary: true,
    });
  // One acknowledged message each: everything before it is durably recorded.
  await alice.publishChat('bye', { ack: true });
  await bob.publishChat('bye', { ack: true });
  await Promise.all([alice.close(), bob.close()]);
  await eventually(
    async () => {
      const res = await page.request.get(`${base}/v1/sessions/${session.id}`);
      return (await res.json()).data.ended_at;
    },
    20_000,
    'the session to end',
  );
  return session.id;
}

describeBrowser('the session page', () => {
  let vss: Vss;
  let browser: Browser;
  let dir: string;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vss-session-page-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says a session is not found, and stops asking for it', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    const id = '00000000-0000-4000-8000-000000000000';
    let asked = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/v1/sessions/${id}`) asked++;
    });
    // The page's clock, moved ahead below rather than waited through.
    await page.clock.install();
    await page.goto(`/sessions/${id}`);
    await page.getByRole('heading', { name: 'Session not found' }).waitFor();
    expect(await page.title()).toBe('Session not found · vss');
    const before = asked;
    // The page used to read the session again every 4 s while it is not ended: 5 s of its timers
    // run, then the sessions page, whose requests follow any the timers made.
    await page.clock.runFor(5_000);
    await page.getByRole('link', { name: '← Sessions' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect(asked).toBe(before);
    await context.close();
  });

  it(
    'shows the recording, exports a vertical presenter MP4, shares and redacts',
    { timeout: 180_000 },
    async () => {
      const context = await newContext(browser, vss.base);
      const page = await context.newPage();
      await signUp(page);
      const id = await recordSession(page, vss.base, 'Quarterly review');

      await page.goto(`/sessions/${id}`);
      await page.getByRole('heading', { name: 'Quarterly review' }).waitFor();
      await page.getByText('ended', { exact: true }).waitFor();
      const recording = page.getByRole('table', { name: 'Recorded participants and their tracks' });
      await recording.getByRole('rowheader', { name: 'alice' }).waitFor();
      await recording.getByRole('rowheader', { name: 'bob' }).waitFor();
      await poll(() => recording.getByRole('row', { name: /alice/ }).textContent()).toMatch(
        /camera.*microphone/,
      );
      // The recording's length reads as a line of its own under the whole table, not as part of one column:
      // no rule under the last row's first cell alone, one rule across the full width above it.
      const lines = await page.evaluate(() => {
        const frame = document.querySelector('.session-page .table-wrap')!;
        const lastHeader = frame.querySelector('tbody tr:last-child th')!;
        const total = Array.from(frame.querySelectorAll('p')).find((p) =>
          p.textContent!.startsWith('Recording length'),
        )!;
        return {
          underLastHeader: getComputedStyle(lastHeader).borderBottomWidth,
          aboveTotal: getComputedStyle(total).borderTopWidth,
          totalWidth: Math.round(total.getBoundingClientRect().width),
          frameWidth: Math.round(frame.clientWidth),
        };
      });
      expect(lines).toEqual({
        underLastHeader: '0px',
        aboveTotal: '1px',
        totalWidth: lines.frameWidth,
        frameWidth: lines.frameWidth,
      });
      expect(await page.getByRole('link', { name: 'Join live' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Replay' }).getAttribute('href')).toBe(
        `/sessions/${id}/replay`,
      );

      // Export: presenter, vertical, bob large; progress, then the download through the page's link.
      await page.getByLabel('Layout').selectOption('presenter');
      await page.getByLabel('Orientation').selectOption('vertical');
      await page.getByLabel('Focus').selectOption('bob');
      await page.getByRole('button', { name: 'Export MP4' }).click();
      const jobs = page.getByRole('list', { name: 'Exports' });
      await jobs.getByText('Presenter, vertical, focus bob').waitFor();
      // What is read out is the job's state, never each percent of its progress.
      await jobs.getByRole('status').first().waitFor();
      for (const said of await jobs.getByRole('status').allTextContents())
        expect(said).toMatch(/^Export state: (Queued|Rendering|Ready)$/);
      const download = page.getByRole('link', { name: 'Download MP4' });
      await download.waitFor({ timeout: 120_000 });
      expect(await jobs.textContent()).toMatch(/\d+(\.\d+)? KB|MB/);
      await screenshot(page, 'session', true);
      const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
      const saved = join(dir, 'export.mp4');
      await file.saveAs(saved);
      const info = await probe(saved);
      expect(info.video).toMatch(/h264/);
      expect(info.video).toMatch(/720x1280/);
      expect(info.audio).toMatch(/aac/);
      expect(info.durationS).toBeGreaterThan(1.5);

      // The usage page counts what this recording used: today's participant-minutes and stored bytes.
      await page.getByRole('link', { name: 'Usage & billing' }).click();
      await page
        .getByRole('img', {
          name: /^Streaming participant-minutes: 30 days .*latest (0\.\d*[1-9]|[1-9][\d.]*) min/,
        })
        .waitFor();
      await page
        .getByRole('img', { name: /^Storage at day end: 30 days .*latest [1-9][\d.]* [KM]B/ })
        .waitFor();
      await screenshot(page, 'usage');
      await page.goBack();
      await page.getByRole('heading', { name: 'Recording' }).waitFor();

      // Public: the session enters the catalog, and its public address is offered to copy.
      await page.getByRole('checkbox', { name: 'Public', exact: true }).check();
      await page.getByLabel('Public address').waitFor();
      expect(await page.getByLabel('Public address').textContent()).toBe(`${vss.base}/watch/${id}`);
      await page.getByRole('button', { name: 'Copy public address' }).waitFor();
      const catalog = await (await fetch(`${vss.base}/v1/public/sessions`)).json();
      expect(catalog.data.map((s: { id: string }) => s.id)).toContain(id);

      // Replay links: out-of-range expiries are stopped by the browser; a valid one is shown.
      const expiry = page.getByLabel('Expires in (minutes)');
      const createLink = page.getByRole('button', { name: 'Create replay link' });
      for (const bad of ['0', '50000']) {
        await expiry.fill(bad);
        await createLink.click();
        expect(await expiry.evaluate((e: HTMLInputElement) => e.validationMessage)).not.toBe('');
      }
      expect(await page.getByRole('list', { name: 'Replay links of this session' }).count()).toBe(0);
      await expiry.fill('60');
      await createLink.click();
      const created = page.getByRole('list', { name: 'Replay links of this session' });
      await created.waitFor();
      expect(await created.locator('code').textContent()).toMatch(
        new RegExp(`^${vss.base}/v1/public/sessions/${id}/replay\\?token=`),
      );
      await created.getByRole('button', { name: 'Copy link' }).click();
      await created.getByRole('button', { name: 'Copied' }).waitFor();
      await created.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        await created.locator('code').textContent(),
      );

      // A dialog closed with Cancel gives focus back to the button that opened it.
      await page.getByRole('button', { name: 'Revoke all links' }).click();
      await page
        .getByRole('dialog', { name: 'Revoke every replay link?' })
        .getByRole('button', { name: 'Cancel' })
        .click();
      await poll(() =>
        page.getByRole('button', { name: 'Revoke all links' }).evaluate((b) => b === document.activeElement),
      ).toBe(true);

      // Redaction: confirmed in a dialog, then the manifest no longer lists bob.
      await page.getByLabel('Participant to redact').selectOption('bob');
      await page.getByRole('button', { name: 'Redact…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Redact bob?' });
      await dialog.getByText('deleted from storage').waitFor();
      await dialog.getByRole('button', { name: 'Delete their media' }).click();
      await poll(() => page.getByRole('status').filter({ hasText: 'redacted' }).textContent()).toMatch(
        /bob redacted: 1 stream deleted/,
      );
      await poll(() => recording.getByRole('rowheader', { name: 'bob' }).count()).toBe(0);
      await recording.getByRole('rowheader', { name: 'alice' }).waitFor();
      // The export that showed bob is withdrawn, and says why.
      await poll(() => jobs.textContent()).toMatch(/Failed/);

      expect(await fitsPhone(page)).toBe(true);
      await page.setViewportSize({ width: 1280, height: 800 });

      // Deletion, confirmed: back to the list, without the session.
      await page.getByRole('button', { name: 'Delete session…' }).click();
      await page
        .getByRole('dialog', { name: 'Delete Quarterly review?' })
        .getByRole('button', { name: 'Delete session' })
        .click();
      await poll(() => new URL(page.url()).pathname).toBe('/sessions');
      await page.getByText('No sessions yet').waitFor();
      await context.close();
    },
  );
});
