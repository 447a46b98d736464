/**
 * npm run bench -- dashboard [--quick]
 *
 * What a person waits for when they open the dashboard: the built app's entry JavaScript (gzip
 * size), and the sessions page's first paint and its list of sessions, in headless Chromium (Debian's,
 * through playwright-core) against the server started as `npm start` starts it, with a cold cache
 * each time (a fresh browser profile per load). Beside it, the floor: the same browser loading a
 * static HTML page holding the same table from a bare Node `http` server (no script, no API call).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import type { BenchOptions } from './run.ts';
import { expectCall } from './lib/http.ts';
import { ROOT, startVss } from './lib/server.ts';
import { fmt, printTable, round } from './lib/table.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SESSIONS = 20;
const DIST = join(ROOT, 'packages/web/dist');

/** The entry chunk and stylesheet named by the built index.html, raw and gzipped (level 6, as servers send). */
function entrySizes(): { js: number; jsGzip: number; css: number; cssGzip: number; file: string } {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const js = /<script type="module"[^>]*src="\/([^"]+)"/.exec(html)?.[1];
  const css = /<link rel="stylesheet"[^>]*href="\/([^"]+)"/.exec(html)?.[1];
  if (!js) throw new Error('the built index.html names no module script');
  const jsBytes = readFileSync(join(DIST, js));
  const cssBytes = css ? readFileSync(join(DIST, css)) : Buffer.alloc(0);
  return {
    file: js,
    js: jsBytes.length,
    jsGzip: gzipSync(jsBytes, { level: 6 }).length,
    css: cssBytes.length,
    cssGzip: gzipSync(cssBytes, { level: 6 }).length,
  };
}

/** Milliseconds from navigation start to the first contentful paint and to the last session row. */
interface Load {
  fcp: number;
  list: number;
}

/**
 * Loads `url` in a fresh browser profile and times it inside the page: a MutationObserver, set up
 * before any of the page's scripts, notes when the table's last expected row appears.
 */
async function load(browser: Browser, url: string, cookie?: { name: string; value: string }): Promise<Load> {
  const context = await browser.newContext();
  if (cookie) await context.addCookies([{ ...cookie, url }]);
  await context.addInitScript((rows: number) => {
    const w = window as unknown as { __listAt?: number };
    new MutationObserver((_m, obs) => {
      if (document.querySelectorAll('tbody tr').length >= rows) {
        w.__listAt = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  }, SESSIONS);
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __listAt?: number }).__listAt !== undefined);
  const result = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    list: (window as unknown as { __listAt: number }).__listAt,
  }));
  await context.close();
  return result;
}

/** The floor: one static HTML page with the same table, from a bare server. */
function floorServer(): Promise<{ server: Server; url: string }> {
  const rows = Array.from(
    { length: SESSIONS },
    (_, i) => `<tr><td>Session ${i}</td><td>ended</td><td>today</td></tr>`,
  ).join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title></head><body><h1>Sessions</h1><table><tbody>${rows}</tbody></table></body></html>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      ok({ server, url: `http://127.0.0.1:${port}/` });
    }),
  );
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export default async function dashboard({ quick }: BenchOptions): Promise<void> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  const runs = quick ? 5 : 20;
  const sizes = entrySizes();
  printTable(
    ['built file', 'bytes', 'gzip bytes'],
    [
      [`entry ${sizes.file}`, sizes.js, sizes.jsGzip],
      ['stylesheet', sizes.css, sizes.cssGzip],
    ],
    'The dashboard as built by npm run build',
  );

  const vss = await startVss();
  const floor = await floorServer();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    // An account with SESSIONS sessions, made through the API as the dashboard would.
    const reg = await expectCall<{ data: { project_id: string } }>(201, `${vss.url}/v1/auth/register`, {
      method: 'POST',
      json: { email: `bench-dashboard-${Date.now()}@example.com`, password: 'bench-password-1234' },
    });
    const value = reg.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('service_session='))!
      .slice('service_session='.length);
    for (let i = 0; i < SESSIONS; i++)
      await expectCall(201, `${vss.url}/v1/sessions`, {
        method: 'POST',
        headers: { cookie: `service_session=${value}`, origin: vss.url },
        json: { name: `Session ${i}` },
      });

    const ours: Load[] = [];
    const base: Load[] = [];
    // Interleaved, so that the machine's noise falls on both alike; one warm-up of each first.
    await load(browser, `${vss.url}/sessions`, { name: 'service_session', value });
    await load(browser, floor.url);
    for (let i = 0; i < runs; i++) {
      ours.push(await load(browser, `${vss.url}/sessions`, { name: 'service_session', value }));
      base.push(await load(browser, floor.url));
    }
    const row = (name: string, xs: Load[]) => [
      name,
      fmt(median(xs.map((x) => x.fcp))),
      fmt(Math.max(...xs.map((x) => x.fcp))),
      fmt(median(xs.map((x) => x.list))),
      fmt(Math.max(...xs.map((x) => x.list))),
    ];
    printTable(
      [
        'page (cold cache)',
        'first paint ms (median)',
        '(max)',
        `${SESSIONS} sessions shown ms (median)`,
        '(max)',
      ],
      [row('vss /sessions, as npm start serves it', ours), row('floor: static HTML, bare http', base)],
      `${runs} loads each, alternated`,
    );
    const fcp = median(ours.map((x) => x.fcp));
    const list = median(ours.map((x) => x.list));
    console.log(
      JSON.stringify({
        bench: 'dashboard',
        quick,
        entry_js_bytes: sizes.js,
        entry_js_gzip_bytes: sizes.jsGzip,
        css_gzip_bytes: sizes.cssGzip,
        first_paint_ms: round(fcp, 1),
        first_paint_max_ms: round(Math.max(...ours.map((x) => x.fcp)), 1),
        list_shown_ms: round(list, 1),
        floor_first_paint_ms: round(median(base.map((x) => x.fcp)), 1),
        ratio: round(fcp / median(base.map((x) => x.fcp)), 2),
      }),
    );
  } finally {
    await browser.close();
    floor.server.close();
    await vss.stop();
  }
}
