import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
  fitsPhone,
  newContext,
  poll,
  SCREENSHOTS,
  signUp,
  useBrowserApp,
  type Vss,
  liveToken,
} from './support/browser.js';

/**
 * Records 4 s of a session over the real WebSocket, as the signed-in user of `page`: alice with a
 * blue VP8 camera and an opus tone; then she leaves and the session ends.
 */
async function recordSession(page: Page, base: string): Promise<string> {
  const session = await dashboardPost(page.request, base, '/v1/sessions', { name: 'Clip me' });
  const [blue, tone] = await Promise.all([vpxChunks('vp8', 'blue', 4), opusPackets(440, 4)]);
  // In the recent past, so that the media are the recording's first and last moments.
  const startMs = Date.now() - 5_000;
  const alice = nodeLiveClient(base, session.id, 'alice', () => liveToken(page, session.id, 'alice'));
  await alice.connect();
  for (const c of blue)
    await alice.publish('media/alice/cam', evc1('vp8', c, 0), {
      timestampMs: startMs + c.offsetUs / 1000,
      binary: true,
    });
  for (const c of tone)
    await alice.publish('media/alice/mic', evc1('opus', c, 0), {
      timestampMs: startMs + c.offsetUs / 1000,
      binary: true,
    });
  // One acknowledged message: everything before it is durably recorded.
  await alice.publishChat('bye', { ack: true });
  await alice.close();
  await eventually(
    async () => (await (await page.request.get(`${base}/v1/sessions/${session.id}`)).json()).data.ended_at,
    20_000,
    'the session to end',
  );
  return session.id;
}

describeBrowser('the export options on the session page', () => {
  let vss: Vss;
  let browser: Browser;
  let dir: string;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vss-export-options-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'refuses a clip that ends before it starts or runs past the recording, sending nothing; exports a clip of the sound alone, and an active-speaker video clip',
    { timeout: 180_000 },
    async () => {
      const context = await newContext(browser, vss.base);
      const page = await context.newPage();
      await signUp(page);
      const id = await recordSession(page, vss.base);
      const queued: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === `/v1/sessions/${id}/exports`)
          queued.push(r.postData() ?? '');
      });

      await page.goto(`/sessions/${id}`);
      const panel = page.getByRole('region', { name: 'Export', exact: true });
      await panel.getByRole('heading', { name: 'Export' }).waitFor();
      const length = /Recording length (\d+:\d\d)/.exec(
        (await page.getByText(/^Recording length/).textContent())!,
      )![1]!;
      await panel.getByText(`which is ${length} long`).waitFor();
      const start = panel.getByLabel('Start', { exact: true });
      const end = panel.getByLabel('End', { exact: true });

      // An end before the start: said under the end, and nothing is queued.
      await start.fill('0:03');
      await end.fill('0:01');
      await panel.getByRole('button', { name: 'Export MP4' }).click();
      await panel.getByRole('alert').filter({ hasText: 'The end must be after the start' }).waitFor();
      expect(await end.getAttribute('aria-invalid')).toBe('true');
      // Not a time at all.
      await end.fill('soon');
      await panel.getByRole('button', { name: 'Export MP4' }).click();
      await panel.getByRole('alert').filter({ hasText: 'Write the end as minutes and seconds' }).waitFor();
      // Past the end of the recording (read again on export), in its length as the page shows it.
      await start.fill('9:00');
      await end.fill('');
      await panel.getByRole('button', { name: 'Export MP4' }).click();
      await panel
        .getByRole('alert')
        .filter({ hasText: `That is past the end of the recording (${length})` })
        .waitFor();
      expect(await start.getAttribute('aria-invalid')).toBe('true');
      expect(queued).toEqual([]);
      expect(await page.getByRole('list', { name: 'Exports' }).count()).toBe(0);

      // Audio only: the picture options go away; a clip from 0:01 to 0:03.
      await panel.getByLabel('Format').selectOption('m4a');
      for (const picture of ['Layout', 'Orientation', 'Resolution', 'Focus', 'Show names'])
        expect(await panel.getByLabel(picture).count(), picture).toBe(0);
      await start.fill('0:01');
      await end.fill('0:03');
      expect(await panel.getByRole('alert').count()).toBe(0);
      await panel.getByRole('button', { name: 'Export audio' }).click();
      const jobs = page.getByRole('list', { name: 'Exports' });
      const audio = jobs.getByRole('listitem').filter({ hasText: 'Audio only · 0:01–0:03' });
      await audio.waitFor();
      expect(queued).toHaveLength(1);
      expect(JSON.parse(queued[0]!)).toMatchObject({ format: 'm4a' });
      expect(JSON.parse(queued[0]!)).not.toHaveProperty('layout');
      const download = audio.getByRole('link', { name: 'Download M4A' });
      await download.waitFor({ timeout: 120_000 });
      const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
      // Named after the session and the clip's span.
      expect(file.suggestedFilename()).toBe('Clip me 00-00-01–00-00-03.m4a');
      const saved = join(dir, 'clip.m4a');
      await file.saveAs(saved);
      const info = await probe(saved);
      expect(info.video).toBe('');
      expect(info.audio).toMatch(/aac/);
      expect(info.durationS).toBeGreaterThan(1.8);
      expect(info.durationS).toBeLessThan(2.2);

      // Video again: active speaker, 1080p, no names, from 0:02 to the end.
      await panel.getByLabel('Format').selectOption('mp4');
      await panel.getByLabel('Layout').selectOption({ label: 'Active speaker' });
      await panel.getByLabel('Resolution').selectOption('1080p');
      await panel.getByLabel('Orientation').getByRole('option', { name: 'Landscape (1920×1080)' }).waitFor({
        state: 'attached',
      });
      expect(await panel.getByLabel('Show names').isChecked()).toBe(true);
      await panel.getByLabel('Show names').uncheck();
      await start.fill('0:02');
      await end.fill('');
      await panel.getByRole('button', { name: 'Export MP4' }).click();
      const video = jobs
        .getByRole('listitem')
        .filter({ hasText: /Active speaker, landscape · 1080p · no names · 0:02–\d+:\d\d/ });
      await video.getByRole('link', { name: 'Download MP4' }).waitFor({ timeout: 120_000 });
      expect(JSON.parse(queued[1]!)).toMatchObject({
        format: 'mp4',
        layout: 'speaker',
        resolution: '1080p',
        names: false,
      });

      // The picture of the panel: an end before the start said, with both exports listed.
      await start.fill('0:03');
      await end.fill('0:01');
      await panel.getByRole('button', { name: 'Export MP4' }).click();
      await panel.getByRole('alert').filter({ hasText: 'The end must be after the start' }).waitFor();
      expect(queued).toHaveLength(2);
      await panel.getByLabel('Show names').check();
      if (process.env.VSS_SCREENSHOTS) {
        // The whole page's picture from its top, cut to the panel: the sticky top bar stays above it.
        await page.evaluate(() => window.scrollTo(0, 0));
        const box = (await panel.boundingBox())!;
        const scrollY = await page.evaluate(() => window.scrollY);
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({
          path: join(SCREENSHOTS, 'export-options.png'),
          fullPage: true,
          clip: { x: box.x - 8, y: box.y + scrollY - 8, width: box.width + 16, height: box.height + 16 },
        });
      }
      await poll(() => fitsPhone(page)).toBe(true);
      await context.close();
    },
  );
});
