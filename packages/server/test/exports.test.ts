import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TILE_COLOURS } from '../src/modules/exports/graph.js';
import { scanRecording } from '../src/modules/exports/scan.js';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { decodeAudio, decodeVideo, nearest, probe, rms } from './support/decode.js';
import {
  evc1,
  avccChunks,
  h264Camera,
  opusPackets,
  pcmChunks,
  pcmVoice,
  recordSession,
  solidJpeg,
  vpxChunks,
  type Planned,
} from './support/media.js';
import { exportTo, waitForJob } from './support/exports.js';
import { eventually, join as joinLive, jpeg, leave, publish } from './support/live.js';
import { receiver, verifies, type Receiver } from './support/webhooks.js';

const FPS = 15;
const frameAt = (ms: number) => Math.round(ms);
const rgb = (hex: string): [number, number, number] => {
  const n = parseInt(hex.replace('0x', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};
/** What a tile can show: a participant's camera colour, or a name tile (colour by order of appearance). */
const PALETTE: Record<string, [number, number, number]> = {
  red: [255, 0, 0],
  blue: [0, 0, 255],
  green: [0, 128, 0],
  'alice name': rgb(TILE_COLOURS[0]!),
  'bob name': rgb(TILE_COLOURS[1]!),
  'carol name': rgb(TILE_COLOURS[2]!),
};

/**
 * The recording every rendering test uses, made through the live client:
 * - alice: camera of red JPEGs, 0–2.933 s; microphone pcm-s16 (440 Hz) speaking 0.2–1.2 s;
 *   at 1.0 s she sends `director.focus` → bob;
 * - bob: camera of blue VP8 (encoded by the bundled ffmpeg), 0–2.933 s; microphone opus (660 Hz)
 *   speaking 1.8–2.8 s;
 * - carol joins late: green JPEGs from 1.5 s, camera off (unpublished) from 2.2 s to 2.6 s.
 * Frames at 15 fps; the media span is 0–2.933 s.
 */
async function plan(): Promise<Planned[]> {
  const [red, green, blue, tone] = await Promise.all([
    solidJpeg('red'),
    solidJpeg('green'),
    vpxChunks('vp8', 'blue', 3),
    opusPackets(660, 1),
  ]);
  const out: Planned[] = [];
  for (let k = 0; k < 45; k++) {
    const at = frameAt((k * 1000) / FPS);
    out.push({ user: 'alice', atMs: at, stream: 'media/alice/cam', payload: red });
    out.push({ user: 'bob', atMs: at, stream: 'media/bob/cam', payload: evc1('vp8', blue[k]!, 5_000_000) });
  }
  const pcmDescription = new TextEncoder().encode(
    JSON.stringify({ sampleRate: 16_000, numberOfChannels: 1 }),
  );
  pcmChunks(440, 1).forEach((c) =>
    out.push({
      user: 'alice',
      atMs: 200 + c.offsetUs / 1000,
      stream: 'media/alice/mic',
      payload: evc1('pcm-s16', c, 200_000, pcmDescription),
    }),
  );
  tone.forEach((c) =>
    out.push({
      user: 'bob',
      atMs: 1800 + c.offsetUs / 1000,
      stream: 'media/bob/mic',
      payload: evc1('opus', c, 90_000_000),
    }),
  );
  out.push({
    user: 'alice',
    atMs: 1000,
    stream: 'director',
    director: { type: 'director.focus', data: { user_id: 'bob' } },
  });
  for (let j = 0; 1500 + (j * 1000) / FPS < 2200; j++)
    out.push({
      user: 'carol',
      atMs: frameAt(1500 + (j * 1000) / FPS),
      stream: 'media/carol/cam',
      payload: green,
    });
  out.push({ user: 'carol', atMs: 2200, stream: 'media/carol/cam', unpublish: true });
  for (let j = 0; 2600 + (j * 1000) / FPS < 2950; j++)
    out.push({
      user: 'carol',
      atMs: frameAt(2600 + (j * 1000) / FPS),
      stream: 'media/carol/cam',
      payload: green,
    });
  return out;
}

const SPAN_S = 2.933;

describe('MP4 export of a recording made by the live client', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let sessionId: string;
  let hook: Receiver;
  let hookSecret: string;
  const files: Record<string, string> = {};

  /** Enqueues, waits, downloads; returns the job and the path of the downloaded MP4. */
  async function exportAs(name: string, query: string): Promise<{ job: Record<string, any>; file: string }> {
    const file = join(t.dataDir, `${name}.mp4`);
    const job = await exportTo(t, a.key, sessionId, file, query);
    files[name] = file;
    return { job, file };
  }

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    [a, b] = await Promise.all([tenant(t), tenant(t)]);
    hook = await receiver();
    const created = await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: hook.url, events: ['export.completed'] },
    });
    hookSecret = created.body.data.secret;
    sessionId = (await createSession(t, a.key, 'export me')).id;
    await recordSession(t, a.key, sessionId, await plan());
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hook?.close();
  });

  it('renders the grid at 1280x720: each camera in its tile, the late joiner from when they joined, a name while a camera is off, both microphones heard', async () => {
    const { job, file } = await exportAs('grid', '');
    expect(job).toMatchObject({
      room_id: sessionId,
      layout: 'grid',
      orientation: 'landscape',
      focus: null,
      error: null,
      download_url: `http://vss.test/v1/exports/${job.job_id}/download`,
    });
    const info = await probe(file);
    expect(info.video).toMatch(/^h264 .*1280x720/);
    expect(info.video).toMatch(/15 fps/);
    expect(info.audio).toMatch(/^aac/);
    expect(Math.abs(info.durationS - SPAN_S)).toBeLessThanOrEqual(1 / FPS + 0.005);

    const v = await decodeVideo(file, 1280, 720);
    expect(Math.abs(v.frames.length / FPS - SPAN_S)).toBeLessThanOrEqual(1 / FPS + 0.005);
    // Tiles of a 2x2 grid (636x356, 8 px apart; the third row centred); sampled below their name text.
    const tile = (x: number, y: number) => (i: number) =>
      nearest(v.at(i, x + 0.35 * 636, y + 0.7 * 356), PALETTE);
    const alice = tile(0, 0);
    const bob = tile(644, 0);
    const carol = tile(322, 364);
    for (const i of [0, 10, 22, 37, 44]) {
      expect(alice(i)).toBe('red');
      expect(bob(i)).toBe('blue');
    }
    // Carol joined at 1.5 s: her name until then, her video from the first frame at or after 1.5 s.
    const firstGreen = v.frames.findIndex((_, i) => carol(i) === 'green');
    expect(firstGreen).toBeGreaterThanOrEqual(22);
    expect(firstGreen).toBeLessThanOrEqual(24);
    for (let i = 0; i < 22; i++) expect(carol(i)).toBe('carol name');
    expect(carol(30)).toBe('green');
    // Camera off 2.2–2.6 s: her name, not her last picture; then her video again.
    expect(carol(37)).toBe('carol name');
    expect(carol(42)).toBe('green');

    const audio = await decodeAudio(file);
    expect(audio.length / 8000).toBeGreaterThan(SPAN_S - 1 / FPS);
    expect(rms(audio, 0.3, 1.1)).toBeGreaterThan(1500); // alice (pcm-s16)
    expect(rms(audio, 1.35, 1.65)).toBeLessThan(150); // nobody speaks
    expect(rms(audio, 1.9, 2.7)).toBeGreaterThan(1000); // bob (opus)
  });

  it('renders the grid at 720x1280 in vertical orientation, one column', async () => {
    const { job, file } = await exportAs('vertical', '?orientation=vertical');
    expect(job.orientation).toBe('vertical');
    const info = await probe(file);
    expect(info.video).toMatch(/720x1280/);
    const v = await decodeVideo(file, 720, 1280);
    // Three tiles of 720x420, 8 px apart, centred: y = 2, 430, 858.
    const at = (y: number) => nearest(v.at(30, 252, y + 0.7 * 420), PALETTE);
    expect([at(2), at(430), at(858)]).toEqual(['red', 'blue', 'green']);
  });

  it('renders the presenter layout following director.focus when no focus is given', async () => {
    const { file } = await exportAs('presenter', '?layout=presenter');
    const v = await decodeVideo(file, 1280, 720);
    // Large tile 960x720 on the left; the strip's tiles are 312x356 at x = 968, y = 0 and 364.
    const main = (i: number) => nearest(v.at(i, 336, 504), PALETTE);
    const strip = (i: number, y: number) => nearest(v.at(i, 968 + 0.35 * 312, y + 0.7 * 356), PALETTE);
    expect(main(7)).toBe('red'); // the first participant, alice
    expect([strip(7, 0), strip(7, 364)]).toEqual(['blue', 'carol name']);
    // alice sent director.focus → bob at 1.0 s
    const switched = v.frames.findIndex((_, i) => main(i) === 'blue');
    expect(Math.abs(switched - 15)).toBeLessThanOrEqual(1);
    expect(main(30)).toBe('blue');
    expect([strip(30, 0), strip(30, 364)]).toEqual(['red', 'green']);
  });

  it('renders the presenter layout with a fixed focus, in both orientations', async () => {
    const { job, file } = await exportAs('focus', '?layout=presenter&focus=carol');
    expect(job.focus).toBe('carol');
    const v = await decodeVideo(file, 1280, 720);
    const main = (i: number) => nearest(v.at(i, 336, 504), PALETTE);
    // Before she joined, the first participant present is large, as the live room shows it.
    expect(main(7)).toBe('red');
    expect(main(30)).toBe('green');
    // Her join is placed at the media time read before it: where the large tile switches to her.
    const switched = v.frames.findIndex((_, i) => main(i) !== 'red');
    expect(Math.abs(switched - 1.5 * FPS)).toBeLessThanOrEqual(1);
    const scan = await scanRecording(t.runtime.streams, sessionId, await t.runtime.streams.stats(sessionId));
    const carol = scan.presence.find((p) => p.userId === 'carol' && p.present)!;
    expect(Math.abs(carol.atUs - 1_500_000)).toBeLessThanOrEqual(1_000_000 / FPS);
    expect(scan.presence.filter((p) => !p.present).map((p) => p.atUs)).toEqual([
      scan.spanUs,
      scan.spanUs,
      scan.spanUs,
    ]);
    expect(nearest(v.at(30, 968 + 100, 250), PALETTE)).toBe('red');

    const vertical = await exportAs('focus-vertical', '?layout=presenter&focus=bob&orientation=vertical');
    expect((await probe(vertical.file)).video).toMatch(/720x1280/);
    const w = await decodeVideo(vertical.file, 720, 1280);
    // Large tile 720x960 at the top, the strip below.
    expect(nearest(w.at(30, 252, 672), PALETTE)).toBe('blue');
  }, 90_000);

  it('renders H.264 cameras, and participants who only spoke as name tiles with their voice', async () => {
    const mixed = await createSession(t, a.key, 'h264 and a voice');
    await recordSession(t, a.key, mixed.id, [
      ...(await h264Camera('frank', 'yellow', 1)),
      ...pcmVoice('gina', 440, 1),
    ]);
    const file = join(t.dataDir, 'h264.mp4');
    await exportTo(t, a.key, mixed.id, file);
    // Only frank has video: one tile over the whole canvas; gina is heard.
    const v = await decodeVideo(file, 1280, 720);
    expect(nearest(v.at(7, 448, 504), { ...PALETTE, yellow: [255, 255, 0] })).toBe('yellow');
    expect(rms(await decodeAudio(file), 0.2, 0.8)).toBeGreaterThan(1500);

    const voiceOnly = await createSession(t, a.key, 'audio only');
    await recordSession(t, a.key, voiceOnly.id, pcmVoice('hank', 440, 1));
    await exportTo(t, a.key, voiceOnly.id, file);
    const w = await decodeVideo(file, 1280, 720);
    expect(nearest(w.at(7, 448, 504), { hank: rgb(TILE_COLOURS[0]!) })).toBe('hank');
    expect(rms(await decodeAudio(file), 0.2, 0.8)).toBeGreaterThan(1500);
  });

  it('renders VP9 cameras and H.264 cameras with an avcC description (length-prefixed NAL units)', async () => {
    const [purple, avc] = await Promise.all([vpxChunks('vp9', 'purple', 1), avccChunks('yellow', 1)]);
    expect(avc.codec).toMatch(/^avc1\.[0-9a-f]{6}$/);
    const session = await createSession(t, a.key, 'vp9 and avcC');
    await recordSession(t, a.key, session.id, [
      ...purple.map((c) => ({
        user: 'ivan',
        atMs: c.offsetUs / 1000,
        stream: 'media/ivan/cam',
        payload: evc1('vp09.00.10.08', c, 0),
      })),
      ...avc.chunks.map((c) => ({
        user: 'judy',
        atMs: c.offsetUs / 1000,
        stream: 'media/judy/cam',
        payload: evc1(avc.codec, c, 0, avc.description),
      })),
    ]);
    const file = join(t.dataDir, 'vp9-avcc.mp4');
    await exportTo(t, a.key, session.id, file);
    // Two tiles side by side (636 px wide, 8 px apart), ivan's left, judy's right, from the first
    // frame to the last.
    const v = await decodeVideo(file, 1280, 720);
    const colours = {
      ...PALETTE,
      purple: [128, 0, 128] as [number, number, number],
      yellow: [255, 255, 0] as [number, number, number],
    };
    expect(v.frames.length).toBeGreaterThanOrEqual(14);
    for (const i of [0, 7, v.frames.length - 1]) {
      expect(nearest(v.at(i, 318, 360), colours), `frame ${i}, ivan`).toBe('purple');
      expect(nearest(v.at(i, 962, 360), colours), `frame ${i}, judy`).toBe('yellow');
    }
  });

  it('serves byte ranges of a completed export', async () => {
    const res = await call(t, 'GET', `/v1/sessions/${sessionId}/export`, { key: a.key });
    const job = await waitForJob(t, a.key, res.body.data.job_id);
    const url = `/v1/exports/${job.job_id}/download`;
    const auth = { authorization: `Bearer ${a.key}` };
    const whole = await t.app.inject({ method: 'GET', url, headers: auth });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(whole.headers['content-disposition']).toMatch(
      /^attachment; filename="export me \d{4}-\d{2}-\d{2}\.mp4"; filename\*=UTF-8''export%20me%20\d{4}-\d{2}-\d{2}\.mp4$/,
    );
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const size = whole.rawPayload.length;
    expect(size).toBe(job.size_bytes);
    // +faststart: the movie header comes before the media data.
    expect(whole.rawPayload.indexOf('moov')).toBeLessThan(whole.rawPayload.indexOf('mdat'));

    const part = await t.app.inject({ method: 'GET', url, headers: { ...auth, range: 'bytes=100-199' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${size}`);
    expect(part.rawPayload.equals(whole.rawPayload.subarray(100, 200))).toBe(true);
    const tail = await t.app.inject({ method: 'GET', url, headers: { ...auth, range: 'bytes=-50' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(whole.rawPayload.subarray(size - 50))).toBe(true);
    const open = await t.app.inject({
      method: 'GET',
      url,
      headers: { ...auth, range: `bytes=${size - 10}-` },
    });
    expect(open.rawPayload.length).toBe(10);
    const beyond = await t.app.inject({ method: 'GET', url, headers: { ...auth, range: `bytes=${size}-` } });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${size}`);
    expect(JSON.parse(beyond.body).error.code).toBe('RANGE_NOT_SATISFIABLE');
    // A stale If-Range gets the whole (changed) file rather than a piece of it.
    const stale = await t.app.inject({
      method: 'GET',
      url,
      headers: { ...auth, range: 'bytes=0-9', 'if-range': '"old"' },
    });
    expect(stale.statusCode).toBe(200);
    const fresh = await t.app.inject({
      method: 'GET',
      url,
      headers: { ...auth, range: 'bytes=0-9', 'if-range': String(whole.headers.etag) },
    });
    expect(fresh.statusCode).toBe(206);
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    const ask = (q: string) => call(t, 'GET', `/v1/sessions/${sessionId}/export${q}`, { key: a.key });
    expect(expectError(await ask('?layout=mosaic'), 400, 'BAD_REQUEST')).toMatch(
      /^query\.layout must be one of "grid", "presenter"/,
    );
    expect(expectError(await ask('?orientation=square'), 400, 'BAD_REQUEST')).toMatch(/^query\.orientation /);
    expect(expectError(await ask('?layout=presenter&focus='), 400, 'BAD_REQUEST')).toMatch(/^query\.focus /);
    expect(expectError(await ask('?layout=presenter&focus=nobody'), 400, 'BAD_REQUEST')).toMatch(
      /^query\.focus must be a participant with video/,
    );
    expect(expectError(await ask('?focus=bob'), 400, 'BAD_REQUEST')).toMatch(
      /^query\.focus applies to the presenter layout/,
    );
  });

  it('answers 404 for unknown or foreign sessions and jobs, and creates nothing', async () => {
    const unknown = '0190b6f0-0000-7000-8000-000000000000';
    expectError(await call(t, 'GET', `/v1/sessions/${unknown}/export`, { key: a.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/sessions/${sessionId}/export`, { key: b.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/exports/${unknown}`, { key: a.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/exports/${unknown}/download`, { key: a.key }), 404, 'NOT_FOUND');
    const mine = await call(t, 'GET', `/v1/sessions/${sessionId}/export`, { key: a.key });
    const id = mine.body.data.job_id;
    expectError(await call(t, 'GET', `/v1/exports/${id}`, { key: b.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/exports/${id}/download`, { key: b.key }), 404, 'NOT_FOUND');
    expectError(await call(t, 'GET', `/v1/exports/not-a-uuid`, { key: a.key }), 400, 'BAD_REQUEST');
    await waitForJob(t, a.key, id);
  });

  it("lists a session's exports newest first, as each job reads, and no other project's", async () => {
    const before = await call(t, 'GET', `/v1/sessions/${sessionId}/exports`, { key: a.key });
    expect(before.status).toBe(200);
    const first = (await call(t, 'GET', `/v1/sessions/${sessionId}/export?layout=grid`, { key: a.key })).body
      .data.job_id;
    const second = (await call(t, 'GET', `/v1/sessions/${sessionId}/export?layout=presenter`, { key: a.key }))
      .body.data.job_id;
    await waitForJob(t, a.key, first);
    await waitForJob(t, a.key, second);
    const list = (await call(t, 'GET', `/v1/sessions/${sessionId}/exports`, { key: a.key })).body.data;
    expect(list.length).toBe(before.body.data.length + 2);
    expect(list.slice(0, 2).map((j: any) => j.job_id)).toEqual([second, first]);
    expect(list[0]).toEqual((await call(t, 'GET', `/v1/exports/${second}`, { key: a.key })).body.data);
    expectError(await call(t, 'GET', `/v1/sessions/${sessionId}/exports`, { key: b.key }), 404, 'NOT_FOUND');
    expectError(
      await call(t, 'GET', '/v1/sessions/0190b6f0-0000-7000-8000-000000000000/exports', { key: a.key }),
      404,
      'NOT_FOUND',
    );
    expectError(await call(t, 'GET', '/v1/sessions/not-a-uuid/exports', { key: a.key }), 400, 'BAD_REQUEST');
  });

  it('answers 409 for a download before the job has completed, and for sessions with nothing to export yet', async () => {
    await t.runtime.jobs.stop();
    let id: string;
    try {
      const res = await call(t, 'GET', `/v1/sessions/${sessionId}/export`, { key: a.key });
      id = res.body.data.job_id;
      expect((await call(t, 'GET', `/v1/exports/${id}`, { key: a.key })).body.data).toMatchObject({
        status: 'queued',
        progress: 0,
        size_bytes: null,
        completed_at: null,
      });
      expect(
        expectError(await call(t, 'GET', `/v1/exports/${id}/download`, { key: a.key }), 409, 'CONFLICT'),
      ).toMatch(/queued/);
    } finally {
      t.runtime.jobs.start();
    }
    expect((await waitForJob(t, a.key, id)).status).toBe('completed');
    expect((await call(t, 'GET', `/v1/exports/${id}/download`, { key: a.key })).status).toBe(200);

    const live = await createSession(t, a.key, 'still live');
    const socket = await joinLive(t, a.key, live.id, 'erin');
    try {
      socket.send(publish('media/erin/cam', jpeg(1), { id: 'f1' }));
      await socket.waitFor((m) => m.event === 'ack');
      expect(
        expectError(await call(t, 'GET', `/v1/sessions/${live.id}/export`, { key: a.key }), 409, 'CONFLICT'),
      ).toMatch(/live/);
    } finally {
      await leave(socket);
    }

    const empty = await createSession(t, a.key, 'nothing recorded');
    expect(
      expectError(await call(t, 'GET', `/v1/sessions/${empty.id}/export`, { key: a.key }), 409, 'CONFLICT'),
    ).toMatch(/no recorded media/);
  });

  it('announces export.completed with the job to webhooks and in the session timeline', async () => {
    const ofSession = () => hook.hits.filter((h) => h.body?.session_id === sessionId);
    const hits = await eventually(() => (ofSession().length >= 3 ? ofSession() : null));
    for (const hit of hits) {
      expect(verifies(hookSecret, hit)).toBe(true);
      expect(hit.body).toMatchObject({
        type: 'export.completed',
        project_id: a.projectId,
        session_id: sessionId,
        data: { room_id: sessionId, status: 'completed' },
      });
      expect(hit.body.data.size_bytes).toBeGreaterThan(1000);
    }
    const timeline = await eventually(async () => {
      const res = await call(t, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: a.key });
      const done = res.body.data.filter((e: { type: string }) => e.type === 'export.completed');
      // The same exports, announced both ways (each side arrives on its own after the commit).
      const announced = new Set(hook.hits.map((h) => h.body.data.job_id));
      return done.length >= 3 && done.every((e: any) => announced.has(e.data.job_id)) ? done : null;
    });
    expect(timeline[0]).toMatchObject({ actor: 'system', data: { room_id: sessionId, status: 'completed' } });
  });

  it("keeps the error and the end of ffmpeg's log when a render fails, without retrying it", async () => {
    const broken = await createSession(t, a.key, 'undecodable');
    const frames: Planned[] = Array.from({ length: 20 }, (_, k) => ({
      user: 'dave',
      atMs: k * 66,
      stream: 'media/dave/cam',
      payload: jpeg(k, 2000), // JPEG markers around bytes that are not a picture
    }));
    await recordSession(t, a.key, broken.id, frames);
    const res = await call(t, 'GET', `/v1/sessions/${broken.id}/export`, { key: a.key });
    const job = await waitForJob(t, a.key, res.body.data.job_id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, size_bytes: null });
    expect(job.error).toMatch(/^ffmpeg failed \(exit code \d+\)/);
    expect(job.error_log.length).toBeGreaterThan(20);
    expect(job.error_log).not.toContain(t.dataDir);
    expect(job.completed_at).not.toBeNull();
    expectError(await call(t, 'GET', `/v1/exports/${job.job_id}/download`, { key: a.key }), 409, 'CONFLICT');
    expect(readdirSync(join(t.dataDir, 'exports')).filter((f) => f.startsWith(job.job_id))).toEqual([]);
  });

  it('replays a retried enqueue with the same Idempotency-Key, and holds dashboard users to the same-origin rule', async () => {
    const url = `/v1/sessions/${sessionId}/export?layout=presenter`;
    const first = await call(t, 'GET', url, { key: a.key, headers: { 'idempotency-key': 'export-1' } });
    const again = await call(t, 'GET', url, { key: a.key, headers: { 'idempotency-key': 'export-1' } });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.job_id).toBe(first.body.data.job_id);
    const other = await call(t, 'GET', `${url}&orientation=vertical`, {
      key: a.key,
      headers: { 'idempotency-key': 'export-1' },
    });
    expectError(other, 409, 'CONFLICT');

    const cross = await call(t, 'GET', `/v1/sessions/${sessionId}/export`, {
      cookie: a.cookie,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expectError(cross, 403, 'FORBIDDEN');
    const own = await call(t, 'GET', `/v1/sessions/${sessionId}/export`, {
      cookie: a.cookie,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(202);
    expect((await call(t, 'GET', `/v1/exports/${own.body.data.job_id}`, { cookie: a.cookie })).status).toBe(
      200,
    );
    await waitForJob(t, a.key, first.body.data.job_id);
    await waitForJob(t, a.key, own.body.data.job_id);
  });

  it('redacting a participant deletes every export rendered before that shows them, and every read agrees they are gone', async () => {
    const s = await createSession(t, a.key, 'to redact');
    await recordSession(t, a.key, s.id, [...pcmVoice('ivy', 440, 1), ...pcmVoice('jon', 440, 1)]);
    const file = join(t.dataDir, 'before-redaction.mp4');
    const before = await exportTo(t, a.key, s.id, file);
    const dir = join(t.dataDir, 'exports');
    expect(readdirSync(dir)).toContain(`${before.job_id}.mp4`);

    const redacted = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/ivy`, { key: a.key });
    expect(redacted.status, redacted.raw).toBe(200);

    // The file is gone, the job says why, and the download answers 404.
    expect(readdirSync(dir).filter((f) => f.startsWith(before.job_id))).toEqual([]);
    const job = (await call(t, 'GET', `/v1/exports/${before.job_id}`, { key: a.key })).body.data;
    expect(job).toMatchObject({ status: 'failed', size_bytes: null });
    expect(job.error).toMatch(/ivy.*redacted/);
    expectError(
      await call(t, 'GET', `/v1/exports/${before.job_id}/download`, { key: a.key }),
      404,
      'NOT_FOUND',
    );

    // Every read agrees on who is in the session: jon alone.
    const manifest = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
    expect(manifest.participants.map((p: { user_id: string }) => p.user_id)).toEqual(['jon']);
    const meta = (await call(t, 'GET', `/v1/sessions/${s.id}/playback/timeline`, { key: a.key })).body.data;
    expect(meta.participant_count).toBe(1);
    expect(meta.stream_ids.filter((id: string) => id.startsWith('media/'))).toEqual(['media/jon/mic']);

    // An export made after the redaction renders without them, and stays.
    const after = await exportTo(t, a.key, s.id, file);
    expect(after.status).toBe('completed');
    await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/jon`, { key: a.key });
    expect((await call(t, 'GET', `/v1/exports/${after.job_id}`, { key: a.key })).body.data.status).toBe(
      'failed',
    );
  });

  it('deleting the session deletes its exports and their files', async () => {
    const res = await call(t, 'GET', `/v1/sessions/${sessionId}/export`, { key: a.key });
    const job = await waitForJob(t, a.key, res.body.data.job_id);
    const dir = join(t.dataDir, 'exports');
    const ids = (
      await t.runtime.database.db.selectFrom('exports').select(['id', 'session_id']).execute()
    ).map((r) => ({ id: r.id, mine: r.session_id === sessionId }));
    const files = () => readdirSync(dir).map((f) => f.split('.')[0]);
    expect(files()).toContain(job.job_id);
    const others = ids.filter((x) => !x.mine && files().includes(x.id)).map((x) => x.id);
    expect(others.length).toBeGreaterThan(0);
    expect((await call(t, 'DELETE', `/v1/sessions/${sessionId}`, { key: a.key })).status).toBe(200);
    // This session's exports are gone, files and all; other sessions' are untouched.
    for (const x of ids.filter((x) => x.mine)) expect(files()).not.toContain(x.id);
    for (const id of others) expect(files()).toContain(id);
    expectError(await call(t, 'GET', `/v1/exports/${job.job_id}`, { key: a.key }), 404, 'NOT_FOUND');
    expect(
      await t.runtime.database.db
        .selectFrom('exports')
        .select('id')
        .where('session_id', '=', sessionId)
        .execute(),
    ).toEqual([]);
  });
});
