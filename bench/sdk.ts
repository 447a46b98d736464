/**
 * npm run bench -- sdk [--quick] [--runs=N]
 *
 * The browser SDK as an app gets it, from the server started as `npm start` starts it:
 * - its size: `/sdk/vss.js` as served, raw and gzipped (aim: under 80 KB gzipped);
 * - the time from `joinRoom()` to the first remote picture on loopback: a page on another origin
 *   (a small app server here, which mints tokens with an API key, as examples/embed does) joins a
 *   session where someone already sends their camera, and times, in the page, from the call to
 *   the first canvas the SDK hands it that holds a drawn picture (aim: under 1 s). N runs (default
 *   10; --quick 3), each a fresh page and participant; the median and the worst.
 * Baseline: the same page fetching the module and opening a bare WebSocket to /ws with the same
 * token (what any client pays before media can flow), so that the ratio shows what joining adds.
 */
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { launchChromium } from './lib/chromium.ts';
import type { BenchOptions } from './run.ts';
import { intFlag } from './lib/args.ts';
import { expectCall } from './lib/http.ts';
import { startVss } from './lib/server.ts';
import { fmt, printTable } from './lib/table.ts';
import { benchTenant } from './lib/tenant.ts';

/** The app: a page that times joinRoom (or a bare socket), and a token route. */
function appServer(vss: string, secret: string, sessionId: string): Promise<{ server: Server; url: string }> {
  const page = `<!doctype html><meta charset="utf-8"><div id="out"></div><script type="module">
const q = new URLSearchParams(location.search);
const token = await fetch('/token?user=' + q.get('user')).then((r) => r.json()).then((j) => j.token);
const t0 = performance.now();
if (q.has('bare')) {
  await import('${vss}/sdk/vss.js');
  const claims = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  const ws = new WebSocket('${vss.replace(/^http/, 'ws')}/ws?session=' + claims.sid + '&access_token=' + token + '&user_id=' + claims.sub);
  ws.onmessage = () => { window.took = performance.now() - t0; ws.close(); };
} else {
  const { joinRoom } = await import('${vss}/sdk/vss.js');
  const room = await joinRoom({ token, camera: q.has('cam'), microphone: false });
  window.room = room;
  if (!q.has('cam')) room.on('track', ({ element }) => {
    if (!(element instanceof HTMLCanvasElement)) return;
    const look = () => {
      if (element.width > 16) {
        const px = element.getContext('2d').getImageData(element.width >> 1, element.height >> 1, 1, 1).data;
        if (px[3] > 0) { window.took = performance.now() - t0; return; }
      }
      requestAnimationFrame(look);
    };
    look();
  });
}
</script>`;
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://app');
    if (url.pathname !== '/token') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    void expectCall<{ data: { access_token: string } }>(200, `${vss}/v1/sessions/${sessionId}/connection`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      json: { user_id: `app-${url.searchParams.get('user')}` },
    }).then(
      (r) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ token: r.json.data.access_token })),
      (err: Error) => res.writeHead(502).end(err.message),
    );
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address() as { port: number };
      ok({ server, url: `http://127.0.0.1:${addr.port}` });
    }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export default async function sdk({ quick, args }: BenchOptions): Promise<void> {
  const runs = intFlag(args, 'runs') ?? (quick ? 3 : 10);
  const vss = await startVss();
  let browser: Browser | null = null;
  let app: Server | null = null;
  try {
    const js = Buffer.from(await (await fetch(`${vss.url}/sdk/vss.js`)).arrayBuffer());
    const gz = gzipSync(js, { level: 9 }).length;
    const tenant = await benchTenant(vss.url, 'sdk');
    const made = await appServer(vss.url, tenant.secret, tenant.sessionId);
    app = made.server;
    browser = await launchChromium();
    const context = () => browser!.newContext({ permissions: ['camera', 'microphone'] });
    // Someone already in the call, sending their camera.
    const sender = await (await context()).newPage();
    sender.on('console', (m) => console.log(`sender: ${m.text()}`));
    sender.on('pageerror', (e) => console.log(`sender: ${e.message}`));
    await sender.goto(`${made.url}/?user=sender&cam=1`);
    await sender.waitForFunction(() => 'room' in window, null, { timeout: 30_000 });
    const time = async (query: string) => {
      const ctx = await context();
      const page = await ctx.newPage();
      await page.goto(`${made.url}/?${query}`);
      const took = await page.waitForFunction(() => (window as unknown as { took?: number }).took, null, {
        timeout: 30_000,
      });
      const ms = (await took.jsonValue()) as number;
      await ctx.close();
      return ms;
    };
    const joins: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < runs; i++) {
      joins.push(await time(`user=viewer-${i}`));
      bare.push(await time(`user=bare-${i}&bare=1`));
    }
    printTable(
      ['figure', 'sdk', 'baseline', 'ratio', 'aim'],
      [
        ['/sdk/vss.js, gzipped (KB)', fmt(gz / 1024, 1), '', '', '< 80'],
        ['/sdk/vss.js, as served (KB)', fmt(js.length / 1024, 1), '', '', ''],
        [
          'joinRoom → first remote picture, median (ms)',
          fmt(median(joins)),
          fmt(median(bare)),
          fmt(median(joins) / median(bare), 1),
          '< 1000',
        ],
        [
          'joinRoom → first remote picture, worst (ms)',
          fmt(Math.max(...joins)),
          fmt(Math.max(...bare)),
          '',
          '',
        ],
      ],
      `sdk: ${runs} joins on loopback; baseline: importing the module and a bare WebSocket's first message`,
    );
    console.log(
      JSON.stringify({
        bench: 'sdk',
        runs,
        gzip_bytes: gz,
        raw_bytes: js.length,
        join_ms: joins,
        baseline_ms: bare,
      }),
    );
  } finally {
    await browser?.close();
    app?.close();
    await vss.stop();
  }
}
