/**
 * Firefox and its speakers, for the browser tests (support/engines.ts) and the benchmarks alike:
 * nothing here needs vitest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** The Firefox the tests drive: FIREFOX_PATH, else Debian's ESR. */
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** A sound server with one output (a null sink), as a person's machine has speakers. */
export interface Sound {
  /** PULSE_SERVER for a browser that should use it */
  server: string;
  stop(): void;
}

/** Starts PulseAudio with a null sink on a socket of its own; resolves once the socket is there. */
export async function startSound(): Promise<Sound> {
  const dir = mkdtempSync(join(tmpdir(), 'vss-pulse-'));
  const socket = join(dir, 'native');
  const child: ChildProcess = spawn(
    'pulseaudio',
    [
      '--daemonize=no',
      '--exit-idle-time=-1',
      '-n',
      '--load=module-null-sink sink_name=speakers',
      `--load=module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    ],
    { env: { ...process.env, HOME: dir, XDG_RUNTIME_DIR: dir }, stdio: 'ignore' },
  );
  // Ready once its socket exists (or failed once it exited).
  const deadline = Date.now() + 15_000;
  while (!existsSync(socket)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`pulseaudio did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    server: `unix:${socket}`,
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Launches headless Firefox with a fake camera (a moving picture) and microphone (a tone of
 * `toneHz`), no permission prompts, sound allowed to play, and `sound` as its only way to output
 * sound (null: none, as on a machine without speakers).
 */
export function launchFirefox(
  sound: Sound | null,
  toneHz = 440,
  prefs: Record<string, boolean | number | string> = {},
): Promise<Browser> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'PULSE_SERVER') env[k] = v;
  // Without a server to reach, Firefox has no sound output: the default socket is in a fresh dir.
  env.PULSE_SERVER = sound?.server ?? 'unix:/nonexistent/pulse';
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    env,
    extraPrefsFirefox: {
      'media.navigator.streams.fake': true,
      'media.navigator.permission.disabled': true,
      'media.navigator.audio.fake_frequency': toneHz,
      'media.autoplay.default': 0,
      ...prefs,
    },
  });
}
