/** Debian's Chromium as the benchmarks start it: headless, with a fake camera and microphone. */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Launches Chromium (`executablePath`, e.g. a wrapper that starts it in a network namespace) with
 * the fake devices that need no permission prompt, sound that may start without a gesture, and
 * `args` besides.
 */
export function launchChromium(args: string[] = [], executablePath = CHROMIUM): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
      ...args,
    ],
  });
}
