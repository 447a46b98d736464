import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storyboardGrid } from '../src/modules/exports/storyboard.js';
import { storyboardVtt, vttTime } from '../src/modules/exports/storyboard-routes.js';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { evc1, ffmpeg, h264Camera, h264Of, pcmVoice, recordSession, type Planned } from './support/media.js';
import { eventually } from './support/wait.js';

/** A camera of `user` that shows each colour for `seconds`, one after the other (H.264, a key frame a second). */
async function changingCamera(user: string, colours: string[], seconds: number): Promise<Planned[]> {
  const parts = colours.map((c, i) => `color=c=${c}:s=320x240:r=15:d=${seconds}[c${i}]`);
  const source = `${parts.join(';')};${colours.map((_, i) => `[c${i}]`).join('')}concat=n=${colours.length}:v=1:a=0`;
  return (await h264Of(source, seconds * colours.length, 15)).map((c) => ({
    user,
    atMs: c.offsetUs / 1000,
    stream: `media/${user}/cam`,
    payload: evc1('avc1.42c00c', c, 0),
  }));
}

interface Cue {
  fromMs: number;
  toMs: number;
  url: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

const ms = (s: string) => {
  const m = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3})$/.exec(s);
  if (!m) throw new Error(`not a WebVTT time: ${s}`);
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4]);
};

/** The cues of a storyboard's WebVTT (asserting its form). */
function parseVtt(text: string): Cue[] {
  const blocks = text.trim().split(/\n\n+/);
  expect(blocks[0]).toBe('WEBVTT');
  return blocks.slice(1).map((b) => {
    const [times, target, ...rest] = b.split('\n');
    expect(rest).toEqual([]);
    const [from, to] = times!.split(' --> ');
    const m = /^(.+)#xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(target!);
    if (!m) throw new Error(`not a sprite cue: ${target}`);
    return { fromMs: ms(from!), toMs: ms(to!), url: m[1]!, x: +m[2]!, y: +m[3]!, w: +m[4]!, h: +m[5]! };
  });
}

/** What one thumbnail shows: the share of its pixels that are clearly red, green and blue. */
async function colours(jpeg: Buffer, c: Cue): Promise<{ red: number; green: number; blue: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'vss-sb-'));
  try {
    writeFileSync(join(dir, 'sprite.jpg'), jpeg);
    const { stdout } = await ffmpeg([
      '-i',
      join(dir, 'sprite.jpg'),
      '-vf',
      `crop=${c.w}:${c.h}:${c.x}:${c.y}`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ]);
    let red = 0;
    let green = 0;
    let blue = 0;
    for (let i = 0; i < stdout.length; i += 3) {
      const [r, g, b] = [stdout[i]!, stdout[i + 1]!, stdout[i + 2]!];
      if (r > 180 && g < 80 && b < 80) red++;
      else if (g > 90 && r < 80 && b < 80) green++;
      else if (b > 180 && r < 80 && g < 80) blue++;
    }
    const n = stdout.length / 3;
    return { red: red / n, green: green / n, blue: blue / n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The width and height of a JPEG, as ffprobe reads them. */
function dimensions(jpeg: Buffer): { width: number; height: number } {
  const dir = mkdtempSync(join(tmpdir(), 'vss-sb-'));
  try {
    writeFileSync(join(dir, 's.jpg'), jpeg);
    const out = execFileSync('ffprobe', [
      ...['-v', 'error', '-show_entries', 'stream=width,height,codec_name', '-of', 'csv=p=0'],
      join(dir, 's.jpg'),
    ]).toString('utf8');
    const [codec, width, height] = out.trim().split(',');
    expect(codec).toBe('mjpeg');
    return { width: Number(width), height: Number(height) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('storyboard grid and WebVTT, without a server', () => {
  it('keeps a thumbnail every 2 s, or every whole second that keeps them to 200', () => {
    expect(storyboardGrid(61_000)).toMatchObject({ intervalMs: 2000, count: 31, columns: 10 });
    expect(storyboardGrid(400_000)).toMatchObject({ intervalMs: 2000, count: 200 });
    expect(storyboardGrid(401_000)).toMatchObject({ intervalMs: 3000, count: 134 });
    expect(storyboardGrid(3_600_000)).toMatchObject({ intervalMs: 18_000, count: 200 });
    expect(storyboardGrid(500)).toMatchObject({ intervalMs: 2000, count: 1, columns: 1 });
    expect(vttTime(3_723_004)).toBe('01:02:03.004');
  });
  it('writes one cue per thumbnail, row by row', () => {
    const row = { interval_ms: 2000, count: 12, columns: 10, tile_w: 160, tile_h: 90 } as never;
    const cues = parseVtt(storyboardVtt(row, 'storyboard.jpg?token=a%2Bb'));
    expect(cues).toHaveLength(12);
    expect(cues[11]).toEqual({
      fromMs: 22_000,
      toMs: 24_000,
      url: 'storyboard.jpg?token=a%2Bb',
      x: 160,
      y: 90,
      w: 160,
      h: 90,
    });
  });
});

describe('storyboards', () => {
  let t: TestApp;
  let a: Tenant;
  let other: Tenant;
  let sessionId: string;

  const vtt = (path = `/v1/sessions/${sessionId}/storyboard.vtt`, key: string | undefined = a.key) =>
    call(t, 'GET', path, { key });
  const jpg = async (url: string, key?: string) =>
    t.app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {} });
  /** Waits for a storyboard other than `not` (an ETag) to be made; answers its WebVTT. */
  const made = (not?: string) =>
    eventually(
      async () => {
        const res = await vtt();
        return res.status === 200 && res.headers.etag !== not ? res : null;
      },
      90_000,
      'the storyboard',
    );

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    [a, other] = [await tenant(t), await tenant(t)];
    const s = await createSession(t, a.key, 'storyboard');
    sessionId = s.id;
    // Alice's camera is red for 6 s, then blue for 6 s; Carol's is green throughout; Bob only speaks.
    const plan = [
      ...(await changingCamera('alice', ['red', 'blue'], 6)),
      ...(await h264Camera('carol', 'green', 12)),
      ...pcmVoice('bob', 440, 6),
    ];
    await recordSession(t, a.key, sessionId, plan);
  }, 120_000);
  afterAll(async () => t?.close());

  it('is made once the recording is ready: cues cover it, each within the sprite, showing what was on camera then', async () => {
    const res = await made();
    expect(res.headers['content-type']).toMatch(/^text\/vtt/);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const cues = parseVtt(res.raw);
    const manifest = (await call(t, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: a.key })).body.data;
    const duration = manifest.end_ts - manifest.start_ts;
    // Contiguous from 0, 2 s each, covering the recording the time bar shows.
    expect(cues[0]!.fromMs).toBe(0);
    cues.forEach((c, k) => {
      expect(c.toMs - c.fromMs).toBe(2000);
      if (k > 0) expect(c.fromMs).toBe(cues[k - 1]!.toMs);
      expect(c.url).toBe('storyboard.jpg');
    });
    expect(cues.at(-1)!.toMs).toBeGreaterThanOrEqual(duration);
    expect(cues.at(-1)!.fromMs).toBeLessThan(duration);

    const sprite = await jpg(`/v1/sessions/${sessionId}/storyboard.jpg`, a.key);
    expect(sprite.statusCode).toBe(200);
    expect(sprite.headers['content-type']).toBe('image/jpeg');
    const { width, height } = dimensions(sprite.rawPayload);
    for (const c of cues) {
      expect(c.x + c.w).toBeLessThanOrEqual(width);
      expect(c.y + c.h).toBeLessThanOrEqual(height);
    }
    // The recording starts with the cameras (the media is stamped a minute before the joins).
    expect(manifest.start_ts).toBe(
      Math.min(...manifest.participants.flatMap((p: any) => p.tracks.map((x: any) => x.start_ts))),
    );
    // The thumbnail of [2 s, 4 s) shows 3 s: Alice red, Carol green; that of [8 s, 10 s) Alice blue.
    const at3 = await colours(sprite.rawPayload, cues[1]!);
    expect(at3.red).toBeGreaterThan(0.15);
    expect(at3.green).toBeGreaterThan(0.15);
    expect(at3.blue).toBe(0);
    const at9 = await colours(sprite.rawPayload, cues[4]!);
    expect(at9.blue).toBeGreaterThan(0.15);
    expect(at9.green).toBeGreaterThan(0.15);
    expect(at9.red).toBe(0);
    // Once the cameras are off (from 12.2 s), no video: the tiles show the names' colours.
    const later = await colours(sprite.rawPayload, cues[8]!);
    expect(later.red + later.green + later.blue).toBe(0);

    // Revalidation: the same making answers 304.
    const again = await call(t, 'GET', `/v1/sessions/${sessionId}/storyboard.vtt`, {
      key: a.key,
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(again.status).toBe(304);
  });

  it('follows playback access: credentials of the project, public sessions, replay links', async () => {
    await made();
    for (const file of ['vtt', 'jpg']) {
      const path = `/v1/sessions/${sessionId}/storyboard.${file}`;
      expectError(await call(t, 'GET', path), 401, 'UNAUTHORIZED');
      expectError(await call(t, 'GET', path, { key: other.key }), 404, 'NOT_FOUND');
      expectError(
        await call(t, 'GET', `/v1/public/sessions/${sessionId}/storyboard.${file}`),
        404,
        'NOT_FOUND',
      );
      expectError(
        await call(t, 'GET', `/v1/public/sessions/${sessionId}/storyboard.${file}?token=forged`),
        401,
        'UNAUTHORIZED',
      );
    }
    // A replay link's token opens both, and the cues carry it to the sprite.
    const link = (await call(t, 'POST', `/v1/sessions/${sessionId}/replay-links`, { key: a.key, body: {} }))
      .body.data;
    const base = `/v1/public/sessions/${sessionId}/`;
    const viaLink = await call(t, 'GET', `${base}storyboard.vtt?token=${encodeURIComponent(link.token)}`);
    expect(viaLink.status).toBe(200);
    const cue = parseVtt(viaLink.raw)[0]!;
    expect(cue.url).toBe(`storyboard.jpg?token=${encodeURIComponent(link.token)}`);
    // Resolved against the WebVTT's address, as a browser does.
    const resolved = new URL(cue.url, `http://vss.test${base}storyboard.vtt?token=x`);
    const sprite = await jpg(resolved.pathname + resolved.search);
    expect(sprite.statusCode).toBe(200);
    expect(sprite.headers['content-type']).toBe('image/jpeg');
    // Another session's link opens nothing here.
    const s2 = await createSession(t, a.key, 'other');
    const link2 = (await call(t, 'POST', `/v1/sessions/${s2.id}/replay-links`, { key: a.key, body: {} })).body
      .data;
    expectError(
      await call(t, 'GET', `${base}storyboard.vtt?token=${encodeURIComponent(link2.token)}`),
      401,
      'UNAUTHORIZED',
    );
    // A public session: anybody, through either route.
    await call(t, 'PUT', `/v1/sessions/${sessionId}/visibility`, { key: a.key, body: { is_public: true } });
    try {
      expect((await call(t, 'GET', `${base}storyboard.vtt`)).status).toBe(200);
      expect((await jpg(`${base}storyboard.jpg`)).statusCode).toBe(200);
      const anon = await call(t, 'GET', `/v1/sessions/${sessionId}/storyboard.vtt`);
      expect(anon.status).toBe(200);
      expect(parseVtt(anon.raw)[0]!.url).toBe('storyboard.jpg');
    } finally {
      await call(t, 'PUT', `/v1/sessions/${sessionId}/visibility`, {
        key: a.key,
        body: { is_public: false },
      });
    }
    expectError(await call(t, 'GET', `${base}storyboard.vtt`), 404, 'NOT_FOUND');
  });

  it('refuses bad input naming the field', async () => {
    const bad = await call(t, 'GET', `/v1/sessions/not-a-session/storyboard.vtt`, { key: a.key });
    expect(expectError(bad, 400, 'BAD_REQUEST')).toMatch(/sessionId/);
    const empty = await call(t, 'GET', `/v1/public/sessions/${sessionId}/storyboard.jpg?token=`);
    expect(expectError(empty, 400, 'BAD_REQUEST')).toMatch(/token/);
  });

  it('says why there is none: not made yet, or no video', async () => {
    const fresh = await createSession(t, a.key, 'nothing yet');
    const none = await call(t, 'GET', `/v1/sessions/${fresh.id}/storyboard.vtt`, { key: a.key });
    expect(expectError(none, 404, 'NOT_FOUND')).toMatch(/not made yet/);
    expect(none.headers['cache-control']).toBe('no-store');
    const voice = await createSession(t, a.key, 'voice only');
    await recordSession(t, a.key, voice.id, pcmVoice('bob', 440, 2));
    const res = await eventually(
      async () => {
        const r = await call(t, 'GET', `/v1/sessions/${voice.id}/storyboard.jpg`, { key: a.key });
        return /no video/.test(r.body?.error?.message ?? '') ? r : null;
      },
      60_000,
      'the voice-only session to have no storyboard',
    );
    expectError(res, 404, 'NOT_FOUND');
  });

  it('is made again after a redaction, without the redacted participant', async () => {
    const before = await made();
    const res = await call(t, 'DELETE', `/v1/sessions/${sessionId}/participants/carol`, { key: a.key });
    expect(res.status).toBe(200);
    const after = await made(String(before.headers.etag));
    const cues = parseVtt(after.raw);
    const sprite = await jpg(`/v1/sessions/${sessionId}/storyboard.jpg`, a.key);
    const at3 = await colours(sprite.rawPayload, cues[1]!);
    expect(at3.red).toBeGreaterThan(0.3);
    expect(at3.green).toBe(0);
    const at9 = await colours(sprite.rawPayload, cues[4]!);
    expect(at9.blue).toBeGreaterThan(0.3);
    expect(at9.green).toBe(0);
    // Only the new making's sprite is kept.
    expect(readdirSync(join(t.dataDir, 'storyboards', sessionId))).toHaveLength(1);
  });

  it('is made when first asked for, for a recording that ended before storyboards were made', async () => {
    const before = await made();
    // As a session recorded by an earlier version has it: no storyboard row at all.
    await t.runtime.database.db.deleteFrom('storyboards').where('session_id', '=', sessionId).execute();
    const asked = await vtt();
    expect(expectError(asked, 404, 'NOT_FOUND')).toMatch(/not made yet/);
    const after = await made(String(before.headers.etag));
    expect(parseVtt(after.raw).length).toBeGreaterThan(0);
  });

  it('is deleted with its session', async () => {
    await made();
    expect(existsSync(join(t.dataDir, 'storyboards', sessionId))).toBe(true);
    expect((await call(t, 'DELETE', `/v1/sessions/${sessionId}`, { key: a.key })).status).toBe(200);
    const dir = join(t.dataDir, 'storyboards', sessionId);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const row = await t.runtime.database.db
      .selectFrom('storyboards')
      .selectAll()
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });
});
