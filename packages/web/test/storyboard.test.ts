import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { evc1, vpxChunks } from '../../server/test/support/media.js';
import { eventually } from '../../server/test/support/wait.js';
import {
  describeBrowser,
  nodeLiveClient,
  newContext,
  screenshot,
  signUp,
  type Vss,
  useBrowserApp,
} from './support/browser.js';

/** Calls the API with an API key: the answer's status and text. */
async function fetchWith(vss: Vss, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${vss.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, text: await res.text() };
}
const call = async (vss: Vss, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetchWith(vss, key, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return JSON.parse(res.text).data;
};

/**
 * Records alice's camera, red for 6 s then blue for 6 s (VP8), stamped as if it had been recorded
 * over the last 12 s, and waits for the session to end.
 */
async function recordRedThenBlue(vss: Vss, key: string, sessionId: string): Promise<void> {
  const c = nodeLiveClient(
    vss.base,
    sessionId,
    'alice',
    async () =>
      (await call(vss, key, 'POST', `/v1/sessions/${sessionId}/connection`, { user_id: 'alice' }))
        .access_token,
  );
  await c.connect();
  const t0 = Date.now() - 13_000;
  for (const [k, colour] of ['red', 'blue'].entries()) {
    const base = t0 + k * 6000;
    for (const chunk of await vpxChunks('vp8', colour, 6)) {
      const ts = base + chunk.offsetUs / 1000;
      await c.publish('media/alice/cam', evc1('vp8', chunk, base * 1000), { timestampMs: ts, binary: true });
    }
  }
  await c.publishChat('bye', { ack: true });
  await c.close();
  await eventually(
    async () => (await call(vss, key, 'GET', `/v1/sessions/${sessionId}`)).ended_at,
    20_000,
    'the session to end',
  );
}

interface Cue {
  fromMs: number;
  toMs: number;
  x: number;
  y: number;
}

function cuesOf(vtt: string): Cue[] {
  const ms = (s: string) => {
    const [h, m, rest] = s.split(':');
    return (Number(h) * 3600 + Number(m) * 60 + Number(rest)) * 1000;
  };
  return [...vtt.matchAll(/([\d:.]+) --> ([\d:.]+)\n[^#\n]*#xywh=(\d+),(\d+),\d+,\d+/g)].map((m) => ({
    fromMs: Math.round(ms(m[1]!)),
    toMs: Math.round(ms(m[2]!)),
    x: Number(m[3]),
    y: Number(m[4]),
  }));
}

/**
 * Hovers the time bar over the middle of cue `k`; waits for the preview to show that cue's
 * thumbnail (its position in the sprite) and answers that position.
 */
async function hoverAt(page: Page, cues: Cue[], k: number) {
  const slider = page.getByRole('slider', { name: 'Position' });
  const box = (await slider.boundingBox())!;
  const duration = Number(await slider.getAttribute('max'));
  const cue = cues[k]!;
  const fraction = Math.min(1, (cue.fromMs + cue.toMs) / 2 / duration);
  await page.mouse.move(box.x + box.width * fraction, box.y + box.height / 2);
  const thumb = page.locator('.storyboard-preview .storyboard-thumb');
  await thumb.waitFor();
  const expected = `${-cue.x}px ${-cue.y}px`;
  await expect.poll(() => thumb.evaluate((e: HTMLElement) => e.style.backgroundPosition)).toBe(expected);
  return expected;
}

describeBrowser('storyboard previews on the time bar', () => {
  let vss: Vss;
  let browser: Browser;
  useBrowserApp((v, b) => {
    vss = v;
    browser = b;
  });

  it('shows the thumbnail of the hovered time: session page, public page, replay link', async () => {
    const context = await newContext(browser, vss.base);
    const page = await context.newPage();
    await signUp(page);
    const key = await page.evaluate(async () => {
      const projects = await (await fetch('/v1/projects')).json();
      const res = await fetch(`/v1/projects/${projects.data[0].id}/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'storyboard test' }),
      });
      return (await res.json()).data.secret as string;
    });
    const sessionId = (await call(vss, key, 'POST', '/v1/sessions', { name: 'Storyboard' })).id;
    await recordRedThenBlue(vss, key, sessionId);
    const vtt = await eventually(
      async () => {
        const res = await fetchWith(vss, key, 'GET', `/v1/sessions/${sessionId}/storyboard.vtt`);
        return res.status === 200 ? res.text : null;
      },
      60_000,
      'the storyboard',
    );
    const cues = cuesOf(vtt);
    expect(cues.length).toBeGreaterThan(3);

    // The session's replay: two points of the bar, two thumbnails.
    await page.goto(`/sessions/${sessionId}/replay`);
    await page.getByRole('slider', { name: 'Position' }).waitFor();
    // Red until 6 s, blue until 12 s: the thumbnails of [2 s, 4 s) and [8 s, 10 s).
    const early = await hoverAt(page, cues, 1);
    const late = await hoverAt(page, cues, 4);
    expect(late).not.toBe(early);
    // The time under the thumbnail is the hovered one.
    await expect.poll(() => page.locator('.storyboard-time').textContent()).toMatch(/^0:0[89]$/);
    await screenshot(page, 'storyboard-hover');
    await page.mouse.move(0, 0);
    await expect.poll(() => page.locator('.storyboard-preview').count()).toBe(0);

    // Public: anybody, on the watch page.
    await call(vss, key, 'PUT', `/v1/sessions/${sessionId}/visibility`, { is_public: true });
    const anon = await (await newContext(browser, vss.base)).newPage();
    await anon.goto(`/watch/${sessionId}`);
    await anon.getByRole('slider', { name: 'Position' }).waitFor();
    await hoverAt(anon, cues, 2);
    await call(vss, key, 'PUT', `/v1/sessions/${sessionId}/visibility`, { is_public: false });

    // Private again, through a replay link: the token reaches the sprite too.
    const link = (await call(vss, key, 'POST', `/v1/sessions/${sessionId}/replay-links`, {})).link as string;
    const viaLink = await (await newContext(browser, vss.base)).newPage();
    await viaLink.goto(new URL(link).pathname + new URL(link).search);
    await viaLink.getByRole('slider', { name: 'Position' }).waitFor();
    await hoverAt(viaLink, cues, 3);
  });
});
