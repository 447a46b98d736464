// One session, two video codecs: a publisher that sends H.264 (as Safari and every iOS browser do,
// forced here in Chromium through the SDK's `videoCodec`), one in Firefox that sends VP8, and a
// receiver in Chromium. Everyone draws both; the recording replays both and its grid export shows
// both moving. The SDK runs on a page of another origin, as a team embeds it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../server/test/support/process.js';
import { decodeVideo } from '../../server/test/support/decode.js';
import { newAccount, startVss, type Vss } from './support/browser.js';
import { call, exported, watchCodecs } from './support/record.js';
import {
  describeEngines,
  launchChromium,
  launchFirefox,
  moving,
  replays,
  startSound,
  until,
  type Sound,
} from './support/engines.js';

describeEngines('a call with an H.264 and a VP8 publisher', () => {
  let vss: Vss;
  let sound: Sound;
  let chromium: Browser;
  let firefox: Browser;
  let key = '';
  let site: Server;
  let siteBase = '';
  beforeAll(async () => {
    [vss, sound, chromium] = await Promise.all([startVss(), startSound(), launchChromium()]);
    firefox = await launchFirefox(sound);
    key = (await newAccount(vss.base, 'codecs')).secret;
    // The app's page: joins with the token and codec in its address's fragment.
    const page = `<!doctype html><meta charset="utf-8"><title>App</title><div id="call" style="height:90vh"></div>
<script type="module">
  import { joinRoom } from '${vss.base}/sdk/vss.js';
  const q = new URLSearchParams(location.hash.slice(1));
  window.room = await joinRoom({
    token: q.get('token'),
    videoCodec: q.get('codec') || undefined,
    camera: q.get('watch') === null,
    microphone: q.get('watch') === null,
    container: document.getElementById('call'),
  });
</script>`;
    const port = await freePort();
    siteBase = `http://127.0.0.1:${port}`;
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((r) => site.listen(port, '127.0.0.1', r));
  });
  afterAll(async () => {
    await firefox?.close().catch(() => undefined);
    await chromium?.close().catch(() => undefined);
    sound?.stop();
    site?.close();
    await vss?.stop();
  });

  const api = (method: string, path: string, body?: unknown) => call(vss, key, method, path, body);

  it('everyone draws both; the recording replays both and its grid export shows both moving', async () => {
    const session = await api('POST', '/v1/sessions', { name: 'Two codecs' });
    const token = async (user: string, name: string) =>
      (await api('POST', `/v1/sessions/${session.id}/connection`, { user_id: user, display_name: name }))
        .access_token as string;
    // What each publisher sends, as the server relays it.
    const observer = await watchCodecs(vss, key, session.id);

    const enter = async (browser: Browser, user: string, name: string, extra: string) => {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 1100, height: 800 });
      await page.goto(`${siteBase}/#token=${await token(user, name)}${extra}`);
      await until(page, 'window.room');
      return page;
    };
    const alice = await enter(chromium, 'alice', 'Alice', '&codec=h264');
    const bob = await enter(firefox, 'bob', 'Bob', '');
    const carol = await enter(chromium, 'carol', 'Carol', '&watch=1');
    const cam = (name: string) => `canvas[aria-label="${name}: camera"]`;
    await Promise.all([
      moving(alice, cam('Bob')),
      moving(bob, cam('Alice')),
      moving(carol, cam('Alice')),
      moving(carol, cam('Bob')),
    ]);
    expect(observer.seen.get('media/alice/cam')).toEqual(new Set(['avc1.42E01F']));
    expect(observer.seen.get('media/bob/cam')).toEqual(new Set(['vp8']));
    await observer.close();
    for (const p of [alice, bob, carol] as Page[]) await p.evaluate('window.room.leave()');
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${session.id}`)).ended_at, { timeout: 20_000 })
      .toBeTruthy();

    // The replay draws both, in Chromium and Firefox.
    await api('PUT', `/v1/sessions/${session.id}/visibility`, { is_public: true });
    await replays(await chromium.newPage(), vss.base, session.id);
    await replays(await firefox.newPage(), vss.base, session.id);

    // The grid export: two tiles side by side, each moving.
    await exported(vss, key, session.id, async (file) => {
      if (process.env.KEEP_EXPORT) writeFileSync(process.env.KEEP_EXPORT, readFileSync(file));
      const v = await decodeVideo(file, 1280, 720);
      // How much each half of the picture changes between frames a second apart, at the moment it
      // changes most: the call is a few seconds long, Firefox's camera starts later than Chromium's
      // and the two leave one after the other, so no one moment is sure to show both moving.
      const change = (x0: number, a: number, b: number) => {
        let d = 0;
        for (let y = 40; y < 680; y += 8)
          for (let x = x0 + 40; x < x0 + 600; x += 8) {
            const p = v.at(a, x, y);
            const q = v.at(b, x, y);
            d += Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) + Math.abs(p[2] - q[2]);
          }
        return d;
      };
      const most = (x0: number) => {
        let best = 0;
        for (let a = 0; a + 15 < v.frames.length; a += 3) best = Math.max(best, change(x0, a, a + 15));
        return best;
      };
      expect(most(0)).toBeGreaterThan(1000);
      expect(most(640)).toBeGreaterThan(1000);
    });
  });
});
