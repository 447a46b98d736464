/**
 * A guest in Firefox that joins through a join link and stays until it is sent SIGTERM; prints
 * `joined` once the page says it is connected. Run inside a netlab namespace (`ip netns exec`):
 * puppeteer talks to Firefox over a local WebSocket, which must be on the namespace's own loopback.
 *
 *   tsx bench/lib/firefox-guest.ts <join link url> <name>   (PULSE_SERVER: its speakers)
 */
import { launchFirefox } from '../../packages/web/test/support/firefox.ts';

const [url, name] = process.argv.slice(2) as [string, string];
const sound = process.env.PULSE_SERVER ? { server: process.env.PULSE_SERVER, stop() {} } : null;
const browser = await launchFirefox(sound, 1000, {
  // The server's address in the namespace is not loopback: let the page use the camera on http.
  'media.devices.insecure.enabled': true,
  'media.getusermedia.insecure.enabled': true,
});
process.on('SIGTERM', () => void browser.close().finally(() => process.exit(0)));
const page = await browser.newPage();
await page.goto(url);
const input = await page.waitForFunction(
  `[...document.querySelectorAll('label')].find((l) => l.textContent.trim() === 'Name in this session')?.htmlFor`,
  { timeout: 30_000 },
);
await page.type(`[id="${String(await input.jsonValue())}"]`, name);
await page.evaluate(
  `[...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Join').click()`,
);
await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(`Connected as ${name}`)})`, {
  timeout: 60_000,
});
console.log('joined');
