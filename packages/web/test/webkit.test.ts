// WebKit, the engine of Safari and of every iOS browser, in a call with Chromium: a guest in
// Debian's WebKitGTK (no MediaStreamTrackProcessor on its page or in its workers, so its camera is
// read from a <video>; its microphone through the AudioWorklet; VP8, as on every Linux browser:
// Safari's H.264 is tested forced in codecs.test.ts) and a guest in Chromium, through one join
// link. WebKitGTK decodes the others' Opus in WebAssembly (its own decoder's samples abort its web
// process when read, audio-out.ts), and must hear them; the recording replays in both engines and
// its MP4 export has both voices.
import type { Browser, Page } from 'puppeteer-core';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newAccount, SCREENSHOTS, startVss, type Vss } from './support/browser.js';
import { call, exported, watchCodecs } from './support/record.js';
import { decodeAudio, toneLevel } from '../../server/test/support/decode.js';
import {
  click,
  fill,
  launchChromium,
  moving,
  replays,
  startSound,
  text,
  until,
  type Sound,
  type Tab,
} from './support/engines.js';
import { describeWebKit, startWebKit, type WebKit, type WebKitTab } from './support/webkit.js';

describeWebKit('a call between WebKit and Chromium', () => {
  let vss: Vss;
  let sound: Sound;
  let chromium: Browser;
  let webkit: WebKit;
  let key = '';
  beforeAll(async () => {
    [vss, sound, chromium] = await Promise.all([startVss(), startSound(), launchChromium()]);
    webkit = startWebKit(sound);
    key = (await newAccount(vss.base, 'webkit')).secret;
  });
  afterAll(async () => {
    await webkit?.stop();
    await chromium?.close().catch(() => undefined);
    sound?.stop();
    await vss?.stop();
  });

  const api = (method: string, path: string, body?: unknown) => call(vss, key, method, path, body);
  const joinAs = async (tab: Tab, name: string) => {
    await fill(tab, 'Name in this session', name);
    await click(tab, 'Join');
    await until(tab, `document.body.innerText.includes('Connected as ${name}')`, 30_000);
  };
  /** A person's camera tile (an observer in Node watches too, with a tile of its own). */
  const cam = (name: string) => `canvas[aria-label="${name}'s camera"]`;

  it('a WebKit guest publishes its camera and microphone, sees and hears Chromium; the recording replays in both engines and exports with both voices', async () => {
    const session = await api('POST', '/v1/sessions', { name: 'WebKit and Chromium' });
    const link = await api('POST', `/v1/sessions/${session.id}/join-links`, {});
    const observer = await watchCodecs(vss, key, session.id);

    const wk: WebKitTab = await webkit.open();
    await wk.goto(link.url);
    await joinAs(wk, 'Safari');
    const chr: Page = await chromium.newPage();
    await chr.goto(link.url);
    await joinAs(chr, 'Chromium');

    // Each sees the other's camera and hears the other: the tile lights up while the sound decoded
    // from that person's microphone is loud (in WebKit, decoded in WebAssembly).
    const speaking = (name: string) =>
      `!!document.querySelector('figure.speaking canvas[aria-label="${name}\\'s camera"]')`;
    await moving(chr, cam('Safari'));
    await moving(wk, cam('Chromium'));
    await until(chr, speaking('Safari'), 30_000);
    await until(wk, speaking('Chromium'), 30_000);
    // Both send VP8 (WebKitGTK is not Apple's build: it encodes VP8 as every Linux browser does).
    expect([...observer.seen].filter(([stream]) => stream.endsWith('/cam')).map(([, c]) => [...c])).toEqual([
      ['vp8'],
      ['vp8'],
    ]);
    await observer.close();
    expect(await text(wk)).not.toMatch(/cannot hear|not being sent/);
    if (process.env.VSS_SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      writeFileSync(join(SCREENSHOTS, 'webkit-live.png'), await wk.driver.takeScreenshot(), 'base64');
    }
    await fill(wk, 'Message', 'hello from WebKit');
    await click(wk, 'Send');
    await until(chr, `document.body.innerText.includes('hello from WebKit')`);

    for (const p of [wk, chr]) await click(p, 'Leave');
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${session.id}`)).ended_at, { timeout: 20_000 })
      .toBeTruthy();
    // The replay plays in WebKit (both pictures, with sound) and in Chromium.
    await api('PUT', `/v1/sessions/${session.id}/visibility`, { is_public: true });
    await replays(wk, vss.base, session.id);
    expect(await text(wk)).not.toContain('Sound unavailable');
    await replays(await chromium.newPage(), vss.base, session.id);
    // The MP4 export has both voices: WebKit's mock microphone (a 150 Hz hum under its bip-bop) and
    // Chromium's 400 Hz beep, each standing out from the frequencies beside it.
    await exported(vss, key, session.id, async (file) => {
      const samples = await decodeAudio(file);
      const standsOut = (hz: number) =>
        toneLevel(samples, hz) / Math.max(toneLevel(samples, hz - 60), toneLevel(samples, hz + 60));
      // eslint-disable-next-line no-console -- the measured levels, for a failure's reader
      console.log(
        `[webkit] export tones: 150 Hz ${toneLevel(samples, 150).toFixed(1)} (${standsOut(150).toFixed(1)}× its neighbours), 400 Hz ${toneLevel(samples, 400).toFixed(1)} (${standsOut(400).toFixed(1)}×)`,
      );
      // Measured: the hum 47–55×, the beep 3.9–8.0× (WebKit's 500 Hz bop, a tone cut into 70 ms
      // bursts, spreads into the beep's neighbours).
      expect(standsOut(150)).toBeGreaterThan(4);
      expect(standsOut(400)).toBeGreaterThan(2);
    });
  });
});
