import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { locateFfmpeg } from '../src/modules/exports/ffmpeg.js';
import { startApp } from './support/app.js';

/** A folder holding an executable `ffmpeg` that only answers `-version` with this line. */
function fakeFfmpeg(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vss-ffmpeg-'));
  const file = join(dir, 'ffmpeg');
  writeFileSync(file, `#!/bin/sh\necho "${version}"\n`);
  chmodSync(file, 0o755);
  return dir;
}

describe('the ffmpeg exports run', () => {
  const onPath = fakeFfmpeg('ffmpeg version 9.9-on-path');
  const configured = fakeFfmpeg('ffmpeg version 9.9-configured');
  const empty = mkdtempSync(join(tmpdir(), 'vss-no-ffmpeg-'));
  afterAll(() => {
    for (const dir of [onPath, configured, empty]) rmSync(dir, { recursive: true, force: true });
  });

  it('is FFMPEG_PATH when set, else the first ffmpeg on PATH, else the bundled build (flagged outdated)', () => {
    const chosen = locateFfmpeg(join(configured, 'ffmpeg'), `${empty}:${onPath}`);
    expect(chosen).toMatchObject({
      source: 'FFMPEG_PATH',
      version: 'ffmpeg version 9.9-configured',
      outdated: false,
    });

    const found = locateFfmpeg(null, `${empty}:${onPath}`);
    expect(found).toEqual({
      path: join(onPath, 'ffmpeg'),
      source: 'PATH',
      version: 'ffmpeg version 9.9-on-path',
      outdated: false,
    });

    const bundled = locateFfmpeg(null, empty);
    expect(bundled.source).toBe('bundled');
    expect(bundled.outdated).toBe(true);
    expect(bundled.version).toMatch(/^ffmpeg version/);
  });

  it('refuses to start with an FFMPEG_PATH that is not an executable file, naming the variable', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vss-cfg-'));
    try {
      for (const bad of [join(empty, 'nothing-here'), empty, __filename]) {
        expect(() => loadConfig({ DATA_DIR: dataDir, FFMPEG_PATH: bad })).toThrow(ConfigError);
        expect(() => loadConfig({ DATA_DIR: dataDir, FFMPEG_PATH: bad })).toThrow(/FFMPEG_PATH/);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is named in the log at start, with its version, and a warning when it is the bundled 2018 build', async () => {
    for (const [path, level, expected] of [
      [onPath, 30, /ffmpeg version 9\.9-on-path/],
      [empty, 40, /^ffmpeg version .*2018|^ffmpeg version N-/],
    ] as const) {
      const lines: Array<{ level: number; msg: string; source?: string; version?: string }> = [];
      const t = await startApp({
        env: { LOG_LEVEL: 'info', PATH: path },
        logDestination: { write: (l: string) => void lines.push(JSON.parse(l)) },
      });
      await t.close();
      const line = lines.find((l) => l.source !== undefined && 'ffmpeg' in l);
      expect(line, JSON.stringify(lines)).toBeDefined();
      expect(line!.level).toBe(level);
      expect(line!.version).toMatch(expected);
      if (level === 40) expect(line!.msg).toMatch(/bundled ffmpeg.*2018.*FFMPEG_PATH/);
    }
  });
});
