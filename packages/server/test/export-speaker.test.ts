import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutsOf, readPausedSpans } from '../src/modules/exports/cuts.js';
import { RenderError } from '../src/modules/exports/render.js';
import { scanRecording } from '../src/modules/exports/scan.js';
import {
  LEVEL_WINDOW_US,
  micLevels,
  SILENCE_DB,
  speakerChanges,
  type MicLevels,
} from '../src/modules/exports/speaker.js';
import { createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { FFMPEG, pcmVoice, recordSession } from './support/media.js';

/**
 * The speaker layout's focus: microphones measured window by window with ffmpeg, and who holds
 * the large tile decided from those levels with hysteresis.
 */

const LOUD = -20;
const W = LEVEL_WINDOW_US;

/** Levels of `seconds` in 100 ms windows: `loud` over the given spans (s), silence elsewhere. */
function levels(userId: string, seconds: number, spans: Array<[number, number, number?]>): MicLevels {
  const db = new Float32Array(Math.round((seconds * 1e6) / W)).fill(SILENCE_DB);
  for (const [from, to, level = LOUD] of spans)
    for (let i = Math.round((from * 1e6) / W); i < Math.round((to * 1e6) / W); i++) db[i] = level;
  return { userId, windowUs: W, db };
}

/** The changes with their times in seconds, for readable expectations. */
const inSeconds = (l: MicLevels[]) => speakerChanges(l).map((c) => [c.userId, c.atUs / 1e6]);

describe('who holds the large tile (speakerChanges)', () => {
  it('gives it to a lone speaker when they start, and to nobody before', () => {
    expect(inSeconds([levels('ann', 10, [[1, 9]])])).toEqual([['ann', 1]]);
  });

  it('follows turns of 3 s, moving when each speaker began', () => {
    const ann = levels('ann', 12, [
      [0, 3],
      [6, 9],
    ]);
    const ben = levels('ben', 12, [
      [3, 6],
      [9, 12],
    ]);
    expect(inSeconds([ann, ben])).toEqual([
      ['ann', 0],
      ['ben', 3],
      ['ann', 6],
      ['ben', 9],
    ]);
  });

  it('stays with the speaker through a 300 ms cough, or a louder 0.6 s word, of someone else', () => {
    const ann = levels('ann', 10, [[0, 10]]);
    const cough = levels('ben', 10, [[4, 4.3, -10]]);
    expect(inSeconds([ann, cough])).toEqual([['ann', 0]]);
    const word = levels('ben', 10, [[6, 6.6, -10]]);
    expect(inSeconds([ann, word])).toEqual([['ann', 0]]);
  });

  it('keeps the last speaker through silence until someone else speaks', () => {
    const ann = levels('ann', 12, [[0, 3]]);
    const ben = levels('ben', 12, [[7, 10]]);
    expect(inSeconds([ann, ben])).toEqual([
      ['ann', 0],
      ['ben', 7],
    ]);
  });

  it('counts only the loudest of a window, and nothing below -45 dBFS', () => {
    // Both talking at once, 1 dB apart: the louder holds it throughout.
    const ann = levels('ann', 10, [[0, 10, -21]]);
    const ben = levels('ben', 10, [[0, 10, -20]]);
    expect(inSeconds([ann, ben])).toEqual([['ben', 0]]);
    // Taking turns at being louder, window by window: neither is loudest for 0.7 s of a second.
    const alternating = levels('ann', 10, []);
    for (let i = 0; i < alternating.db.length; i++) alternating.db[i] = i % 2 ? -19.5 : -20.5;
    expect(inSeconds([levels('ben', 10, [[0, 10, -20]]), alternating])).toEqual([['ben', 0]]);
    // A room's murmur is nobody speaking.
    expect(inSeconds([levels('ann', 10, [[0, 10, -50]])])).toEqual([]);
  });

  it('on a tie keeps whoever holds the tile', () => {
    const ann = levels('ann', 10, [[0, 10]]);
    const ben = levels('ben', 10, [[2, 10]]);
    expect(inSeconds([ben, ann])).toEqual([['ann', 0]]);
  });

  it('keeps the tile with each speaker at least 1.5 s', () => {
    const ann = levels('ann', 10, [[0, 0.6]]);
    const ben = levels('ben', 10, [[0.6, 10]]);
    expect(inSeconds([ann, ben])).toEqual([
      ['ann', 0],
      ['ben', 1.5],
    ]);
  });

  it('needs 0.3 s of speech before giving the tile to the first speaker', () => {
    const click = levels('ann', 10, [[1, 1.2]]);
    expect(inSeconds([click])).toEqual([]);
    expect(inSeconds([click, levels('ben', 10, [[2, 2.3]])])).toEqual([['ben', 2]]);
  });

  it('merges two microphones of one participant, and gives nothing for no microphone', () => {
    const a1 = levels('ann', 10, [[0, 2]]);
    const a2 = levels('ann', 10, [[5, 8]]);
    const ben = levels('ben', 10, [[2.5, 4.5]]);
    expect(inSeconds([a1, ben, a2])).toEqual([
      ['ann', 0],
      ['ben', 2.5],
      ['ann', 5],
    ]);
    expect(speakerChanges([])).toEqual([]);
  });
});

describe('the microphones’ levels of a recording (micLevels)', () => {
  let t: TestApp;
  let a: Tenant;
  let sessionId: string;

  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    // alice speaks from 0 to 3 s and bob, joining then, from 3 to 6 s.
    const s = await createSession(t, a.key, 'taking turns');
    await recordSession(t, a.key, s.id, [
      ...pcmVoice('alice', 440, 3),
      ...pcmVoice('bob', 660, 3).map((m) => ({ ...m, atMs: m.atMs + 3000 })),
    ]);
    sessionId = s.id;
  }, 60_000);
  afterAll(async () => t?.close());

  /** The scan and cuts of the recording, as the render makes them. */
  async function scanned() {
    const store = t.runtime.streams;
    const cuts = cutsOf(await readPausedSpans(store, sessionId), false);
    return { cuts, scan: await scanRecording(store, sessionId, await store.stats(sessionId), cuts) };
  }

  async function measure(ffmpeg = FFMPEG) {
    const { scan, cuts } = await scanned();
    const signal = new AbortController().signal;
    return { scan, levels: await micLevels(t.runtime.streams, { sessionId, scan, cuts, ffmpeg, signal }) };
  }

  it('measures each microphone on the export’s clock, and the speaker follows', async () => {
    const { scan, levels: measured } = await measure();
    const windows = Math.ceil(scan.spanUs / LEVEL_WINDOW_US);
    expect(measured.map((l) => [l.userId, l.windowUs, l.db.length])).toEqual([
      ['alice', LEVEL_WINDOW_US, windows],
      ['bob', LEVEL_WINDOW_US, windows],
    ]);
    const [alice, bob] = measured.map((l) => Array.from(l.db)) as [number[], number[]];
    const during = (db: number[], fromS: number, toS: number) => db.slice(fromS * 10, toS * 10);
    // A 16-bit tone of amplitude 12000: -11.7 dBFS.
    for (const level of during(alice, 0.5, 2.5)) expect(level).toBeGreaterThan(-30);
    for (const level of during(alice, 3.5, 6)) expect(level).toBeLessThan(-60);
    for (const level of during(bob, 0.5, 2.5)) expect(level).toBeLessThan(-60);
    for (const level of during(bob, 3.5, 5.5)) expect(level).toBeGreaterThan(-30);

    const changes = speakerChanges(measured);
    expect(changes.map((c) => c.userId)).toEqual(['alice', 'bob']);
    expect(changes[0]!.atUs).toBeLessThanOrEqual(300_000);
    expect(Math.abs(changes[1]!.atUs - 3_000_000)).toBeLessThanOrEqual(300_000);
  });

  it('fails with the end of ffmpeg’s log when ffmpeg fails, and stops when aborted', async () => {
    const failed = await measure('/bin/false').catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(RenderError);
    expect((failed as RenderError).message).toMatch(/exit code 1/);
    // Aborted once both ffmpegs are running (they start before micLevels first waits).
    const { scan, cuts } = await scanned();
    const stop = new AbortController();
    const reason = new Error('stopped');
    const measuring = micLevels(t.runtime.streams, {
      sessionId,
      scan,
      cuts,
      ffmpeg: FFMPEG,
      signal: stop.signal,
    });
    stop.abort(reason);
    await expect(measuring).rejects.toBe(reason);
  });
});
