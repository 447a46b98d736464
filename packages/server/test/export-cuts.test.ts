import { join } from 'node:path';
import { LiveClient } from '@vss/client';
import type { ControlFrame } from '@vss/protocol';
import { WebSocket } from 'ws';
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
import { exportTo, waitForJob } from './support/exports.js';
import { listen, token } from './support/live.js';
import { evc1, h264Camera, h264Of, pcmVoice, recordSession, type Chunk } from './support/media.js';
import { clockAhead, eventually, realClock } from './support/wait.js';

/**
 * Exports of a recording that was paused: the paused span cut out (the MP4 shorter by it), or kept
 * with `keep_gaps=true`, and sound and pictures in sync across the cut. Pause and resume happen on
 * the server's clock, which is moved ahead through the pause rather than waited through: 10 s
 * recorded, a 10 s pause, 10 s recorded: a 30 s session whose MP4 lasts about 20 s, or 30 s with
 * the gap kept. A camera flash and the onset of a tone, published at the same instant 1 s into the
 * last stretch, are found in the decoded MP4. And a participant the recording rules left out has
 * no tile.
 */

const FPS = 15;
/** each recorded stretch and the pause, ms */
const STRETCH_MS = 10_000;
const PAUSE_MS = 10_000;
/** the flash and the tone, this long after the first frame published after the resume */
const FLASH_AFTER_MS = 1000;
/** a key frame every GOP frames: the first frame after the resume is not one */
const GOP = 18;
/** 100 messages per stretch: a stretch published at once stays within the connection's burst */
const AUDIO_CHUNK_MS = 100;
/** the end of the first stretch is published in real time, this long: the pause follows at once */
const LIVE_TAIL_MS = 300;
const RATE = 16_000;

const frameMs = (k: number) => Math.round((k * 1000) / FPS);
const FRAMES = (STRETCH_MS * FPS) / 1000;

/**
 * The camera as its encoder gives it, one stream of 3 × FRAMES frames: grey while recorded
 * before the pause, red while paused (published, and never stored), then dark with one white
 * frame (the flash) FLASH_AFTER_MS into the last stretch.
 */
function cameraChunks(): Promise<Chunk[]> {
  const flash = 2 * FRAMES + (FLASH_AFTER_MS * FPS) / 1000;
  const source =
    `color=c=0x808080:s=320x240:r=${FPS},` +
    `drawbox=c=red:t=fill:enable='between(n,${FRAMES},${2 * FRAMES - 1})',` +
    `drawbox=c=0x202020:t=fill:enable='gte(n,${2 * FRAMES})',` +
    `drawbox=c=white:t=fill:enable='eq(n,${flash})'`;
  return h264Of(source, (3 * STRETCH_MS) / 1000, FPS, GOP);
}

/** pcm-s16 mono samples from `fromMs` for `ms`, `tone(tMs)` giving each sample's value. */
function pcm(fromMs: number, ms: number, tone: (tMs: number) => number): Buffer {
  const n = (ms * RATE) / 1000;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(tone(fromMs + (i * 1000) / RATE)), i * 2);
  return b;
}
const sine = (hz: number, amp: number) => (tMs: number) => amp * Math.sin((2 * Math.PI * hz * tMs) / 1000);
const PCM_DESCRIPTION = new TextEncoder().encode(JSON.stringify({ sampleRate: RATE, numberOfChannels: 1 }));

/** What the test knows of the session it recorded, ms since 1970. */
interface Recorded {
  /** the first media frame: time 0 of the export */
  startMs: number;
  pausedAt: number;
  resumedAt: number;
  /** the flash and the tone's onset */
  flashMs: number;
  /** the last media frame */
  lastMs: number;
}

/** The first `control` `recording` frame with `state` from now on (its `timestamp_ms`: when, on the server). */
function control(c: LiveClient, state: string): Promise<ControlFrame> {
  return new Promise((resolve) => {
    const off = c.on('control', (f) => {
      if ((f.event as string) === 'recording' && (f.data as { state?: string }).state === state) {
        off();
        resolve(f);
      }
    });
  });
}

describe('exporting a recording that was paused, or left someone out', () => {
  let t: TestApp;
  let a: Tenant;
  let sessionId: string;
  let rec: Recorded;

  /**
   * Records the session: 10 s of camera (H.264) and microphone (PCM, a 440 Hz tone), then a pause
   * during which both are published too (a red camera, an 880 Hz tone), then after 10 s of server
   * time a resume and 10 s more (a dark camera, silence, and the flash with a 1 kHz tone). The
   * encoder's clock runs on through the pause, as a browser's does.
   */
  async function record(): Promise<Recorded> {
    const session = await createSession(t, a.key, 'paused in the middle');
    const camera = await cameraChunks();
    const c = new LiveClient({
      url: await listen(t),
      session: session.id,
      userId: 'ann',
      format: 'binary',
      WebSocket: WebSocket as never,
      reconnect: false,
      token: () => token(t, a.key, session.id, 'ann', { display_name: 'Ann' }),
    });
    await c.connect();
    /**
     * Publishes FRAMES camera frames from frame `from` and audio over the same time, from `at` on, a
     * message stamped in the future when its time has come.
     */
    const stretch = async (at: number, from: number, tone: (ms: number) => number, live = false) => {
      const media: Array<{ ts: number; stream: string; payload: Buffer }> = [];
      for (let k = from; k < from + FRAMES; k++)
        media.push({
          ts: at + frameMs(k - from),
          stream: 'media/ann/cam',
          payload: evc1(
            'avc1.42c00c',
            { ...camera[k]!, offsetUs: (at + frameMs(k - from) - startMs) * 1000 },
            0,
          ),
        });
      for (let ms = 0; ms < STRETCH_MS; ms += AUDIO_CHUNK_MS) {
        const data = pcm(ms, AUDIO_CHUNK_MS, tone);
        const chunk = {
          offsetUs: (at + ms - startMs) * 1000,
          durationUs: AUDIO_CHUNK_MS * 1000,
          key: true,
          data,
        };
        media.push({
          ts: at + ms,
          stream: 'media/ann/mic',
          payload: evc1('pcm-s16', chunk, 0, PCM_DESCRIPTION),
        });
      }
      media.sort((x, y) => x.ts - y.ts);
      for (const m of media) {
        // Pacing, not a proof: a live stretch is published as its media plays, in real time.
        if (live && m.ts > Date.now()) await new Promise((r) => setTimeout(r, m.ts - Date.now()));
        await c.publish(m.stream, m.payload, { timestampMs: m.ts, binary: true });
      }
      // Acked once everything before it on this connection was taken (and stored, if recorded).
      await c.publishChat(`published from ${at}`, { ack: true });
    };

    // The first stretch ends in real time, as a live one does: the pause follows its last packet
    // within milliseconds. Until then it is stamped in the time just gone.
    const startMs = Date.now() - STRETCH_MS + LIVE_TAIL_MS;
    await stretch(startMs, 0, sine(440, 8000), true);

    const paused = control(c, 'paused');
    expect((await call(t, 'POST', `/v1/sessions/${session.id}/recording/pause`, { key: a.key })).status).toBe(
      200,
    );
    const pausedAt = (await paused).timestamp_ms;
    // The pause lasts PAUSE_MS of the server's clock, moved ahead in two halves. Between them the
    // stretch published while paused, and never stored (a red camera, an 880 Hz tone), goes at
    // once: each half refills the connection's allowance of messages, which a stretch takes 250 of.
    clockAhead(PAUSE_MS / 2);
    await stretch(pausedAt, FRAMES, sine(880, 12_000));
    clockAhead(PAUSE_MS / 2);
    const resumed = control(c, 'recording');
    expect(
      (await call(t, 'POST', `/v1/sessions/${session.id}/recording/resume`, { key: a.key })).status,
    ).toBe(200);
    const resumedAt = (await resumed).timestamp_ms;
    // Cut out, the paused span puts the resume at pausedAt. The last stretch starts at or after
    // the resume such that the flash falls on the export's frame grid (to within 1 ms), so that the
    // frame showing it shows it at its time; and not at once after the first stretch: after a gap
    // of a frame (67 ms), as small as a live publisher leaves at a cut, too small for ffmpeg's
    // resampler to fill by default, which would then play the sound after the cut that much early.
    const cut = resumedAt - pausedAt;
    let n = (FPS * (STRETCH_MS + FLASH_AFTER_MS)) / 1000 + 1;
    while (Math.floor((n * 1000) / FPS) < pausedAt - startMs + FLASH_AFTER_MS) n++;
    const flashMs = startMs + cut + Math.floor((n * 1000) / FPS);
    const lastStart = flashMs - FLASH_AFTER_MS;
    await stretch(lastStart, 2 * FRAMES, (ms) => (ms < FLASH_AFTER_MS ? 0 : sine(1000, 12_000)(ms)));
    await c.close();
    await eventually(
      async () =>
        (await call(t, 'GET', `/v1/sessions`, { key: a.key })).body.data.find(
          (s: { id: string; ended_at: string | null }) => s.id === session.id,
        )?.ended_at,
      20_000,
      'the session to end',
    );
    sessionId = session.id;
    return { startMs, pausedAt, resumedAt, flashMs, lastMs: lastStart + STRETCH_MS - AUDIO_CHUNK_MS };
  }

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    rec = await record();
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    realClock();
  });

  const PALETTE: Record<string, [number, number, number]> = {
    grey: [128, 128, 128],
    dark: [32, 32, 32],
    white: [255, 255, 255],
    red: [255, 0, 0],
    name: [0x34, 0x49, 0x5e],
  };
  /** what the one tile shows in frame i: the camera's colour, or its name tile */
  const shown = (v: Decoded, i: number) => nearest(v.at(i, 640, 300), PALETTE);

  /** The first frame from `fromS` showing the flash, and the first sample from `fromS` of the tone. */
  function flashAndOnset(v: Decoded, audio: Int16Array, fromS: number): { flashS: number; onsetS: number } {
    let f = Math.ceil(fromS * FPS);
    while (f < v.frames.length && shown(v, f) !== 'white') f++;
    let s = Math.ceil(fromS * 8000);
    while (s < audio.length && Math.abs(audio[s]!) < 3000) s++;
    return { flashS: f / FPS, onsetS: s / 8000 };
  }

  it('cuts the paused span out: shorter by it, the camera on across the cut, sound and flash together', async () => {
    const file = join(t.dataDir, 'cut.mp4');
    const job = await exportTo(t, a.key, sessionId, file);
    expect(job.keep_gaps).toBe(false);
    const cut = rec.resumedAt - rec.pausedAt;
    // From the first media frame to the last, less the pause, and one frame.
    const expected = (rec.lastMs - cut - rec.startMs) / 1000 + 1 / FPS;
    const { durationS } = await probe(file);
    const lasts = `the MP4 lasts ${durationS} s, the pause ${cut} ms, expected ${expected.toFixed(3)} s`;
    expect(Math.abs(durationS - expected), lasts).toBeLessThan(0.1);
    // Two stretches of 10 s, and the time it took to pause after the first (a few ms, unless the
    // machine is busy), without the pause: about 20 s.
    expect(durationS, lasts).toBeGreaterThan((2 * STRETCH_MS) / 1000 - 0.1);
    expect(durationS, lasts).toBeLessThan((rec.lastMs - rec.startMs) / 1000 - PAUSE_MS / 1000 + 0.2);

    const [v, audio] = await Promise.all([decodeVideo(file, 1280, 720), decodeAudio(file)]);
    const cutS = (rec.pausedAt - rec.startMs) / 1000;
    const flashS = (rec.flashMs - cut - rec.startMs) / 1000;
    const seen = v.frames.map((_, i) => shown(v, i));
    // Nothing of the pause, and never the name: the camera is on across the cut.
    expect(seen.filter((c) => c !== 'grey' && c !== 'dark' && c !== 'white')).toEqual([]);
    expect(seen.slice(0, Math.floor(cutS * FPS))).toEqual(seen.slice(0, Math.floor(cutS * FPS)).fill('grey'));
    expect(rms(audio, 0.2, cutS - 0.2)).toBeGreaterThan(3000); // the 440 Hz tone before
    expect(rms(audio, cutS + 0.1, flashS - 0.1)).toBeLessThan(150); // silence after: no 880 Hz

    const m = flashAndOnset(v, audio, cutS + 0.1);
    const at = `flash at ${m.flashS.toFixed(3)} s, tone at ${m.onsetS.toFixed(4)} s, both published at ${flashS.toFixed(4)} s`;
    expect(Math.abs(m.flashS - flashS), at).toBeLessThan(0.002);
    expect(Math.abs(m.onsetS - m.flashS), at).toBeLessThan(0.04);
    expect(seen.filter((c) => c === 'white')).toHaveLength(1);
  });

  it('keeps the paused span with keep_gaps=true: the whole session, names and silence while paused, in sync', async () => {
    const file = join(t.dataDir, 'kept.mp4');
    const job = await exportTo(t, a.key, sessionId, file, '?keep_gaps=true');
    expect(job.keep_gaps).toBe(true);
    const expected = (rec.lastMs - rec.startMs) / 1000 + 1 / FPS;
    const { durationS } = await probe(file);
    const lasts = `the MP4 lasts ${durationS} s, expected ${expected.toFixed(3)} s`;
    expect(Math.abs(durationS - expected), lasts).toBeLessThan(0.1);
    expect(durationS).toBeGreaterThan((2 * STRETCH_MS + PAUSE_MS) / 1000 - 0.1); // about 30 s

    const [v, audio] = await Promise.all([decodeVideo(file, 1280, 720), decodeAudio(file)]);
    const pausedS = (rec.pausedAt - rec.startMs) / 1000;
    const resumedS = (rec.resumedAt - rec.startMs) / 1000;
    const seen = v.frames.map((_, i) => shown(v, i));
    const during = seen.slice(Math.ceil(pausedS * FPS) + 1, Math.floor(resumedS * FPS));
    expect(during.length).toBeGreaterThan(25);
    expect(during).toEqual(during.map(() => 'name'));
    expect(seen).not.toContain('red');
    expect(rms(audio, pausedS + 0.1, resumedS - 0.1)).toBeLessThan(150);

    // The flash in the frame nearest its time, the tone within 40 ms of it.
    const flashS = (rec.flashMs - rec.startMs) / 1000;
    const m = flashAndOnset(v, audio, resumedS);
    const at = `flash at ${m.flashS.toFixed(3)} s, tone at ${m.onsetS.toFixed(4)} s, both published at ${flashS.toFixed(4)} s`;
    expect(m.flashS, at).toBeCloseTo(Math.round(flashS * FPS) / FPS, 3);
    expect(Math.abs(m.onsetS - flashS), at).toBeLessThan(0.04);
  });

  it('refuses a keep_gaps that is not a boolean, naming it, and tells apart requests that differ in it', async () => {
    const bad = await call(t, 'GET', `/v1/sessions/${sessionId}/export?keep_gaps=maybe`, { key: a.key });
    expect(expectError(bad, 400, 'BAD_REQUEST')).toMatch(/^query\.keep_gaps /);
    const url = `/v1/sessions/${sessionId}/export`;
    const headers = { 'idempotency-key': 'cuts-1' };
    const first = await call(t, 'GET', `${url}?keep_gaps=false`, { key: a.key, headers });
    expect(first.status).toBe(202);
    // Left out, it is false: the same request.
    const same = await call(t, 'GET', url, { key: a.key, headers });
    expect(same.body.data.job_id).toBe(first.body.data.job_id);
    expectError(await call(t, 'GET', `${url}?keep_gaps=true`, { key: a.key, headers }), 409, 'CONFLICT');
    expect((await waitForJob(t, a.key, first.body.data.job_id)).keep_gaps).toBe(false);
  });

  it('refuses a clip wholly inside the paused span, and makes one across it as long as what was recorded', async () => {
    const url = `/v1/sessions/${sessionId}/exports`;
    const inside = { from_ts: rec.pausedAt + 2000, to_ts: rec.resumedAt - 2000 };
    const refused = await call(t, 'POST', url, { key: a.key, body: inside });
    expect(expectError(refused, 400, 'BAD_REQUEST')).toMatch(/^body\.from_ts.*paused/);
    // Kept, the paused span is a gap like any other: a clip of it is allowed.
    const kept = await call(t, 'POST', url, {
      key: a.key,
      body: { ...inside, keep_gaps: true, format: 'm4a' },
    });
    expect(kept.status).toBe(202);
    // 2 s before the pause to 2 s after the resume: 4 s recorded.
    const across = { from_ts: rec.pausedAt - 2000, to_ts: rec.resumedAt + 2000, format: 'm4a' };
    const res = await call(t, 'POST', url, { key: a.key, body: across });
    expect(res.status).toBe(202);
    const job = await waitForJob(t, a.key, res.body.data.job_id);
    expect(job.status).toBe('completed');
    expect(Math.abs(job.duration_ms - 4000)).toBeLessThanOrEqual(150);
    expect((await waitForJob(t, a.key, kept.body.data.job_id)).status).toBe('completed');
  });

  it('gives no tile to a participant the recording rules left out, nor their voice', async () => {
    const s = await createSession(t, a.key, 'ben not recorded');
    const rules = [{ type: 'exclude', user_id: 'ben' }];
    expect(
      (await call(t, 'PUT', `/v1/sessions/${s.id}/recording-rules`, { key: a.key, body: { rules } })).status,
    ).toBe(200);
    await recordSession(t, a.key, s.id, [
      ...(await h264Camera('ann', 'green', 1)),
      ...(await h264Camera('ben', 'blue', 1)),
      ...pcmVoice('ben', 440, 1),
    ]);
    const file = join(t.dataDir, 'without-ben.mp4');
    await exportTo(t, a.key, s.id, file);
    // Ann alone fills the canvas (two tiles would sit side by side, the middle between them).
    const v = await decodeVideo(file, 1280, 720);
    const green: Record<string, [number, number, number]> = { green: [0, 128, 0], blue: [0, 0, 255] };
    for (const i of [0, Math.floor(v.frames.length / 2)]) {
      expect(nearest(v.at(i, 640, 300), green)).toBe('green');
      expect(nearest(v.at(i, 200, 300), green)).toBe('green');
      expect(nearest(v.at(i, 1080, 300), green)).toBe('green');
    }
    expect(rms(await decodeAudio(file), 0.1, 0.9)).toBeLessThan(50);
    const focus = await call(t, 'GET', `/v1/sessions/${s.id}/export?layout=presenter&focus=ben`, {
      key: a.key,
    });
    expect(expectError(focus, 400, 'BAD_REQUEST')).toMatch(/^query\.focus must be a participant with video/);
  });
});
