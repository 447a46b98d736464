import { LiveClient } from '@vss/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { evc1, vpxChunks } from '../../server/test/support/media.js';
import {
  describeBrowser,
  launchBrowser,
  newContext,
  poll,
  accountId,
  liveToken,
  signUp,
  signUpMember,
  type Vss,
  useBrowserApp,
  joinLive,
} from './support/browser.js';

/** An RGB colour. */
type Rgb = [number, number, number];

/**
 * The mean colour of a 9×9 block of the fake camera's plain background (right of its moving
 * pie, clear of its corner marks and clock), read from a canvas or a video element as drawn.
 * Null while nothing is drawn yet.
 */
function background(page: Page, selector: string): Promise<Rgb | null> {
  return page.locator(selector).evaluate((el: HTMLCanvasElement | HTMLVideoElement) => {
    const w = el instanceof HTMLVideoElement ? el.videoWidth : el.width;
    const h = el instanceof HTMLVideoElement ? el.videoHeight : el.height;
    if (w < 16 || h < 16) return null;
    let ctx: CanvasRenderingContext2D | null;
    if (el instanceof HTMLVideoElement) {
      const c = document.createElement('canvas');
      c.width = w;
      c.height = h;
      ctx = c.getContext('2d');
      ctx?.drawImage(el, 0, 0, w, h);
    } else {
      ctx = el.getContext('2d');
    }
    if (!ctx) return null;
    const { data } = ctx.getImageData(Math.floor(w * 0.85) - 4, Math.floor(h * 0.5) - 4, 9, 9);
    const sum = [0, 0, 0];
    for (let i = 0; i < data.length; i += 4) {
      if (!data[i + 3]) return null;
      for (let c = 0; c < 3; c++) sum[c]! += data[i + c]!;
    }
    return sum.map((s) => Math.round(s / (data.length / 4))) as [number, number, number];
  });
}

/** True when `c` is within 5 levels of `ref` in every channel. */
const near = (ref: Rgb) => (c: Rgb | null) => !!c && c.every((v, i) => Math.abs(v - ref[i]!) <= 5);

describeBrowser('the colours of a camera, live and replayed', () => {
  let vss: Vss;
  let browser: Browser;
  let other: Browser | undefined;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });
  afterAll(async () => {
    await other?.close();
  });

  it('a remote tile and the replay show the camera in the colours its own preview shows', async () => {
    // bob in a browser of his own: one browser's fake camera gives every page the same size.
    other = await launchBrowser();
    const ctxA = await newContext(browser, vss.base);
    const ctxB = await newContext(other, vss.base);
    // bob's camera gives 1280×720, more than the camera profile sends: his pictures are scaled
    // before encoding, where alice's 640×480 go to the encoder as the camera made them.
    await ctxB.addInitScript(() => {
      const md = navigator.mediaDevices;
      const original = md.getUserMedia.bind(md);
      md.getUserMedia = (c?: MediaStreamConstraints) =>
        original(c?.video ? { ...c, video: { width: { exact: 1280 }, height: { exact: 720 } } } : c);
    });
    const a = await ctxA.newPage();
    const b = await ctxB.newPage();
    await signUp(a);
    await a.getByLabel('New session name').fill('Colour check');
    await a.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => new URL(a.url()).pathname).toMatch(/^\/sessions\/[0-9a-f-]{36}$/);
    const sessionPath = new URL(a.url()).pathname;
    await a.goto(`${sessionPath}/live`);
    await joinLive(a, 'alice');
    await signUpMember(a, b);
    await b.goto(`${sessionPath}/live`);
    await joinLive(b, 'bob');
    const alice = await accountId(a);
    const bob = await accountId(b);

    const own = (user: string) => `.tile.own[data-user="${user}"][data-kind="cam"] video`;
    const remote = (user: string) => `.tile[data-user="${user}"][data-kind="cam"]:not(.own) canvas`;
    // Each camera's own preview: Chromium's fake camera, a plain green background.
    const colours = new Map<string, Rgb>();
    for (const [page, user, size] of [
      [a, alice, [640, 480]],
      [b, bob, [1280, 720]],
    ] as const) {
      await poll(() =>
        page.locator(own(user)).evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight]),
      ).toEqual(size);
      await poll(() => background(page, own(user))).toSatisfy((c: Rgb | null) => !!c && c[1] > 100);
      const c = (await background(page, own(user)))!;
      expect(c[0], `red of ${user}'s preview ${c.join(',')}`).toBeLessThan(20);
      expect(c[2], `blue of ${user}'s preview ${c.join(',')}`).toBeLessThan(20);
      colours.set(user, c);
    }
    // The other's tile shows the same colour, to within 5 levels (compression).
    await poll(() => background(a, remote(bob))).toSatisfy(near(colours.get(bob)!));
    await poll(() => background(b, remote(alice))).toSatisfy(near(colours.get(alice)!));

    // VP8 made by ffmpeg from a plain (0,135,0), as the CLI's bot encodes its pictures: drawn so.
    const sessionId = sessionPath.split('/').pop()!;
    const chunks = await vpxChunks('vp8', '0x008700', 2);
    const carol = new LiveClient({
      url: vss.base.replace('http', 'ws'),
      session: sessionId,
      userId: 'carol',
      format: 'binary',
      WebSocket: WebSocket as never,
      reconnect: false,
      token: () => liveToken(a, sessionId, 'carol'),
    });
    await carol.connect();
    let publishing = true;
    const published = (async () => {
      // Two seconds of pictures over and over, at a camera's pace, until the tile is checked.
      const t0 = Date.now();
      for (let round = 0; publishing; round++) {
        for (const c of chunks) {
          const at = t0 + round * 2000 + c.offsetUs / 1000;
          if (at > Date.now()) await new Promise((r) => setTimeout(r, at - Date.now()));
          await carol.publish('media/carol/cam', evc1('vp8', c, at * 1000 - c.offsetUs), {
            timestampMs: Math.round(at),
            binary: true,
          });
        }
      }
    })();
    try {
      await poll(() => background(a, remote('carol'))).toSatisfy(near([0, 135, 0]));
    } finally {
      publishing = false;
      await published;
      await carol.close();
    }

    await a.getByRole('button', { name: 'Leave' }).click();
    await b.getByRole('button', { name: 'Leave' }).click();
    for (const page of [a, b]) await expect.poll(() => new URL(page.url()).pathname).toBe(sessionPath);
    await poll(async () => {
      const res = await a.request.get(`/v1/sessions/${sessionId}`);
      return ((await res.json()) as { data: { ended_at: string | null } }).data.ended_at;
    }).not.toBeNull();

    // The replay draws both cameras in those colours too.
    await a.goto(`${sessionPath}/replay`);
    // At 4×: bob's camera starts well into the recording.
    await a.getByLabel('Speed').selectOption('4');
    await a.getByRole('button', { name: 'Play', exact: true }).click();
    for (const [name, user] of [
      ['alice', alice],
      ['bob', bob],
    ] as const)
      await poll(() => background(a, `canvas[aria-label="Video of ${name}"]`)).toSatisfy(
        near(colours.get(user)!),
      );
    await ctxA.close();
    await ctxB.close();
  }, 180_000);
});
