import { execFileSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';

/** Where the ffmpeg in use came from. */
export type FfmpegSource = 'FFMPEG_PATH' | 'PATH' | 'bundled';

/** The ffmpeg binary exports run, and what it says of its version. */
export interface Ffmpeg {
  path: string;
  source: FfmpegSource;
  /** the first line of `ffmpeg -version`, or null when it did not answer */
  version: string | null;
  /** the binary shipped in `@ffmpeg-installer/ffmpeg`: a static build from 2018 */
  outdated: boolean;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first `ffmpeg` executable along a PATH-style list of directories, if any. */
export function onPath(searchPath: string): string | null {
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg');
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/** The binary installed by `npm ci` (`@ffmpeg-installer/ffmpeg`), or null on a platform it lacks. */
function bundled(): string | null {
  try {
    return (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch {
    return null;
  }
}

/**
 * Chooses the ffmpeg that decodes participants' media: FFMPEG_PATH when set, else an `ffmpeg` on
 * PATH (one the machine's owner keeps patched), else the bundled static build, which is from
 * 2018 and only there so that `npm ci` alone is enough. Asks it for its version once. Throws
 * when there is none at all; exports then cannot run.
 */
export function locateFfmpeg(configured: string | null, searchPath: string): Ffmpeg {
  const found: { path: string; source: FfmpegSource } | null = configured
    ? { path: configured, source: 'FFMPEG_PATH' }
    : (((p) => (p ? { path: p, source: 'PATH' as const } : null))(onPath(searchPath)) ??
      ((p) => (p ? { path: p, source: 'bundled' as const } : null))(bundled()));
  if (!found) throw new Error('no ffmpeg: set FFMPEG_PATH, or install ffmpeg on PATH');
  return { ...found, version: versionOf(found.path), outdated: found.source === 'bundled' };
}

/** The first line of `ffmpeg -version`, or null when the binary does not answer it. */
export function versionOf(path: string): string | null {
  try {
    const out = execFileSync(path, ['-version'], { timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return out.toString('utf8').split('\n')[0]?.trim() || null;
  } catch {
    return null;
  }
}

/**
 * The ffmpeg exports will run, said in the log at start (a warning when it is the outdated
 * bundled build); null when there is none, which leaves every other feature working.
 */
export function findFfmpeg(
  config: Pick<Config, 'ffmpegPath' | 'searchPath'>,
  logger: FastifyBaseLogger,
): Ffmpeg | null {
  try {
    const ffmpeg = locateFfmpeg(config.ffmpegPath, config.searchPath);
    const fields = { ffmpeg: ffmpeg.path, source: ffmpeg.source, version: ffmpeg.version };
    if (ffmpeg.outdated)
      logger.warn(
        fields,
        'exports use the bundled ffmpeg, a static build from 2018 that decodes what participants upload: install ffmpeg on PATH or set FFMPEG_PATH',
      );
    else logger.info(fields, `exports use ${ffmpeg.path} (${ffmpeg.source})`);
    return ffmpeg;
  } catch (err) {
    logger.warn(
      { err },
      'no ffmpeg found: exports will fail until FFMPEG_PATH is set or ffmpeg is installed',
    );
    return null;
  }
}
