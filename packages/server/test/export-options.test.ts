import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { decodeAudio, decodeVideo, nearest, probe, rms, type Decoded } from './support/decode.js';
import { downloadTo, waitForJob } from './support/exports.js';
import { evc1, h264Chunks, h264Of, pcmVoice, recordSession, type Planned } from './support/media.js';

/**
 * The export's options, each seen in the file it makes (ffprobe and decoded frames): a clip of a
 * long recording, the speaker layout following the tone that plays, the sound alone (m4a), 1080p
 * in both orientations, names on the tiles or not; and every bad option refused naming its field.
 */

const dir = mkdtempSync(join(tmpdir(), 'vss-export-options-'));
const COLOURS: Record<string, [number, number, number]> = {
  red: [255, 0, 0],
  blue: [0, 0, 255],
  background: [0x11, 0x13, 0x18],
};

/** Exports through the POST route with a JSON body; waits for the job; downloads the file. */
async function exportWith(
  t: TestApp,
  key: string,
  sessionId: string,
  body: Record<string, unknown>,
  name: string,
): Promise<{ job: Record<string, any>; file: string }> {
  const res = await call(t, 'POST', `/v1/sessions/${sessionId}/exports`, { key, body });
  expect(res.status, res.raw).toBe(202);
  const job = await waitForJob(t, key, res.body.data.job_id);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const file = join(dir, name);
  await downloadTo(t, key, job.job_id, file);
  return { job, file };
}

/** The frame index showing time `s` of a 15 fps export. */
const frameAt = (s: number) => Math.round(s * 15);

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
  a = await tenant(t);
});
afterAll(async () => {
  await t?.close();
});

describe('a clip', () => {
  /**
   * 60 s of a camera at 5 fps whose grey level says which second it is (modulo 16, in steps of
   * 12 of luma that survive two encodings), a key frame every 2 s.
   */
  const SECONDS = 60;
  const FPS = 5;
  /** which second (modulo 16) a decoded grey shows: its RGB back to the luma the source drew */
  const secondOf = (rgb: [number, number, number]) => Math.round((rgb[1] * 219) / 255 / 12) % 16;
  const mod16 = (second: number) => second % 16;
  let session: string;
  let startMs: number;

  beforeAll(async () => {
    session = (await createSession(t, a.key, 'clip')).id;
    const source = `color=c=gray:s=320x240:r=${FPS},geq=lum='16+12*mod(floor(T),16)':cb=128:cr=128`;
    const chunks = await h264Of(source, SECONDS, FPS, 2 * FPS);
    const plan: Planned[] = chunks.map((c) => ({
      user: 'cam',
      atMs: c.offsetUs / 1000,
      stream: 'media/cam/cam',
      payload: evc1('avc1.42c00c', c, 0),
    }));
    // Someone speaks from 40 s to 45 s only.
    plan.push(...pcmVoice('voice', 440, 5).map((m) => ({ ...m, atMs: m.atMs + 40_000 })));
    ({ startMs } = await recordSession(t, a.key, session, plan));
  }, 60_000);

  it('of 10 s from a minute lasts 10 s, starts on the frame of its start and ends on that of its end', async () => {
    // 30.8 s is no key frame (they are every 2 s): the clip decodes from the one at 30 s.
    const from = startMs + 30_800;
    const { job, file } = await exportWith(
      t,
      a.key,
      session,
      { from_ts: from, to_ts: from + 10_000 },
      'clip.mp4',
    );
    expect(job).toMatchObject({ from_ts: from, to_ts: from + 10_000, format: 'mp4', resolution: '720p' });
    const info = await probe(file);
    expect(Math.abs(info.durationS - 10)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(job.duration_ms - 10_000)).toBeLessThanOrEqual(500);
    const v = await decodeVideo(file, 1280, 720);
    // The camera's 4:3 picture is centred on the 16:9 canvas: its middle is the canvas's.
    const shown = (i: number) => secondOf(v.at(i, 640, 300));
    // 30.8 s to 31 s, then a second a second, to the last frame at 40.73 s.
    expect(shown(0)).toBe(mod16(30));
    expect(shown(frameAt(0.5))).toBe(mod16(31));
    expect(shown(frameAt(5.5))).toBe(mod16(36));
    expect(shown(v.frames.length - 1)).toBe(mod16(40));
  });

  it('as sound alone spans the microphones: a clip outside them is refused, one across them cut to them', async () => {
    const url = `/v1/sessions/${session}/exports`;
    const before = { format: 'm4a', from_ts: startMs + 10_000, to_ts: startMs + 20_000 };
    expect(expectError(await call(t, 'POST', url, { key: a.key, body: before }), 400, 'BAD_REQUEST')).toMatch(
      /^body\.to_ts is before the recording/,
    );
    // The same span as a video is the camera's: allowed.
    expect((await call(t, 'POST', url, { key: a.key, body: { ...before, format: 'mp4' } })).status).toBe(202);
    const across = { format: 'm4a', from_ts: startMs + 30_000, to_ts: startMs + 50_000 };
    const res = await call(t, 'POST', url, { key: a.key, body: across });
    expect(res.status, res.raw).toBe(202);
    const job = await waitForJob(t, a.key, res.body.data.job_id);
    expect(job).toMatchObject({ status: 'completed', from_ts: startMs + 40_000 });
    expect(Math.abs(job.duration_ms - 5000)).toBeLessThanOrEqual(200);
  });

  it('as sound alone is refused when no microphone was recorded', async () => {
    const silent = (await createSession(t, a.key, 'camera only')).id;
    const chunks = await h264Of('color=c=gray:s=320x240:r=5', 1, 5, 5);
    const plan = chunks.map((c) => ({
      user: 'cam',
      atMs: c.offsetUs / 1000,
      stream: 'media/cam/cam',
      payload: evc1('avc1.42c00c', c, 0),
    }));
    await recordSession(t, a.key, silent, plan);
    const body = { format: 'm4a' };
    const res = await call(t, 'POST', `/v1/sessions/${silent}/exports`, { key: a.key, body });
    expect(expectError(res, 409, 'CONFLICT')).toMatch(/no microphone/);
  });

  it('from its start alone runs to the end of the recording', async () => {
    const from = startMs + 50_000;
    const { job, file } = await exportWith(t, a.key, session, { from_ts: from }, 'tail.mp4');
    expect(job.from_ts).toBe(from);
    const info = await probe(file);
    // The last frame is published at 59.8 s: the clip holds it, to about 59.9 s.
    expect(Math.abs(info.durationS - 9.9)).toBeLessThanOrEqual(0.5);
    const v = await decodeVideo(file, 1280, 720);
    expect(secondOf(v.at(0, 640, 300))).toBe(mod16(50));
  });
});

describe('a call of two', () => {
  /** alice (red camera) speaks for the first 4 s, bob (blue camera) for the next 4 */
  let session: string;

  beforeAll(async () => {
    session = (await createSession(t, a.key, 'two')).id;
    const camera = async (user: string, colour: string) =>
      (await h264Chunks(colour, 8, 5)).map((c) => ({
        user,
        atMs: c.offsetUs / 1000,
        stream: `media/${user}/cam`,
        payload: evc1('avc1.42c00c', c, 0),
      }));
    const plan: Planned[] = [
      ...(await camera('alice', 'red')),
      ...(await camera('bob', 'blue')),
      ...pcmVoice('alice', 440, 4),
      ...pcmVoice('bob', 660, 4).map((m) => ({ ...m, atMs: m.atMs + 4000 })),
    ];
    await recordSession(t, a.key, session, plan, { alice: 'Alice Example', bob: 'Bob Example' });
  }, 60_000);

  it('speaker: the large tile is whoever is playing a tone, and changes when the other starts', async () => {
    const { job, file } = await exportWith(t, a.key, session, { layout: 'speaker' }, 'speaker.mp4');
    expect(job.layout).toBe('speaker');
    const v = await decodeVideo(file, 1280, 720);
    const large = (i: number) => nearest(v.at(i, 480, 360), COLOURS);
    expect(large(frameAt(1))).toBe('red');
    expect(large(frameAt(3.5))).toBe('red');
    expect(large(frameAt(5))).toBe('blue');
    expect(large(frameAt(7.5))).toBe('blue');
    const firstBlue = v.frames.findIndex((_, i) => large(i) === 'blue');
    expect(Math.abs(firstBlue / 15 - 4)).toBeLessThanOrEqual(0.5);
  });

  it('m4a: one audio stream, no video, the whole call', async () => {
    const { job, file } = await exportWith(t, a.key, session, { format: 'm4a' }, 'call.m4a');
    expect(job.format).toBe('m4a');
    const info = await probe(file);
    expect(info.video).toBe('');
    expect(info.audio).toMatch(/aac/);
    expect(Math.abs(info.durationS - 8)).toBeLessThanOrEqual(0.5);
    const audio = await decodeAudio(file);
    expect(rms(audio, 1, 3)).toBeGreaterThan(3000);
    expect(rms(audio, 5, 7)).toBeGreaterThan(3000);
    const dl = await t.app.inject({
      method: 'GET',
      url: `/v1/exports/${job.job_id}/download`,
      headers: { authorization: `Bearer ${a.key}` },
    });
    expect(dl.headers['content-type']).toBe('audio/mp4');
    expect(dl.headers['content-disposition']).toMatch(/^attachment; filename="two \d{4}-\d{2}-\d{2}\.m4a"; /);
  });

  it('1080p: 1920x1080, and 1080x1920 vertical, the layout drawn larger', async () => {
    const wide = await exportWith(t, a.key, session, { resolution: '1080p' }, 'wide.mp4');
    expect(wide.job.resolution).toBe('1080p');
    expect((await probe(wide.file)).video).toMatch(/1920x1080/);
    const v = await decodeVideo(wide.file, 1920, 1080);
    // Two tiles side by side: alice's left, bob's right.
    expect(nearest(v.at(frameAt(2), 480, 540), COLOURS)).toBe('red');
    expect(nearest(v.at(frameAt(2), 1440, 540), COLOURS)).toBe('blue');
    const tall = await exportWith(
      t,
      a.key,
      session,
      { resolution: '1080p', orientation: 'vertical' },
      'tall.mp4',
    );
    expect((await probe(tall.file)).video).toMatch(/1080x1920/);
  });

  /** Pixels of alice's picture, in its lower fifth, that are not her camera's red: her name bar. */
  const barPixels = (v: Decoded, i: number) => {
    let xs = [Infinity, -Infinity];
    let ys = [Infinity, -Infinity];
    for (let y = 0; y < v.height; y += 4)
      for (let x = 0; x < v.width / 2; x += 4)
        if (nearest(v.at(i, x, y), COLOURS) === 'red') {
          xs = [Math.min(xs[0]!, x), Math.max(xs[1]!, x)];
          ys = [Math.min(ys[0]!, y), Math.max(ys[1]!, y)];
        }
    let n = 0;
    // Inside the picture's edges, which chroma subsampling blends with what is around them.
    for (let y = ys[1]! - (ys[1]! - ys[0]!) / 5; y <= ys[1]! - 8; y += 4)
      for (let x = xs[0]! + 8; x <= xs[1]! - 8; x += 4) if (nearest(v.at(i, x, y), COLOURS) !== 'red') n += 1;
    return n;
  };

  it('names: a bar on each picture by default, none with names=false', async () => {
    const named = await exportWith(t, a.key, session, {}, 'named.mp4');
    expect(named.job.names).toBe(true);
    const bare = await exportWith(t, a.key, session, { names: false }, 'bare.mp4');
    expect(bare.job.names).toBe(false);
    const withBars = barPixels(await decodeVideo(named.file, 1280, 720), frameAt(2));
    const without = barPixels(await decodeVideo(bare.file, 1280, 720), frameAt(2));
    expect(withBars).toBeGreaterThan(100);
    expect(without).toBeLessThan(10);
  });

  it('POST honours Idempotency-Key: the same body gives the same job, another body is refused', async () => {
    const url = `/v1/sessions/${session}/exports`;
    const headers = { 'idempotency-key': 'options-1' };
    const first = await call(t, 'POST', url, { key: a.key, headers, body: { format: 'm4a' } });
    const again = await call(t, 'POST', url, { key: a.key, headers, body: { format: 'm4a' } });
    expect(first.status).toBe(202);
    expect(again.body.data.job_id).toBe(first.body.data.job_id);
    const other = await call(t, 'POST', url, { key: a.key, headers, body: { format: 'mp4' } });
    expectError(other, 409, 'CONFLICT');
    await waitForJob(t, a.key, first.body.data.job_id);
  });

  it('refuses bad options naming the field, in the body and in the query, and queues nothing', async () => {
    const before = (await call(t, 'GET', `/v1/sessions/${session}/exports`, { key: a.key })).body.data.length;
    const post = (body: Record<string, unknown>) =>
      call(t, 'POST', `/v1/sessions/${session}/exports`, { key: a.key, body });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ from_ts: 2_000_000_000_000, to_ts: 1_999_999_999_000 }, 'body.to_ts'],
      [{ from_ts: 4_000_000_000_000 }, 'body.from_ts'],
      [{ to_ts: 1_000 }, 'body.to_ts'],
      [{ format: 'avi' }, 'format'],
      [{ resolution: '4k' }, 'resolution'],
      [{ layout: 'speaker', focus: 'alice' }, 'body.focus'],
      [{ from_ts: -5 }, 'from_ts'],
      [{ colour: 'red' }, 'colour'],
      [{ names: 'maybe' }, 'names'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(expectError(res, 400, res.body?.error?.code ?? 'BAD_REQUEST'), JSON.stringify(body)).toContain(
        field,
      );
      expect(res.status).toBe(400);
    }
    const query = await call(t, 'GET', `/v1/sessions/${session}/export?from_ts=2000&to_ts=1000`, {
      key: a.key,
    });
    expect(expectError(query, 400, 'BAD_REQUEST')).toContain('query.to_ts');
    const unknown = await call(t, 'GET', `/v1/sessions/${session}/export?format=webm`, { key: a.key });
    expect(unknown.status).toBe(400);
    expect(unknown.raw).toContain('format');
    const after = (await call(t, 'GET', `/v1/sessions/${session}/exports`, { key: a.key })).body.data.length;
    expect(after).toBe(before);
  });
});
