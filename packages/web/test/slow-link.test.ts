import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLink, netlabUnavailable, type Link } from '../../server/test/support/netlab/links.js';
import {
  chromiumIn,
  createSession,
  describeBrowser,
  joinLive,
  launchBrowser,
  newContext,
  poll,
  receiver,
  accountId,
  signUpMember,
  signUp,
  startVss,
  type ChromiumInNamespace,
  type Vss,
} from './support/browser.js';

/** The publisher's uplink, kbit/s, and how long it is watched from its join (s). */
const UPLINK_KBIT = 300;
const WATCH_S = 25;

/** Where this test leaves its screenshots (outside the repository: they are for looking at). */
const SHOTS = '/tmp/vss-slow-link';
const skip = netlabUnavailable();
if (skip) {
  // eslint-disable-next-line no-console -- the one line that says why this test did not run
  console.log(`[vss] slow-link browser test skipped: ${skip}.`);
}

/** A cheap fingerprint of what a tile's canvas shows now, and its size. */
function picture(page: Page, user: string): Promise<{ width: number; height: number; hash: number }> {
  return page.evaluate((u) => {
    const canvas = document.querySelector<HTMLCanvasElement>(
      `.tile[data-user="${u}"][data-kind="cam"] canvas`,
    );
    if (!canvas || canvas.width < 16) return { width: 0, height: 0, hash: 0 };
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let hash = 0;
    for (let i = 0; i < data.length; i += 4)
      hash = (hash * 31 + data[i]! + data[i + 1]! * 3 + data[i + 2]! * 7) | 0;
    return { width: canvas.width, height: canvas.height, hash };
  }, user);
}

/**
 * Resolves once `user`'s tile has shown `count` different pictures (looked at five times a
 * second): the picture moves. Fails after `ms`. Says how long it took, and the sizes seen.
 */
async function moving(
  page: Page,
  user: string,
  count: number,
  ms: number,
): Promise<{ tookMs: number; sizes: string[] }> {
  const hashes = new Set<number>();
  const sizes = new Set<string>();
  const start = Date.now();
  while (hashes.size < count) {
    if (Date.now() - start > ms)
      throw new Error(`${user}'s tile showed ${hashes.size} different pictures in ${ms} ms, not ${count}`);
    const p = await picture(page, user);
    if (p.width) {
      hashes.add(p.hash);
      sizes.add(`${p.width}x${p.height}`);
    }
    // Sampling, not a proof: the tile is looked at five times a second.
    await new Promise((r) => setTimeout(r, 200));
  }
  return { tookMs: Date.now() - start, sizes: [...sizes] };
}

describeBrowser('a participant on a slow link', () => {
  let link: Link | undefined;
  let inNs: ChromiumInNamespace | undefined;
  let vss: Vss | undefined;
  let near: Browser | undefined;
  let far: Browser | undefined;
  let origin = '';
  beforeAll(async () => {
    if (skip) return;
    link = createLink({ downKbit: 250 });
    inNs = chromiumIn(link.ns);
    const hostAddr = link.hostAddress;
    // Listening on every address: the namespace reaches the host through the veth pair. Both
    // browsers use that address, the server's public one (its same-origin rule checks it).
    vss = await startVss((port) => ({ HOST: '0.0.0.0', PUBLIC_BASE_URL: `http://${hostAddr}:${port}` }));
    origin = `http://${hostAddr}:${new URL(vss.base).port}`;
    // Not a secure context over plain http to a non-loopback address: this flag lets the camera
    // and WebCodecs work there, as they do on https.
    const args = [`--unsafely-treat-insecure-origin-as-secure=${origin}`];
    [near, far] = await Promise.all([
      launchBrowser({ args }),
      launchBrowser({ args, executablePath: inNs.executablePath }),
    ]);
  });
  afterAll(async () => {
    await far?.close();
    await near?.close();
    await vss?.stop();
    link?.destroy();
    inNs?.remove();
  });

  it.skipIf(skip !== null)(
    'sees the other reduced, still moving, and says so on the tile; the other sees them in full',
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      const ctxA = await newContext(near!, origin);
      const ctxB = await newContext(far!, origin);
      const a = await ctxA.newPage();
      const b = await ctxB.newPage();
      await signUp(a);
      const session = await createSession(a, 'Slow link');
      await a.goto(`${session.path}/live`);
      await joinLive(a, 'alice');
      await signUpMember(a, b);
      await b.goto(`${session.path}/live`);
      await joinLive(b, 'bob');
      const alice = await accountId(a);
      const bob = await accountId(b);

      // bob, behind 250 kbit/s, gets a reduced layer of alice's camera, and is told so.
      const aliceOnB = b.locator(`.tile[data-user="${alice}"][data-kind="cam"]`);
      await expect.poll(() => aliceOnB.getAttribute('data-video-state'), { timeout: 30_000 }).toBe('reduced');
      // Polled, so that a failure shows what the tile said instead.
      await expect
        .poll(() => aliceOnB.locator('.tile-quality').textContent(), { timeout: 15_000 })
        .toBe('Reduced quality — slow connection');
      const seen = await moving(b, alice, 5, 10_000);
      // eslint-disable-next-line no-console -- the measured figures, for whoever reads the run
      console.log(
        `[slow-link] bob saw 5 different pictures of alice in ${seen.tookMs} ms, sizes ${seen.sizes.join(' ')}`,
      );
      // The server tries the full layer again from time to time, and keeps it when it fits (the
      // fake camera's simple picture sometimes does at 250 kbit/s): whatever bob gets now, the
      // tile says so, marked exactly when it is not the full picture.
      // The state and the mark are read together, polled until one render shows both: the layer
      // may change between two reads.
      await expect
        .poll(async () => {
          const state = await aliceOnB.getAttribute('data-video-state');
          return (await aliceOnB.locator('.tile-quality').count()) === (state === 'full' ? 0 : 1);
        })
        .toBe(true);
      await b.screenshot({ path: `${SHOTS}/bob-sees-alice-reduced.png` });

      // alice, on a fast link, sees bob in full: no mark, a moving picture of the full size.
      const bobOnA = a.locator(`.tile[data-user="${bob}"][data-kind="cam"]`);
      await poll(() => picture(a, bob).then((p) => p.width)).toBe(640);
      // Full, and unmarked, in the same render (alice's link is measured up from a lower layer).
      await expect
        .poll(async () => [
          await bobOnA.getAttribute('data-video-state'),
          await bobOnA.locator('.tile-quality').count(),
        ])
        .toEqual(['full', 0]);
      await moving(a, bob, 5, 6000);
      await a.screenshot({ path: `${SHOTS}/alice-sees-bob-full.png` });

      await a.getByRole('button', { name: 'Leave' }).click();
      await b.getByRole('button', { name: 'Leave' }).click();
      await ctxA.close();
      await ctxB.close();
    },
    180_000,
  );
});

describeBrowser('a publisher on a slow uplink', () => {
  let link: Link | undefined;
  let inNs: ChromiumInNamespace | undefined;
  let vss: Vss | undefined;
  let far: Browser | undefined;
  let origin = '';
  beforeAll(async () => {
    if (skip) return;
    // 300 kbit/s up from the start: a camera's three layers (up to 800 kbit/s, 300-400 of
    // Chromium's fake camera) and the sound (about 50 kbit/s on the wire) do not fit together.
    link = createLink({ upKbit: UPLINK_KBIT });
    inNs = chromiumIn(link.ns);
    const hostAddr = link.hostAddress;
    vss = await startVss((port) => ({ HOST: '0.0.0.0', PUBLIC_BASE_URL: `http://${hostAddr}:${port}` }));
    origin = `http://${hostAddr}:${new URL(vss.base).port}`;
    far = await launchBrowser({
      args: [`--unsafely-treat-insecure-origin-as-secure=${origin}`],
      executablePath: inNs.executablePath,
    });
  });
  afterAll(async () => {
    await far?.close();
    await vss?.stop();
    link?.destroy();
    inNs?.remove();
  });

  it.skipIf(skip !== null)(
    `joins behind ${UPLINK_KBIT} kbit/s and is heard and seen without delay from its first second, then sends what fits`,
    async () => {
      const ctx = await newContext(far!, origin);
      try {
        await joinBehind(ctx);
      } finally {
        // Closed whatever happened: a page left publishing would share the link with a retry.
        await ctx.close();
      }
    },
    180_000,
  );

  async function joinBehind(ctx: BrowserContext): Promise<void> {
    const c = await ctx.newPage();
    await signUp(c);
    const carol = await accountId(c);
    const session = await createSession(c, 'Slow uplink');
    await c.goto(`${session.path}/live`);
    const rx = await receiver(vss!, c, session.id, 'rx');
    // What the others get of carol: each message's arrival, the time it was captured (the page
    // stamps sound and pictures with its capture time; one machine, one clock), and its size.
    const got: { kind: string; at: number; delay: number; bytes: number }[] = [];
    rx.client.on('message', (m) => {
      const [, user, kind] = m.streamType.split('/');
      const at = Date.now();
      if (user === carol)
        got.push({ kind: kind!, at, delay: at - m.timestampMs, bytes: m.payload.byteLength });
    });
    try {
      await joinLive(c, 'carol');
      const t0 = Date.now();
      const end = t0 + WATCH_S * 1000;
      await expect
        .poll(() => got.some((g) => g.kind === 'mic' && g.at >= end), { timeout: (WATCH_S + 30) * 1000 })
        .toBe(true);
      const within = got.filter((g) => g.at >= t0 && g.at < end);
      const sound = within.filter((g) => g.kind === 'mic');
      const pictures = within.filter((g) => g.kind === 'cam');
      const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? NaN;
      let gap = 0;
      for (let i = 1; i < sound.length; i++) gap = Math.max(gap, sound[i]!.at - sound[i - 1]!.at);
      /** kbit/s of carol's camera the receiver got in each 5 s from the join. */
      const ramp = [0, 5, 10, 15, 20].map((s) => {
        const from = t0 + s * 1000;
        const bytes = pictures
          .filter((g) => g.at >= from && g.at < from + 5000)
          .reduce((n, g) => n + g.bytes, 0);
        return Math.round((bytes * 8) / 5000);
      });
      const figures = {
        firstSoundMs: (sound[0]?.at ?? Infinity) - t0,
        soundP95: p95(sound.map((g) => g.delay)),
        soundMax: Math.max(...sound.map((g) => g.delay)),
        soundGapMs: gap,
        videoP95: p95(pictures.map((g) => g.delay)),
        pictures: pictures.length,
      };
      // eslint-disable-next-line no-console -- the measured figures, for whoever reads the run
      console.log(
        `[slow-uplink] joined behind ${UPLINK_KBIT} kbit/s, first ${WATCH_S} s: first sound after ${figures.firstSoundMs} ms, sound delay p95 ${figures.soundP95} ms (max ${figures.soundMax}), longest sound gap ${figures.soundGapMs} ms, video delay p95 ${figures.videoP95} ms over ${figures.pictures} pictures; camera received per 5 s: ${ramp.join(', ')} kbit/s`,
      );
      // A person's bounds (npm run bench -- network --only=page-join judges the targets of 500 ms
      // and 300 ms on a quiet machine): heard within 3 s of joining, never a second behind, no
      // silence of a second, and seen (a picture a second at least). A page that started at
      // everything was 4–12 s behind.
      expect.soft(figures.firstSoundMs, 'first sound after the join, ms').toBeLessThan(3000);
      expect.soft(figures.soundP95, 'sound delay p95, ms').toBeLessThan(1000);
      expect.soft(figures.soundGapMs, 'longest silence, ms').toBeLessThan(1000);
      expect.soft(figures.videoP95, 'picture delay p95, ms').toBeLessThan(1000);
      expect.soft(figures.pictures, 'pictures received').toBeGreaterThanOrEqual(WATCH_S);
      // It sends no more video than fits beside its sound.
      expect(Math.max(...ramp)).toBeLessThan(UPLINK_KBIT);
    } finally {
      await rx.close();
    }
  }
});
