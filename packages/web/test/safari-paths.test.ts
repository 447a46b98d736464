// Safari's ways through the SDK, taken in Chromium: no engine that runs here is Safari (WebKitGTK
// is another build of WebKit, with other gaps, see webkit.test.ts), so a Chromium page is given
// what Safari 18 gives a page, before the SDK loads: an Apple vendor and user agent (the SDK then
// publishes H.264), no MediaStreamTrackProcessor on the page (the microphone is read through the
// AudioWorklet; the camera goes to the capture worker, which Chromium cannot hand a track to, so
// it is read from a <video> as where Safari's worker fails), and an AudioEncoder without Opus
// (Safari before 26: the microphone goes out as PCM). A receiver in plain Chromium must see and
// hear that guest, the guest the receiver, and the recording must replay and export with the
// guest's voice. Safari's worker capture itself runs in no engine here: Chromium refuses to send
// a camera's track to a worker ("MediaStreamTracks with clones cannot be transferred", even with
// MediaStreamTrackTransfer enabled), Firefox and WebKitGTK have no processor in workers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeAudio, toneLevel } from '../../server/test/support/decode.js';
import { describeBrowser, newAccount, startVss, type Vss } from './support/browser.js';
import { click, fill, launchChromium, moving, replays, until } from './support/engines.js';
import { call, exported, watchCodecs } from './support/record.js';

const SAFARI_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15';

/** What Safari 18 lacks, taken away before any script of the page runs; and what the test watches. */
const AS_SAFARI = `(() => {
  Object.defineProperty(Navigator.prototype, 'vendor', { get: () => 'Apple Computer, Inc.' });
  delete window.MediaStreamTrackProcessor;
  const supported = AudioEncoder.isConfigSupported.bind(AudioEncoder);
  AudioEncoder.isConfigSupported = (config) =>
    config.codec === 'opus' ? Promise.resolve({ supported: false, config }) : supported(config);
  // Seen from outside, as a debugger would: the worklets the page loads.
  window.worklets = [];
  const addModule = AudioWorklet.prototype.addModule;
  AudioWorklet.prototype.addModule = function (url, options) {
    window.worklets.push(String(url));
    return addModule.call(this, url, options);
  };
})()`;

/** The guest's microphone plays this tone (a file as Chromium's fake device); the receiver's beeps at 400 Hz. */
const SAFARI_TONE_HZ = 700;
const CHROMIUM_BEEP_HZ = 400;

describeBrowser(
  "Safari's ways (H.264, capture without a page processor, PCM microphone), taken in Chromium",
  () => {
    let vss: Vss;
    let chromium: Browser;
    let safari: Browser;
    let key = '';
    let dir = '';
    const api = (method: string, path: string, body?: unknown) => call(vss, key, method, path, body);
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'vss-safari-'));
      const tone = join(dir, 'tone.wav');
      const made = spawnSync('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        `sine=frequency=${SAFARI_TONE_HZ}:duration=30`,
        '-ar',
        '48000',
        '-ac',
        '1',
        tone,
      ]);
      if (made.status !== 0) throw new Error(`ffmpeg: ${made.stderr.toString()}`);
      [vss, chromium, safari] = await Promise.all([
        startVss(),
        launchChromium(),
        launchChromium([`--use-file-for-fake-audio-capture=${tone}`]),
      ]);
      key = (await newAccount(vss.base, 'safari')).secret;
    });
    afterAll(async () => {
      for (const b of [safari, chromium]) await b?.close().catch(() => undefined);
      await vss?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Opens the join link in a new page of `browser` (after `prepare`) and joins as `name`. */
    async function guest(browser: Browser, url: string, name: string, prepare?: (p: Page) => Promise<void>) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1100, height: 800 });
      await prepare?.(page);
      await page.goto(url);
      await fill(page, 'Name in this session', name);
      await click(page, 'Join');
      await until(page, `document.body.innerText.includes('Connected as ${name}')`, 30_000);
      return page;
    }
    /** A person's camera tile (the observer in Node has a tile too). */
    const cam = (name: string) => `canvas[aria-label="${name}'s camera"]`;
    const otherSpeaking = `!!document.querySelector('figure.speaking[data-kind="cam"]:not(.own)')`;

    it('a guest with only what Safari 18 has publishes H.264 and, through its worklet, PCM; everyone sees and hears it, and the replay and export have it', async () => {
      const session = await api('POST', '/v1/sessions', { name: 'Safari paths' });
      const link = await api('POST', `/v1/sessions/${session.id}/join-links`, {});
      // Which codec each track is sent in, as the server relays it.
      const observer = await watchCodecs(vss, key, session.id);
      const codecs = (kind: string) =>
        new Set(
          [...observer.seen].filter(([stream]) => stream.endsWith(`/${kind}`)).flatMap(([, c]) => [...c]),
        );

      const mac = await guest(safari, link.url, 'Mac', async (p) => {
        await p.setUserAgent(SAFARI_UA);
        await p.evaluateOnNewDocument(AS_SAFARI);
      });
      const chr = await guest(chromium, link.url, 'Chr');
      await Promise.all([moving(chr, cam('Mac')), moving(mac, cam('Chr'))]);
      await Promise.all([until(chr, otherSpeaking, 30_000), until(mac, otherSpeaking, 30_000)]);
      // The microphone was read through the worklet.
      expect(await mac.evaluate('window.worklets')).toEqual([
        expect.stringMatching(/\/sdk\/mic-worklet\.js$/),
      ]);
      expect(codecs('cam')).toEqual(new Set(['avc1.42E01F', 'vp8']));
      expect(codecs('mic')).toEqual(new Set(['pcm-s16', 'opus']));
      await observer.close();

      for (const p of [mac, chr]) await click(p, 'Leave');
      await expect
        .poll(async () => (await api('GET', `/v1/sessions/${session.id}`)).ended_at, { timeout: 20_000 })
        .toBeTruthy();
      await api('PUT', `/v1/sessions/${session.id}/visibility`, { is_public: true });
      await replays(await chromium.newPage(), vss.base, session.id);
      await exported(vss, key, session.id, async (file) => {
        const samples = await decodeAudio(file);
        const off = toneLevel(samples, 3_100);
        // eslint-disable-next-line no-console -- the measured levels, for a failure's reader
        console.log(
          `[safari-paths] export tones: ${SAFARI_TONE_HZ} Hz ${toneLevel(samples, SAFARI_TONE_HZ).toFixed(1)}, ${CHROMIUM_BEEP_HZ} Hz ${toneLevel(samples, CHROMIUM_BEEP_HZ).toFixed(1)}, 3100 Hz ${off.toFixed(1)}`,
        );
        expect(toneLevel(samples, SAFARI_TONE_HZ)).toBeGreaterThan(10 * off + 50);
        expect(toneLevel(samples, CHROMIUM_BEEP_HZ)).toBeGreaterThan(10 * off + 50);
      });
    });
  },
);
