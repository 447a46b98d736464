/**
 * Browser tests in other engines than Chromium's: Debian's Firefox ESR, driven by puppeteer-core
 * over WebDriver BiDi with its fake camera and microphone, and Chromium through the same API, so
 * that one test can hold a person in each. A person's machine has speakers: Firefox gets a
 * PulseAudio server with a null sink (startSound), or none at all for the case without them.
 * Skipped, with the reason printed, where Firefox or PulseAudio is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { expect } from 'vitest';
import { browserSkipReason, CHROMIUM, describeIf, SCREENSHOTS } from './browser.js';
import { FIREFOX } from './firefox.js';

export { FIREFOX, launchFirefox, startSound, type Sound } from './firefox.js';

const hasPulse = spawnSync('sh', ['-c', 'command -v pulseaudio'], { stdio: 'ignore' }).status === 0;

/** Why Firefox tests cannot run here, or null when they can. */
export const firefoxSkipReason: string | null =
  browserSkipReason ??
  (!existsSync(FIREFOX)
    ? `no Firefox at ${FIREFOX} (apt-get install firefox-esr, or set FIREFOX_PATH; .ci/run installs it)`
    : !hasPulse
      ? 'no pulseaudio for Firefox sound output (apt-get install pulseaudio; .ci/run installs it)'
      : null);

/** A describe block of tests in Firefox and Chromium: skipped with the reason printed where either is missing. */
export const describeEngines = (name: string, fn: () => void): void =>
  describeIf(firefoxSkipReason, 'Firefox tests', name, fn);

/** Launches Chromium as the other browser tests do (support/browser.ts), through puppeteer-core. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
      ...extraArgs,
    ],
  });
}

/**
 * A page in any engine, as these helpers drive it: puppeteer's Page is one; a WebDriver session
 * is wrapped into one (support/webkit.ts).
 */
export interface Tab {
  evaluate(expression: string): Promise<unknown>;
  type(selector: string, text: string): Promise<void>;
  /** a person's click (the browser's own input, which counts as a gesture: sound may start) */
  click(selector: string): Promise<void>;
  goto(url: string): Promise<unknown>;
}

/** Polls an expression in the page until it is truthy (15 s, or `timeout`); returns its value. */
export async function until<T = unknown>(page: Tab, expression: string, timeout = 15_000): Promise<T> {
  let value: unknown;
  await expect
    .poll(async () => (value = await page.evaluate(expression)), {
      timeout,
      interval: 150,
      message: expression,
    })
    .toBeTruthy();
  return value as T;
}

/** Types `value` into the input labelled `label` (its <label>'s text), as a person does. */
export async function fill(page: Tab, label: string, value: string): Promise<void> {
  const id = await until<string>(
    page,
    `[...document.querySelectorAll('label')].find((l) => l.textContent.trim() === ${JSON.stringify(label)})?.htmlFor`,
  );
  await page.type(`[id="${id}"]`, value);
}

let clicks = 0;
/**
 * Clicks the button whose text is `text` once it is enabled, as a person does: through the
 * browser's input, not a script's `click()`, which would not let the page start its sound.
 */
export async function click(page: Tab, text: string): Promise<void> {
  const find = `[...document.querySelectorAll('button')].find((b) => b.textContent.trim() === ${JSON.stringify(text)} && !b.disabled)`;
  const mark = String(++clicks);
  await until(
    page,
    `(() => { const b = ${find}; if (b) b.dataset.testClick = ${JSON.stringify(mark)}; return !!b; })()`,
  );
  await page.click(`[data-test-click="${mark}"]`);
}

/** The text the page shows (its body's). */
export function text(page: Tab): Promise<string> {
  return page.evaluate('document.body.innerText') as Promise<string>;
}

/** A cheap fingerprint of what the canvas at `selector` shows now (0 while it is empty). */
const fingerprint = (selector: string) => `(() => {
    const canvas = document.querySelector(${JSON.stringify(selector)});
    if (!canvas || canvas.width < 16) return 0;
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let hash = 0;
    for (let i = 0; i < data.length; i += 4) hash = (hash * 31 + data[i] + data[i + 1] * 3) | 0;
    return hash;
  })()`;

/** How many different pictures the canvas at `selector` shows in `ms`, looked at every 100 ms. */
export async function picturesIn(page: Tab, selector: string, ms: number): Promise<number> {
  const seen = new Set<number>();
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const h = (await page.evaluate(fingerprint(selector))) as number;
    if (h) seen.add(h);
  }
  return seen.size;
}

/** Resolves once the canvas at `selector` has shown three different pictures: the video moves. */
export async function moving(page: Tab, selector: string): Promise<void> {
  const seen = new Set<number>();
  await expect
    .poll(
      async () => {
        const h = (await page.evaluate(fingerprint(selector))) as number;
        if (h) seen.add(h);
        return seen.size;
      },
      { timeout: 30_000, interval: 200, message: `moving pictures in ${selector}` },
    )
    .toBeGreaterThanOrEqual(3);
}

/**
 * Plays session `id`'s public replay (`base`/watch/`id`) in `tab`; resolves once the playhead
 * passed 0:02 and two tiles showed their pictures at once, nothing left at "Loading…".
 */
export async function replays(tab: Tab, base: string, id: string): Promise<void> {
  await tab.goto(`${base}/watch/${id}`);
  await click(tab, 'Play');
  await until(tab, `/0:0[2-9] \\//.test(document.querySelector('main').innerText)`, 30_000);
  // Both pictures drawn at once (a tile without one shows the person's name card, class dark).
  await until(tab, `document.querySelectorAll('main figure.tile:not(.dark) canvas').length >= 2`, 15_000);
  expect(await text(tab)).not.toContain('Loading');
}

/** Writes `docs/screenshots/<name>.png` of the page when VSS_SCREENSHOTS is set, as support/browser.ts does. */
export async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.VSS_SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) as `${string}.png` });
}
