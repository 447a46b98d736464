import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { decodeVideo, probe, type Decoded } from '../../server/test/support/decode.js';
import { measureWith } from '../../server/src/modules/exports/font-metrics.js';
import { nameFont } from '../../server/src/modules/exports/fonts.js';
import { nameBar } from '../../server/src/modules/exports/name-bar.js';
import {
  createSession,
  describeBrowser,
  fitsPhone,
  newContext,
  poll,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** The tile on `page` whose caption reads exactly `name`. */
function tileOf(page: Page, name: string) {
  return page.locator('.tile').filter({ has: page.locator('.label', { hasText: new RegExp(`^${name}$`) }) });
}

/**
 * A fingerprint of what a remote tile's canvas shows (a sample of its pixels), or null while it
 * is blank: two different fingerprints mean the picture moved.
 */
function tilePicture(page: Page, name: string): Promise<string | null> {
  return tileOf(page, name)
    .locator('canvas')
    .evaluate((c: HTMLCanvasElement) => {
      const ctx = c.getContext('2d');
      if (!ctx || c.width < 16) return null;
      const { data } = ctx.getImageData(0, 0, c.width, c.height);
      let lit = 0;
      let sig = 0;
      for (let i = 0; i < data.length; i += 4 * 97) {
        if (data[i]! + data[i + 1]! + data[i + 2]! > 30) lit++;
        sig = (sig * 31 + data[i]! + 7 * data[i + 1]! + 13 * data[i + 2]!) % 1_000_000_007;
      }
      return lit > data.length / (4 * 97) / 2 ? String(sig) : null;
    });
}

/** Waits until `name`'s tile on `page` shows a picture, then until it changes: live video. */
async function seesMovingVideo(page: Page, name: string): Promise<void> {
  await tileOf(page, name).waitFor();
  await poll(() => tilePicture(page, name)).not.toBeNull();
  const first = await tilePicture(page, name);
  await poll(() => tilePicture(page, name)).not.toBe(first);
}

/** The mean colour of a rectangle of frame `i` (full-size coordinates), sampled every 4 pixels. */
function meanColour(
  v: Decoded,
  i: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): [number, number, number] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = y0; y < y1; y += 4)
    for (let x = x0; x < x1; x += 4) {
      const c = v.at(i, x, y);
      for (let k = 0; k < 3; k++) sum[k]! += c[k]!;
      n++;
    }
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}

describeBrowser('guests: a join link, the pre-join screen, removal', () => {
  let vss: Vss;
  let browser: Browser;
  let dir: string;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vss-guests-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'an owner invites a guest by link; they see, hear and chat under their names; the owner removes her; the recording and its export have them both',
    { timeout: 240_000 },
    async () => {
      // The owner makes a session and a join link on the session page, and copies its address.
      const ctxA = await newContext(browser, vss.base);
      const a = await ctxA.newPage();
      const email = await signUp(a, `olivia.host-${Date.now()}@example.com`);
      const { id, path } = await createSession(a, 'Guest call');
      const invite = a.getByRole('region', { name: 'Invite people' });
      await invite.getByText('No join links yet.').waitFor();
      await invite.getByLabel('Uses allowed').fill('3');
      await invite.getByRole('button', { name: 'Create join link' }).click();
      const fresh = a.getByRole('region', { name: 'New join link' });
      const url = (await fresh.locator('code').textContent())!;
      expect(url).toMatch(new RegExp(`^${vss.base}/join/[^/]+$`));
      await fresh.getByRole('button', { name: 'Copy link' }).click();
      await fresh.getByText('Copied to the clipboard.').waitFor();
      expect(await a.evaluate(() => navigator.clipboard.readText())).toBe(url);
      const links = invite.getByRole('list', { name: 'Join links of this session' });
      await links.getByText(/Used 0 of 3 times · camera and microphone/).waitFor();
      await screenshot(a, 'join-link');

      // A guest in a browser profile of her own (no cookie) opens it: the session's name, an empty name.
      const ctxG = await newContext(browser, vss.base);
      const g = await ctxG.newPage();
      await g.goto(url);
      await g.getByRole('heading', { name: 'Join Guest call' }).waitFor();
      expect(new URL(g.url()).pathname).toMatch(/^\/join\//);
      const guestName = g.getByLabel('Name in this session');
      expect(await guestName.inputValue()).toBe('');
      // Without a name (none, or only spaces), nothing is asked of the server.
      await g.getByRole('button', { name: 'Join' }).click();
      expect(await guestName.evaluate((e: HTMLInputElement) => e.validationMessage)).not.toBe('');
      await guestName.fill('   ');
      await g.getByRole('button', { name: 'Join' }).click();
      await g.getByRole('alert').filter({ hasText: 'Enter the name the others will see.' }).waitFor();
      await guestName.fill('Ana María');

      // She picks the fake camera (named once the page may use it) and sees it in the preview.
      const camera = g.getByLabel('Camera', { exact: true });
      await poll(() => camera.locator('option').allTextContents()).toContainEqual(
        expect.stringMatching(/fake/i),
      );
      const fake = (await camera.locator('option').allTextContents()).find((t) => /fake/i.test(t))!;
      await camera.selectOption({ label: fake });
      const preview = g.getByLabel('Camera preview');
      const frames = await preview.evaluate(
        (v: HTMLVideoElement) =>
          new Promise<{ width: number; from: number; to: number }>((resolve) => {
            let from = -1;
            const onFrame = () => {
              if (v.videoWidth > 0 && from < 0) from = v.currentTime;
              if (from >= 0 && v.currentTime > from + 0.3)
                return resolve({ width: v.videoWidth, from, to: v.currentTime });
              v.requestVideoFrameCallback(onFrame);
            };
            v.requestVideoFrameCallback(onFrame);
          }),
      );
      expect(frames.width).toBeGreaterThan(0);
      expect(frames.to).toBeGreaterThan(frames.from);
      // The microphone's level moves with the fake microphone's beeps.
      await poll(() =>
        g.getByLabel('Microphone level').evaluate((m: HTMLMeterElement) => m.value),
      ).toBeGreaterThan(0.05);
      await screenshot(g, 'pre-join');
      expect(await fitsPhone(g)).toBe(true);
      await g.setViewportSize({ width: 1280, height: 800 });

      // She joins; her connection (its token) is kept to try again after her removal.
      const answered = g.waitForResponse(
        (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/v1/join/'),
      );
      await g.getByRole('button', { name: 'Join' }).click();
      const guest = (await (await answered).json()).data as { access_token: string; user_id: string };
      expect(guest.user_id).toMatch(/^guest-/);
      await g.getByRole('status').filter({ hasText: 'Connected as Ana María' }).waitFor();
      // The session page counts the use.
      await a.reload();
      await links.getByText(/Used 1 of 3 times/).waitFor();

      // The owner joins under a name of her own, offered from her account first.
      await a.goto(`${path}/live`);
      const ownerName = a.getByLabel('Name in this session');
      await poll(() => ownerName.inputValue()).toBe(email.split('@')[0]);
      await ownerName.fill('Olivia Hernández');
      await a.getByRole('button', { name: 'Join' }).click();
      await a.getByRole('status').filter({ hasText: 'Connected as Olivia Hernández' }).waitFor();

      // Each sees the other's moving picture, captioned with the other's name, and the people list.
      await seesMovingVideo(a, 'Ana María');
      await seesMovingVideo(g, 'Olivia Hernández');
      await a
        .getByRole('list', { name: /People/ })
        .getByText('Ana María')
        .waitFor();
      await g
        .getByRole('list', { name: /People/ })
        .getByText('Olivia Hernández')
        .waitFor();
      // A guest removes nobody.
      expect(await g.getByRole('button', { name: /^Remove/ }).count()).toBe(0);

      // Chat both ways, each message under its sender's name.
      await g.getByLabel('Message').fill('¡Hola! Ana here');
      await g.getByRole('button', { name: 'Send' }).click();
      const chatA = a.getByRole('list', { name: 'Chat' });
      await chatA.getByText('¡Hola! Ana here').waitFor();
      expect(
        await chatA.locator('li').filter({ hasText: '¡Hola! Ana here' }).locator('strong').textContent(),
      ).toBe('Ana María');
      await a.getByLabel('Message').fill('Welcome, Ana');
      await a.getByRole('button', { name: 'Send' }).click();
      const chatG = g.getByRole('list', { name: 'Chat' });
      await chatG.getByText('Welcome, Ana').waitFor();
      expect(
        await chatG.locator('li').filter({ hasText: 'Welcome, Ana' }).locator('strong').textContent(),
      ).toBe('Olivia Hernández');
      await screenshot(a, 'guest-live');

      // The owner removes her, after confirming.
      await a.getByRole('button', { name: 'Remove Ana María' }).click();
      const confirm = a.getByRole('dialog', { name: 'Remove Ana María from the call?' });
      await confirm.getByRole('button', { name: 'Remove' }).click();
      await confirm.waitFor({ state: 'detached' });
      await tileOf(a, 'Ana María').waitFor({ state: 'detached' });
      // Her page says so in words, and lets go of her camera and microphone.
      await g.getByRole('heading', { name: 'You were removed from the call' }).waitFor();
      await poll(() =>
        g.evaluate(() =>
          Array.from(document.querySelectorAll('video')).some((v) =>
            ((v.srcObject as MediaStream | null)?.getTracks() ?? []).some((t) => t.readyState === 'live'),
          ),
        ),
      ).toBe(false);
      await screenshot(g, 'removed');

      // Her old token no longer lets her in: refused before the upgrade.
      const wsUrl = `${vss.base.replace(/^http/, 'ws')}/ws?${new URLSearchParams({
        session: id,
        access_token: guest.access_token,
        user_id: guest.user_id,
      })}`;
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(wsUrl);
        ws.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on('open', () => {
          ws.close();
          reject(new Error('the removed guest was let in again'));
        });
        ws.on('error', () => undefined);
      });
      expect(status).toBe(403);
      // Nor does the link, from the tab she joined in (it comes back as the same guest).
      await g.goto(url);
      await g.getByLabel('Name in this session').fill('Ana María');
      await g.getByRole('button', { name: 'Join' }).click();
      await g.getByRole('alert').filter({ hasText: 'The host removed you from this session' }).waitFor();
      await g.getByRole('heading', { name: 'Join Guest call' }).waitFor();

      // The owner leaves; the session ends. Its page names both in the recording, and offers no join link.
      await a.getByRole('button', { name: 'Leave' }).click();
      await poll(() => new URL(a.url()).pathname).toBe(path);
      await a.getByText('ended', { exact: true }).waitFor({ timeout: 30_000 });
      const recording = a.getByRole('table', { name: 'Recorded participants and their tracks' });
      await recording.getByRole('rowheader', { name: /Ana María/ }).waitFor();
      await recording.getByRole('rowheader', { name: /Olivia Hernández/ }).waitFor();
      expect(await a.getByRole('region', { name: 'Invite people' }).count()).toBe(0);

      // The join link now says the session ended, without a join button; once the session is
      // public, it leads to the public replay.
      await g.goto(url);
      await g.getByRole('heading', { name: 'Guest call has ended' }).waitFor();
      expect(await g.getByRole('button', { name: 'Join' }).count()).toBe(0);
      expect(await g.getByRole('link', { name: 'Watch the replay' }).count()).toBe(0);
      await a.getByRole('checkbox', { name: 'Public', exact: true }).check();
      await a.getByLabel('Public address').waitFor();
      await g.reload();
      await g.getByRole('heading', { name: 'Guest call has ended' }).waitFor();
      expect(await g.getByRole('link', { name: 'Watch the replay' }).getAttribute('href')).toBe(
        `/watch/${id}`,
      );

      // The replay captions each camera with its name.
      await a.goto(`${path}/replay`);
      await a.getByRole('img', { name: 'Video of Ana María' }).waitFor();
      await a.getByRole('img', { name: 'Video of Olivia Hernández' }).waitFor();
      await a.goto(path);

      // Export to MP4: two tiles, each with a dark name bar along its bottom.
      await a.getByRole('button', { name: 'Export MP4' }).click();
      const download = a.getByRole('link', { name: 'Download MP4' });
      await download.waitFor({ timeout: 150_000 });
      const [file] = await Promise.all([a.waitForEvent('download'), download.click()]);
      const saved = join(dir, 'guests.mp4');
      await file.saveAs(saved);
      const info = await probe(saved);
      expect(info.video).toMatch(/1280x720/);
      // Both cameras side by side at some moment (each tile's middle shows the fake camera's green),
      // not one person's name on a plain tile while the other's camera plays.
      const video = await decodeVideo(saved, 1280, 720);
      const green = (i: number, x0: number) => {
        const [r, g, b] = meanColour(video, i, x0 + 120, 240, x0 + 520, 480);
        return g > r + 40 && g > b + 40;
      };
      const both = video.frames.findIndex((_, i) => green(i, 0) && green(i, 644));
      expect(both, `no frame of ${video.frames.length} shows both cameras`).toBeGreaterThanOrEqual(0);
      // Each camera carries a name bar as wide as its display name set in the export's font (the
      // guest's user id, "guest-" and 17 more characters, would give a far wider one): measured
      // along a row of the bar above its text, where the dark strip lies on the camera's green.
      const measure = measureWith(nameFont());
      const expected = ['Ana María', 'Olivia Hernández'].map((n) => nameBar(636, 720, n, measure)!);
      const barWidth = (x0: number) => {
        let bottom = 719;
        while (bottom > 0 && meanColour(video, both, x0 + 300, bottom, x0 + 340, bottom + 1)[1] < 40)
          bottom--;
        const b = expected[0]!;
        const y = bottom - b.bottom - b.h + 3;
        // From past the camera's bright corner square, to where the bar gives way to the green.
        let x = x0 + 48;
        for (; x < x0 + 600; x++) {
          const [r, g] = video.at(both, x, y);
          if (!(g > 25 && g < 95 && r < 60)) break;
        }
        return x - x0 - b.x;
      };
      const widths = [barWidth(0), barWidth(644)].sort((p, q) => p - q);
      const wanted = expected.map((b) => b.w).sort((p, q) => p - q);
      for (let k = 0; k < 2; k++)
        expect(Math.abs(widths[k]! - wanted[k]!), `bars ${widths} against ${wanted}`).toBeLessThanOrEqual(6);
      await ctxA.close();
      await ctxG.close();
    },
  );

  it('a watch-only link: no devices, chat; a used-up link and a wrong one are said in words', async () => {
    const ctxA = await newContext(browser, vss.base);
    const a = await ctxA.newPage();
    await signUp(a);
    const { path } = await createSession(a, 'Town hall');
    const invite = a.getByRole('region', { name: 'Invite people' });
    await invite.getByLabel('Uses allowed').fill('1');
    await invite.getByLabel('Can share camera and microphone').uncheck();
    await invite.getByRole('button', { name: 'Create join link' }).click();
    const url = (await a.getByRole('region', { name: 'New join link' }).locator('code').textContent())!;
    await invite.getByText(/Used 0 of 1 time · watch and chat only/).waitFor();

    // The guest is told she watches and chats; no camera or microphone is asked for.
    const ctxG = await newContext(browser, vss.base);
    const g = await ctxG.newPage();
    await g.goto(url);
    await g.getByRole('heading', { name: 'Join Town hall' }).waitFor();
    await g.getByText('You can watch and chat in this session').waitFor();
    expect(await g.getByLabel('Camera', { exact: true }).count()).toBe(0);
    expect(await g.getByLabel('Camera preview').count()).toBe(0);
    await g.getByLabel('Name in this session').fill('Zoë');
    const joined = g.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/v1/join/'));
    await g.getByRole('button', { name: 'Join' }).click();
    const zoe = (await (await joined).json()).data.user_id as string;
    await g.getByRole('status').filter({ hasText: 'Connected as Zoë' }).waitFor();
    expect(await g.getByRole('group', { name: 'Your devices' }).count()).toBe(0);
    await g.getByLabel('Message').fill('Listening in');
    await g.getByRole('button', { name: 'Send' }).click();
    await g.getByRole('list', { name: 'Chat' }).getByText('Listening in').waitFor();
    expect(
      await g.evaluate(() =>
        Array.from(document.querySelectorAll('video')).some((v) => v.srcObject !== null),
      ),
    ).toBe(false);

    // The one use is taken: someone else with the same link is told so before typing anything.
    const ctxH = await newContext(browser, vss.base);
    const h = await ctxH.newPage();
    await h.goto(url);
    await h.getByRole('heading', { name: 'This invitation link has been used up' }).waitFor();
    await h.getByText('used as many times as it allows').waitFor();
    expect(await h.getByLabel('Name in this session').count()).toBe(0);

    // A link that is not one: said in words, nothing to join.
    await h.goto(`/join/not-a-real-token`);
    await h.getByRole('heading', { name: 'This invitation link does not work' }).waitFor();
    expect(await h.getByRole('button', { name: 'Join' }).count()).toBe(0);

    // The guest leaves; the page says so and offers to join again: she comes back as the same
    // guest, though the link's one use is taken.
    await g.getByRole('button', { name: 'Leave' }).click();
    await g.getByRole('heading', { name: 'You left the call' }).waitFor();
    await g.getByRole('button', { name: 'Join again' }).click();
    expect(await g.getByLabel('Name in this session').inputValue()).toBe('Zoë');
    const again = g.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/v1/join/'));
    await g.getByRole('button', { name: 'Join' }).click();
    expect((await (await again).json()).data.user_id).toBe(zoe);
    await g.getByRole('status').filter({ hasText: 'Connected as Zoë' }).waitFor();
    await g.getByRole('button', { name: 'Leave' }).click();
    await g.getByRole('heading', { name: 'You left the call' }).waitFor();
    await a.goto(path);
    await ctxA.close();
    await ctxG.close();
    await ctxH.close();
  });
});
