import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { decodeAudio, probe, rms } from './support/decode.js';
import { exportTo, waitForJob } from './support/exports.js';
import { evc1, ffmpeg, opusPackets, pcmVoice, recordSession, type Planned } from './support/media.js';

/** One channel of an MP4's audio (0: left, 1: right) as 16-bit samples at 8 kHz. */
async function channel(file: string, c: 0 | 1): Promise<Int16Array> {
  const { stdout } = await ffmpeg([
    '-i',
    file,
    '-vn',
    '-af',
    `pan=mono|c0=c${c}`,
    '-ar',
    '8000',
    '-f',
    's16le',
    '-',
  ]);
  return new Int16Array(stdout.buffer, stdout.byteOffset, Math.floor(stdout.length / 2));
}

/**
 * `seconds` of a 16 kHz pcm-s16 microphone declaring `channels` channels: a 440 Hz tone in the
 * first (left) channel, silence in the others.
 */
function leftTone(user: string, seconds: number, channels: number): Planned[] {
  const rate = 16_000;
  const per = rate / 50;
  const description = new TextEncoder().encode(
    JSON.stringify({ sampleRate: rate, numberOfChannels: channels }),
  );
  const out: Planned[] = [];
  for (let c = 0; c < Math.round(seconds * 50); c++) {
    const data = Buffer.alloc(per * 2 * channels);
    for (let i = 0; i < per; i++) {
      const n = c * per + i;
      data.writeInt16LE(Math.round(12_000 * Math.sin((2 * Math.PI * 440 * n) / rate)), i * 2 * channels);
    }
    out.push({
      user,
      atMs: c * 20,
      stream: `media/${user}/mic`,
      payload: evc1('pcm-s16', { offsetUs: c * 20_000, durationUs: 20_000, key: true, data }, 0, description),
    });
  }
  return out;
}

describe('the audio of an MP4 export', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('is mono when every microphone is mono, and every voice is heard', async () => {
    const session = await createSession(t, a.key, 'mono voices');
    const tone = await opusPackets(660, 1);
    await recordSession(t, a.key, session.id, [
      ...pcmVoice('ann', 440, 1),
      ...tone.map((c) => ({
        user: 'ben',
        atMs: 1500 + c.offsetUs / 1000,
        stream: 'media/ben/mic',
        payload: evc1('opus', c, 3_000_000),
      })),
    ]);
    const file = join(t.dataDir, 'mono.mp4');
    await exportTo(t, a.key, session.id, file);
    expect((await probe(file)).audio).toMatch(/^aac .*, mono,/);
    const audio = await decodeAudio(file);
    expect(rms(audio, 0.2, 0.8)).toBeGreaterThan(1500); // ann
    expect(rms(audio, 1.15, 1.35)).toBeLessThan(150); // nobody
    expect(rms(audio, 1.7, 2.3)).toBeGreaterThan(1000); // ben
  });

  it('keeps both channels of a stereo microphone, with a mono one heard in both', async () => {
    const session = await createSession(t, a.key, 'a stereo microphone');
    await recordSession(t, a.key, session.id, [
      ...leftTone('cleo', 1, 2),
      ...pcmVoice('dan', 660, 1).map((m) => ({ ...m, atMs: m.atMs + 1500 })),
    ]);
    const file = join(t.dataDir, 'stereo.mp4');
    await exportTo(t, a.key, session.id, file);
    expect((await probe(file)).audio).toMatch(/^aac .*, stereo,/);
    const [left, right] = await Promise.all([channel(file, 0), channel(file, 1)]);
    // cleo's tone stays on the left.
    expect(rms(left, 0.2, 0.8)).toBeGreaterThan(1500);
    expect(rms(right, 0.2, 0.8)).toBeLessThan(150);
    // dan, recorded in mono, is in both channels.
    expect(rms(left, 1.7, 2.3)).toBeGreaterThan(1000);
    expect(rms(right, 1.7, 2.3)).toBeGreaterThan(1000);
  });

  it('fails, naming the problem, for a microphone declaring more channels than pcm-s16 allows', async () => {
    const session = await createSession(t, a.key, 'nine channels');
    await recordSession(t, a.key, session.id, leftTone('eve', 0.4, 9));
    const res = await call(t, 'GET', `/v1/sessions/${session.id}/export`, { key: a.key });
    expect(res.status).toBe(202);
    const job = await waitForJob(t, a.key, res.body.data.job_id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, size_bytes: null });
    expect(job.error).toMatch(/numberOfChannels must be an integer from 1 to 8/);
  });
});
