// The call in two engines at once, as people really meet: a guest in Firefox (its page has no
// MediaStreamTrackProcessor, so its camera is read from a <video> and its microphone through an
// AudioWorklet or MediaRecorder) and a guest in Chromium, through one join link. Each must see
// and hear the other; the recording must replay in both engines and export with both voices.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeAudio, toneLevel } from '../../server/test/support/decode.js';
import { newAccount, startVss, type Vss } from './support/browser.js';
import { call, exported } from './support/record.js';
import {
  click,
  describeEngines,
  fill,
  launchChromium,
  launchFirefox,
  moving,
  picturesIn,
  replays,
  shot,
  startSound,
  text,
  until,
  type Sound,
} from './support/engines.js';

/** Firefox's fake microphone plays this tone (set by a preference); Chromium's beeps at 400 Hz. */
const FIREFOX_TONE_HZ = 1000;
const CHROMIUM_BEEP_HZ = 400;

describeEngines('a call between Firefox and Chromium', () => {
  let vss: Vss;
  let sound: Sound;
  let chromium: Browser;
  let key = '';
  let projectId = '';
  const open: Browser[] = [];
  const api = (method: string, path: string, body?: unknown) => call(vss, key, method, path, body);
  beforeAll(async () => {
    [vss, sound, chromium] = await Promise.all([startVss(), startSound(), launchChromium()]);
    ({ secret: key, projectId } = await newAccount(vss.base, 'engines'));
  });
  afterAll(async () => {
    for (const b of [...open, chromium]) await b?.close().catch(() => undefined);
    sound?.stop();
    await vss?.stop();
  });

  /** A session and a join link for guests. */
  async function meeting(name: string): Promise<{ id: string; url: string }> {
    const session = await api('POST', '/v1/sessions', { name });
    const link = await api('POST', `/v1/sessions/${session.id}/join-links`, {});
    return { id: session.id, url: link.url };
  }

  /** Opens the join link in a new page of `browser` and joins as `name`; returns the page. */
  async function guest(browser: Browser, url: string, name: string): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 800 });
    await page.goto(url);
    await fill(page, 'Name in this session', name);
    await click(page, 'Join');
    await until(page, `document.body.innerText.includes('Connected as ${name}')`, 30_000);
    return page;
  }

  /** The tile of the other person's camera (not this page's own). */
  const otherCam = 'figure[data-kind="cam"]:not(.own) canvas';
  const otherSpeaking = `!!document.querySelector('figure.speaking[data-kind="cam"]:not(.own)')`;

  /** Leaves the call from the page's own button; waits for the session to end. */
  async function endCall(pages: Page[], id: string): Promise<void> {
    for (const p of pages) await click(p, 'Leave');
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${id}`)).ended_at, { timeout: 20_000 })
      .toBeTruthy();
  }

  it('a Firefox guest and a Chromium guest see and hear each other and chat; the recording replays in both engines and exports with both voices', async () => {
    const firefox = await launchFirefox(sound, FIREFOX_TONE_HZ);
    open.push(firefox);
    const { id, url } = await meeting('Two engines');
    const fox = await guest(firefox, url, 'Fox');
    const chr = await guest(chromium, url, 'Chr');
    // Each sees the other's camera moving, and hears the other: the tile lights up while the
    // sound decoded from that person's microphone is loud.
    await Promise.all([moving(fox, otherCam), moving(chr, otherCam)]);
    await Promise.all([until(fox, otherSpeaking), until(chr, otherSpeaking)]);
    expect(await text(fox)).not.toMatch(/cannot hear|not being sent/);
    await shot(fox, 'firefox-live');
    // Chat both ways.
    await fill(fox, 'Message', 'hello from Firefox');
    await click(fox, 'Send');
    await fill(chr, 'Message', 'hello from Chromium');
    await click(chr, 'Send');
    for (const p of [fox, chr])
      await until(
        p,
        `['hello from Firefox', 'hello from Chromium'].every((t) => document.body.innerText.includes(t))`,
      );
    // Firefox's tab goes to the background (another tab in front): it keeps sending its sound
    // and at least two pictures a second, though requestVideoFrameCallback stops in a hidden
    // page (the capture worker's clock, or the page's own, takes over).
    const front = await firefox.newPage();
    await front.bringToFront();
    expect(await fox.evaluate('document.visibilityState')).toBe('hidden');
    expect(await picturesIn(chr, `canvas[aria-label="Fox's camera"]`, 4000)).toBeGreaterThanOrEqual(8);
    await until(chr, otherSpeaking);
    await front.close();
    await endCall([fox, chr], id);

    // The replay plays in both engines, both tiles drawn.
    await api('PUT', `/v1/sessions/${id}/visibility`, { is_public: true });
    const foxReplay = await firefox.newPage();
    await replays(foxReplay, vss.base, id);
    await shot(foxReplay, 'firefox-replay');
    await replays(await chromium.newPage(), vss.base, id);

    // The MP4 export (grid) has both voices: Firefox's tone and Chromium's beep.
    await exported(vss, key, id, async (file) => {
      const samples = await decodeAudio(file);
      const off = toneLevel(samples, 3_100);
      // eslint-disable-next-line no-console -- the measured levels, for a failure's reader
      console.log(
        `[engines] export tones: ${FIREFOX_TONE_HZ} Hz ${toneLevel(samples, FIREFOX_TONE_HZ).toFixed(1)}, ${CHROMIUM_BEEP_HZ} Hz ${toneLevel(samples, CHROMIUM_BEEP_HZ).toFixed(1)}, 3100 Hz ${off.toFixed(1)}`,
      );
      expect(toneLevel(samples, FIREFOX_TONE_HZ)).toBeGreaterThan(10 * off + 50);
      expect(toneLevel(samples, CHROMIUM_BEEP_HZ)).toBeGreaterThan(10 * off + 50);
    });
  });

  it('Firefox without a sound output still sends its microphone and says it cannot play sound; its replay plays the video with a notice', async () => {
    const firefox = await launchFirefox(null, FIREFOX_TONE_HZ);
    open.push(firefox);
    const { id, url } = await meeting('No speakers');
    const fox = await guest(firefox, url, 'Fox');
    const chr = await guest(chromium, url, 'Chr');
    await Promise.all([moving(fox, otherCam), moving(chr, otherCam)]);
    // Chromium hears Firefox's microphone (sent without an AudioContext).
    await until(chr, otherSpeaking, 30_000);
    // Firefox says, in words, that it cannot play the others' sound.
    await until(fox, `document.body.innerText.includes('You cannot hear the others')`);
    await shot(fox, 'firefox-no-speakers');
    expect(await text(fox)).not.toContain('microphone is not being sent');
    await endCall([fox, chr], id);
    await api('PUT', `/v1/sessions/${id}/visibility`, { is_public: true });
    const replay = await firefox.newPage();
    await replays(replay, vss.base, id);
    await until(replay, `document.body.innerText.includes('Sound unavailable')`);
  });

  it('the prebuilt room framed by another site works in Firefox: it joins from the frame, sees and is seen', async () => {
    const firefox = await launchFirefox(sound, FIREFOX_TONE_HZ);
    open.push(firefox);
    // A site on its own origin, listed in the project's embed origins, framing the room.
    let src = '';
    const site: Server = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><title>A site</title><iframe src="${src}" allow="camera; microphone; autoplay" style="width:900px;height:600px"></iframe>`,
        ),
    );
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      await api('PATCH', `/v1/projects/${projectId}`, { embed_origins: [origin] });
      const session = await api('POST', '/v1/sessions', { name: 'Embedded in Firefox' });
      const framed = async (browser: Browser, user: string): Promise<{ page: Page; room: Frame }> => {
        const token = (
          await api('POST', `/v1/sessions/${session.id}/connection`, { user_id: user, display_name: user })
        ).access_token;
        src = `${vss.base}/embed/${projectId}#token=${token}`;
        const page = await browser.newPage();
        await page.setViewport({ width: 1000, height: 700 });
        await page.goto(origin);
        const frame = () => page.frames().find((f) => f.url().includes('/embed/'));
        await expect.poll(() => !!frame(), { timeout: 15_000 }).toBe(true);
        const room = frame()!;
        await until(room, `!!document.querySelector('.vss-room')`, 30_000);
        return { page, room };
      };
      const fox = await framed(firefox, 'app-fox');
      const chr = await framed(chromium, 'app-chr');
      await Promise.all([
        moving(fox.room, 'canvas[aria-label="app-chr: camera"]'),
        moving(chr.room, 'canvas[aria-label="app-fox: camera"]'),
      ]);
      // The token left the frame's address at once.
      expect(fox.room.url()).not.toContain('#token=');
      for (const f of [fox, chr]) await f.page.close();
    } finally {
      site.close();
    }
  });
});
