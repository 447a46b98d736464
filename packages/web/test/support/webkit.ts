/**
 * WebKit, the engine of Safari, in the browser tests: Debian's WebKitGTK (its MiniBrowser, with
 * mock camera and microphone) driven over W3C WebDriver by `WebKitWebDriver` under a virtual X
 * display, through selenium-webdriver. Each person is a WebDriver session: a MiniBrowser of its
 * own. Skipped, with the reason printed, where WebKitWebDriver or xvfb-run is missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Builder, By, type WebDriver } from 'selenium-webdriver';
import { freePort, waitForHttp } from '../../../server/test/support/process.js';
import { describeIf } from './browser.js';
import { firefoxSkipReason, type Sound, type Tab } from './engines.js';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Why WebKit tests cannot run here, or null when they can. */
export const webkitSkipReason: string | null =
  firefoxSkipReason ??
  (!has('WebKitWebDriver') || !existsSync(MINIBROWSER)
    ? 'no WebKitWebDriver and MiniBrowser (apt-get install webkit2gtk-driver; .ci/run installs it)'
    : !has('xvfb-run')
      ? 'no xvfb-run for WebKit (apt-get install xvfb xauth; .ci/run installs it)'
      : null);

/** A describe block of tests in WebKit: skipped with the reason printed where it cannot run. */
export const describeWebKit = (name: string, fn: () => void): void =>
  describeIf(webkitSkipReason, 'WebKit tests', name, fn);

/** WebKit for a test: `open()` starts one person's MiniBrowser. */
export interface WebKit {
  open(): Promise<WebKitTab>;
  stop(): Promise<void>;
}

/** One MiniBrowser, as the helpers of support/engines.ts drive it. */
export interface WebKitTab extends Tab {
  driver: WebDriver;
  close(): Promise<void>;
}

/**
 * WebKit with `sound` as its sound output. Each person gets a WebKitWebDriver of their own under
 * xvfb-run (it holds one session at a time). Its web processes run without their sandbox, which
 * cannot start as root (the tests' user in CI).
 */
export function startWebKit(sound: Sound): WebKit {
  const tabs: WebKitTab[] = [];
  return {
    async open() {
      const port = await freePort();
      const child: ChildProcess = spawn('xvfb-run', ['-a', 'WebKitWebDriver', `--port=${port}`], {
        env: { ...process.env, PULSE_SERVER: sound.server, WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS: '1' },
        stdio: 'ignore',
        detached: true,
      });
      const server = `http://127.0.0.1:${port}`;
      await waitForHttp(`${server}/status`, 30_000);
      const driver = await new Builder()
        .usingServer(server)
        .withCapabilities({
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': {
            binary: MINIBROWSER,
            args: ['--automation', '--enable-media-stream=true', '--enable-mock-capture-devices=true'],
          },
        })
        .build();
      const tab: WebKitTab = {
        driver,
        evaluate: (expression) => driver.executeScript(`return (${expression});`),
        async type(selector, text) {
          await (await driver.findElement(By.css(selector))).sendKeys(text);
        },
        async click(selector) {
          const element = await driver.findElement(By.css(selector));
          // To the middle of the window: at its edge the page's sticky header would take the click.
          await driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', element);
          await element.click();
        },
        goto: (url) => driver.get(url),
        async close() {
          await driver.quit().catch(() => undefined);
          // xvfb-run, its X server and the driver: the whole process group.
          if (child.pid) process.kill(-child.pid, 'SIGTERM');
        },
      };
      tabs.push(tab);
      return tab;
    },
    async stop() {
      for (const t of tabs.splice(0)) await t.close();
    },
  };
}
