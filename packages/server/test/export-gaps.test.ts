import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { exportTo } from './support/exports.js';
import { ffmpeg, recordSession, solidJpeg, type Planned } from './support/media.js';

/** The colour at the middle of an MP4's frame at `seconds`, as [r, g, b]. */
async function middleAt(file: string, seconds: number): Promise<number[]> {
  const { stdout } = await ffmpeg([
    '-ss',
    String(seconds),
    '-i',
    file,
    '-frames:v',
    '1',
    '-vf',
    'crop=2:2:639:359',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-',
  ]);
  return [...stdout.subarray(0, 3)];
}

/**
 * A publisher on a slow uplink sends its camera at a floor of a picture or two a second, and a busy
 * machine stalls for a second or two: the recording has gaps of that length. The export used to
 * show the name card after 2 s without a frame, so it flickered to name cards; a gap under 10 s
 * now holds the last picture, and a camera that stops for longer still shows the name.
 */
describe('gaps in a recorded camera', () => {
  let t: TestApp;
  let a: Tenant;
  const dir = mkdtempSync(join(tmpdir(), 'vss-gaps-'));
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hold the last picture through 3 s without frames, and show the name after 12 s', async () => {
    const red = await solidJpeg('red');
    const plan: Planned[] = [];
    const camAt = (ms: number) =>
      plan.push({ user: 'alice', atMs: ms, stream: 'media/alice/cam', payload: red });
    // 0–1 s at 15 fps, nothing until 4 s, 4–5 s, nothing until 17 s, 17–18 s.
    for (const from of [0, 4000, 17_000])
      for (let k = 0; k < 15; k++) camAt(from + Math.round((k * 1000) / 15));
    const s = await createSession(t, a.key, 'gaps');
    await recordSession(t, a.key, s.id, plan);
    const file = join(dir, 'gaps.mp4');
    await exportTo(t, a.key, s.id, file);
    const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60;
    expect(isRed(await middleAt(file, 0.5)), 'red at 0.5 s').toBe(true);
    // In the 3 s gap: the last picture, held.
    for (const at of [1.5, 2.5, 3.5]) expect(isRed(await middleAt(file, at)), `held at ${at} s`).toBe(true);
    expect(isRed(await middleAt(file, 4.5)), 'red at 4.5 s').toBe(true);
    // 12 s without frames: the camera is off, and its tile shows the name on its colour instead.
    expect(isRed(await middleAt(file, 16)), 'off at 16 s').toBe(false);
    expect(isRed(await middleAt(file, 17.5)), 'red again at 17.5 s').toBe(true);
  }, 90_000);
});
