import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/app.js';
import { jpeg } from '../../server/test/support/live.js';
import { recordSession, type Planned } from '../../server/test/support/media.js';
import { eventually } from '../../server/test/support/wait.js';
import { useCliServer, vss, VSS_BIN, vssJson } from './support.js';

// Sessions end as soon as their last participant leaves: an export can follow at once.
const server = useCliServer({ SESSION_DEPARTURE_TIMEOUT_S: '0' });

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const NOT_FOUND = /^vss: NOT_FOUND \(HTTP 404\): .+\n$/;

/** The bots publish through ffmpeg, the server renders with it, and the test reads the MP4 with ffprobe. */
const missing = ['ffmpeg', 'ffprobe'].filter((tool) => spawnSync(tool, ['-version']).status !== 0);
if (missing.length)
  console.error(`[vss] vss bot and export tests skipped: ${missing.join(' and ')} not found on PATH`);

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vss-cli-export-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], timeoutMs?: number) =>
  vss(args, { env: server.env, cwd: dir, ...(timeoutMs ? { timeoutMs } : {}) });

async function ended(sessionId: string): Promise<void> {
  await eventually(
    async () =>
      (await call(server.app, 'GET', `/v1/sessions/${sessionId}`, { key: server.key })).body.data.ended_at,
    20_000,
    'the session to end',
  );
}

describe.skipIf(missing.length > 0)('vss bot, then vss export', () => {
  let sessionId = '';
  let jobId = '';
  /** Where `--output <a directory>/` saves the export: the session's id as its name. */
  const mp4 = () => join(dir, 'renders', `${sessionId}.mp4`);

  it('three bots record a session, and the export downloads an MP4 with H.264 video and AAC audio', async () => {
    sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'bots'])).id;
    const bots = await run(['bot', sessionId, '--count', '3', '--duration', '4'], 90_000);
    expect(bots.code, bots.stderr).toBe(0);
    for (const user of ['bot-1', 'bot-2', 'bot-3']) {
      expect(bots.stderr).toMatch(new RegExp(`^${user} joined \\(\\d present\\)$`, 'm'));
      expect(bots.stderr).toMatch(new RegExp(`^${user} left: done \\(\\d+ of \\d+ frames recorded\\)$`, 'm'));
      const row = bots.stdout.split('\n').find((l) => l.startsWith(`${user} `))!;
      const [, joined, sent, recorded] = row.split(/\s+/);
      expect(joined).toBe('yes');
      expect(Number(recorded)).toBeGreaterThan(0);
      expect(Number(recorded)).toBe(Number(sent));
    }
    expect(bots.stdout.split('\n')[0]!.split(/\s+/)).toEqual([
      'USER',
      'JOINED',
      'SENT',
      'RECORDED',
      'DROPPED',
      'CHATS',
      'RECONNECTS',
      'ERRORS',
    ]);
    await ended(sessionId);

    mkdirSync(join(dir, 'renders'));
    const r = await run(['export', sessionId, '--wait', '--output', join(dir, 'renders') + '/'], 180_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^wrote ${mp4()} \\(\\d+\\.\\d (KiB|MiB), \\d+\\.\\d s\\)\\n$`));
    // Not a terminal: plain lines on stderr instead of a bar, the last one the outcome.
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^export [0-9a-f-]{36}: completed$/);
    jobId = /^export ([0-9a-f-]{36}):/.exec(r.stderr)![1]!;
    expect(readdirSync(join(dir, 'renders'))).toEqual([`${sessionId}.mp4`]);

    const probe = JSON.parse(
      execFileSync(
        'ffprobe',
        ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'json', mp4()],
        {
          encoding: 'utf8',
        },
      ),
    ) as { streams: Array<{ codec_type: string; codec_name: string }> };
    expect(probe.streams).toContainEqual({ codec_type: 'video', codec_name: 'h264' });
    expect(probe.streams).toContainEqual({ codec_type: 'audio', codec_name: 'aac' });
  }, 300_000);

  it('exports list, get and download show and fetch that job', async () => {
    expect(jobId).not.toBe('');
    const list = await run(['exports', 'list', sessionId]);
    expect(list.code).toBe(0);
    const [head, row, ...rest] = list.stdout.trimEnd().split('\n');
    expect(head!.split(/\s+/)).toEqual([
      'JOB',
      'STATUS',
      'LAYOUT',
      'ORIENTATION',
      'PROGRESS',
      'SIZE',
      'CREATED',
    ]);
    expect(row).toMatch(
      new RegExp(`^${jobId}\\s+completed\\s+grid\\s+landscape\\s+-\\s+\\d+\\.\\d (KiB|MiB)\\s+`),
    );
    expect(rest).toEqual([]);
    const api = (await call(server.app, 'GET', `/v1/exports/${jobId}`, { key: server.key })).body.data;
    expect(await vssJson(server, ['exports', 'list', sessionId])).toEqual([api]);

    expect(await vssJson(server, ['exports', 'get', jobId])).toEqual(api);
    const get = await run(['exports', 'get', jobId]);
    expect(get.stdout).toMatch(/^status\s+completed$/m);
    expect(get.stdout).toMatch(new RegExp(`^room_id\\s+${sessionId}$`, 'm'));

    // Without --output: the name the server suggests, in the current directory.
    const dl = await run(['exports', 'download', jobId]);
    expect(dl.code).toBe(0);
    // The session's name and the day it was recorded.
    expect(dl.stdout).toMatch(/^wrote bots \d{4}-\d{2}-\d{2}\.mp4 \(\d+\.\d (KiB|MiB)\)\n$/);
    const named = dl.stdout.slice('wrote '.length, dl.stdout.indexOf('.mp4') + '.mp4'.length);
    expect(readFileSync(join(dir, named)).equals(readFileSync(mp4()))).toBe(true);
    const json = await vssJson(server, ['exports', 'download', jobId, '--output', join(dir, 'y.mp4')]);
    expect(json).toEqual({ job_id: jobId, file: join(dir, 'y.mp4'), bytes: api.size_bytes });
    // Into a directory: the name the server suggests, there.
    const into = await vssJson(server, ['exports', 'download', jobId, '--output', join(dir, 'renders')]);
    expect(into).toEqual({ job_id: jobId, file: join(dir, 'renders', named), bytes: api.size_bytes });
    expect(readFileSync(join(dir, 'renders', named)).equals(readFileSync(mp4()))).toBe(true);
  });

  /** The streams of a file as ffprobe reads them, and its duration in seconds. */
  const probe = (file: string) => {
    const r = JSON.parse(
      execFileSync(
        'ffprobe',
        ['-v', 'error', '-show_entries', 'stream=codec_type:format=duration', '-of', 'json', file],
        { encoding: 'utf8' },
      ),
    ) as { streams: Array<{ codec_type: string }>; format: { duration: string } };
    return { types: r.streams.map((x) => x.codec_type).sort(), seconds: Number(r.format.duration) };
  };

  it('a clip of the recording (offsets from its start) renders just that span; --format m4a the sound alone', async () => {
    expect(sessionId).not.toBe('');
    const file = join(dir, 'clip.mp4');
    const r = await run(
      ['export', sessionId, '--from', '0:01', '--to', '3s', '--no-names', '--output', file],
      180_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const clip = probe(file);
    expect(clip.types).toEqual(['audio', 'video']);
    expect(clip.seconds).toBeGreaterThan(1.8);
    expect(clip.seconds).toBeLessThan(2.2);
    const manifest = (
      await call(server.app, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: server.key })
    ).body.data;
    const jobs = await vssJson(server, ['exports', 'list', sessionId]);
    expect(jobs[0]).toMatchObject({
      status: 'completed',
      format: 'mp4',
      names: false,
      from_ts: manifest.start_ts + 1000,
      to_ts: manifest.start_ts + 3000,
    });

    // ms since 1970 too; into a directory, under <sessionId>.m4a.
    mkdirSync(join(dir, 'audio'));
    const from = manifest.start_ts + 500;
    const audio = await run(
      [
        ...['export', sessionId, '--format', 'm4a', '--from', String(from), '--to', String(from + 1500)],
        ...['--output', join(dir, 'audio') + '/'],
      ],
      180_000,
    );
    expect(audio.code, audio.stderr).toBe(0);
    const m4a = join(dir, 'audio', `${sessionId}.m4a`);
    expect(audio.stdout).toMatch(new RegExp(`^wrote ${m4a} \\(\\d+\\.\\d KiB, 1\\.\\d s\\)\\n$`));
    expect(readdirSync(join(dir, 'audio'))).toEqual([`${sessionId}.m4a`]);
    const sound = probe(m4a);
    expect(sound.types).toEqual(['audio']);
    expect(sound.seconds).toBeGreaterThan(1.3);
    expect(sound.seconds).toBeLessThan(1.7);
    // The job says what it is; `exports download` names it by the server's suggestion.
    const [job] = await vssJson(server, ['exports', 'list', sessionId]);
    expect(job).toMatchObject({ format: 'm4a', from_ts: from, to_ts: from + 1500 });
    const dl = await run(['exports', 'download', job.job_id]);
    // The session's name and the clip's span, as the server names it in UTF-8.
    expect(dl.stdout).toMatch(/^wrote bots 00-00-00–00-00-02\.m4a /);
  }, 300_000);

  it('without --wait prints the job id at once; --focus chooses the presenter layout', async () => {
    const queued = await vssJson(server, [
      'export',
      sessionId,
      '--focus',
      'bot-2',
      '--orientation',
      'vertical',
    ]);
    expect(Object.keys(queued)).toEqual(['job_id']);
    const job = (await call(server.app, 'GET', `/v1/exports/${queued.job_id}`, { key: server.key })).body
      .data;
    expect(job).toMatchObject({
      layout: 'presenter',
      focus: 'bot-2',
      orientation: 'vertical',
      keep_gaps: false,
    });
    const kept = await vssJson(server, ['export', sessionId, '--keep-gaps']);
    const keptJob = (await call(server.app, 'GET', `/v1/exports/${kept.job_id}`, { key: server.key })).body
      .data;
    expect(keptJob).toMatchObject({ layout: 'grid', keep_gaps: true });
    const r = await run(['export', sessionId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(r.stderr).toBe(`follow it with \`vss exports get ${r.stdout.trim()}\`\n`);
  });

  it('a render that fails exits 1 with its reason and leaves no file behind', async () => {
    const broken = (await vssJson(server, ['sessions', 'create', '--name', 'undecodable'])).id;
    const frames: Planned[] = Array.from({ length: 20 }, (_, k) => ({
      user: 'dave',
      atMs: k * 66,
      stream: 'media/dave/cam',
      payload: jpeg(k, 2000), // JPEG markers around bytes that are not a picture
    }));
    await recordSession(server.app, server.key, broken, frames);
    const r = await run(['export', broken, '--wait'], 120_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/\nvss: export [0-9a-f-]{36} failed: ffmpeg failed \(exit code \d+\).*\n$/);
    expect(existsSync(join(dir, `${broken}.mp4`))).toBe(false);
  }, 180_000);

  it('vss bot refuses a session that has ended with the API error', async () => {
    const r = await run(['bot', sessionId, '--duration', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^vss: CONFLICT \(HTTP 409\): .+\n$/);
  });
});

describe('vss export, exports and bot: bad input', () => {
  it('refuses a layout, a focus without the presenter layout, or a missing session id, with usage', async () => {
    const layout = await run(['export', UNKNOWN, '--layout', 'diagonal']);
    expect(layout.code).toBe(2);
    expect(layout.stderr).toBe(
      "vss: option '--layout <layout>' argument 'diagonal' is invalid. Allowed choices are grid, presenter, speaker.\n",
    );
    const focus = await run(['export', UNKNOWN, '--layout', 'grid', '--focus', 'bot-1']);
    expect(focus.code).toBe(2);
    expect(focus.stderr).toBe(
      'vss: --focus is for the presenter layout: drop it, or use --layout presenter\n',
    );
    const output = await run(['export', UNKNOWN, '--output', join(dir, 'none', 'x.mp4')]);
    expect(output.code).toBe(2);
    expect(output.stderr).toBe(`vss: --output: no directory ${join(dir, 'none')}\n`);
    const noDir = await run(['export', UNKNOWN, '--output', join(dir, 'none') + '/']);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toBe(`vss: --output: no directory ${join(dir, 'none')}/\n`);
    for (const args of [
      ['export', UNKNOWN, '--output', ''],
      ['exports', 'download', UNKNOWN, '--output', ''],
    ]) {
      const empty = await run(args);
      expect(empty.code, args.join(' ')).toBe(2);
      expect(empty.stderr).toBe(
        'vss: --output: empty: give a file, a directory, or "-" for standard output\n',
      );
    }
    const orientation = await run(['export', UNKNOWN, '--orientation', 'square']);
    expect(orientation.code).toBe(2);
    // The export options: each refused naming its flag, before anything is asked of the server
    // (the session is unknown: a request would have answered NOT_FOUND).
    for (const [args, message] of [
      [
        ['--format', 'wav'],
        "option '--format <format>' argument 'wav' is invalid. Allowed choices are mp4, m4a.",
      ],
      [
        ['--resolution', '4k'],
        "option '--resolution <resolution>' argument '4k' is invalid. Allowed choices are 720p, 1080p.",
      ],
      [
        ['--from', '1:75'],
        `option '--from <time>' argument '1:75' is invalid. expected a time from the recording's start (1:30, 1:02:03, 90s, 90) or ms since 1970 (12 digits or more), got "1:75"`,
      ],
      [
        ['--to', 'soon'],
        `option '--to <time>' argument 'soon' is invalid. expected a time from the recording's start (1:30, 1:02:03, 90s, 90) or ms since 1970 (12 digits or more), got "soon"`,
      ],
      [['--from', '0:20', '--to', '10'], '--to (0:10) must be after --from (0:20)'],
      [
        ['--from', '1700000001000', '--to', '1700000001000'],
        '--to (1700000001000) must be after --from (1700000001000)',
      ],
      [
        ['--format', 'm4a', '--resolution', '1080p'],
        '--resolution does not apply to --format m4a, the sound alone: drop it',
      ],
      [
        ['--format', 'm4a', '--no-names'],
        '--no-names does not apply to --format m4a, the sound alone: drop it',
      ],
      [
        ['--layout', 'speaker', '--focus', 'bot-1'],
        '--focus is for the presenter layout: drop it, or use --layout presenter',
      ],
    ] as const) {
      const r = await run(['export', UNKNOWN, ...args]);
      expect({ code: r.code, stderr: r.stderr }, args.join(' ')).toEqual({
        code: 2,
        stderr: `vss: ${message}\n`,
      });
    }
    for (const args of [
      ['export'],
      ['exports', 'list'],
      ['exports', 'get'],
      ['exports', 'download'],
      ['bot'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^vss: missing required argument '(sessionId|jobId)'\n$/);
    }
  });

  it('answers unknown sessions and jobs with NOT_FOUND, and a session with nothing recorded with CONFLICT', async () => {
    for (const args of [
      ['export', UNKNOWN],
      ['exports', 'list', UNKNOWN],
      ['exports', 'get', UNKNOWN],
      ['exports', 'download', UNKNOWN],
      // ffmpeg is looked for first: without it, that is the answer.
      ...(missing.includes('ffmpeg') ? [] : [['bot', UNKNOWN]]),
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(NOT_FOUND);
    }
    const empty = (await vssJson(server, ['sessions', 'create'])).id;
    const r = await run(['export', empty, '--wait']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^vss: CONFLICT \(HTTP 409\): .+\n$/);
    expect(existsSync(join(dir, `${empty}.mp4`))).toBe(false);
    expect(await vssJson(server, ['exports', 'list', empty])).toEqual([]);
    expect((await run(['exports', 'list', empty])).stdout).toBe('(no exports)\n');
  });

  it('vss bot checks its options before anyone joins', async () => {
    const session = (await vssJson(server, ['sessions', 'create'])).id;
    const count = await run(['bot', session, '--count', '0']);
    expect(count.code).toBe(2);
    expect(count.stderr).toBe(
      "vss: option '--count <n>' argument '0' is invalid. expected a whole number from 1 to 1000, got \"0\"\n",
    );
    const video = await run(['bot', session, '--video', join(dir, 'none.webm')]);
    expect(video.code).toBe(2);
    expect(video.stderr).toBe(`vss: --video: no file ${join(dir, 'none.webm')}\n`);
    const prefix = await run(['bot', session, '--user-prefix', 'a/b']);
    expect(prefix.code).toBe(2);
    expect(prefix.stderr).toBe('vss: --user-prefix: "a/b" must not contain "/" or spaces\n');
    // User ids are <prefix>-<n>, at most 128 characters.
    for (const [length, count] of [
      [130, '1'],
      [126, '10'],
    ] as const) {
      const long = await run(['bot', session, '--user-prefix', 'a'.repeat(length), '--count', count]);
      expect(long.code, `${length} ${count}`).toBe(2);
      expect(long.stderr).toBe(
        `vss: --user-prefix: at most ${127 - count.length} characters with --count ${count} (user ids are <prefix>-<n>, at most 128), got ${length}\n`,
      );
    }
    const ffmpeg = await vss(['bot', session], { env: { ...server.env, FFMPEG_PATH: '/nope' }, cwd: dir });
    expect(ffmpeg.code).toBe(2);
    expect(ffmpeg.stderr).toBe('vss: FFMPEG_PATH is /nope, which is not an executable file\n');
    // Nobody joined: the session never started.
    expect(
      (await call(server.app, 'GET', `/v1/sessions/${session}`, { key: server.key })).body.data.started_at,
    ).toBeNull();
  });

  it.skipIf(missing.includes('ffmpeg'))(
    'vss bot refuses a --video ffmpeg cannot decode with usage',
    async () => {
      const session = (await vssJson(server, ['sessions', 'create'])).id;
      const notVideo = join(dir, 'notvideo.txt');
      writeFileSync(notVideo, 'these are notes, not a video\n');
      const r = await run(['bot', session, '--video', notVideo]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^vss: --video: cannot use ${notVideo} as video: .*Invalid data found when processing input.*\n$`,
        ),
      );
      // Nobody joined: the session never started.
      expect(
        (await call(server.app, 'GET', `/v1/sessions/${session}`, { key: server.key })).body.data.started_at,
      ).toBeNull();
    },
  );
});

describe.skipIf(missing.includes('ffmpeg'))('vss bot stopped by a signal', () => {
  /** Runs two bots for a minute, signals them once both joined, and answers how vss ended. */
  async function stopped(signal: 'SIGINT' | 'SIGTERM') {
    const sessionId = (await vssJson(server, ['sessions', 'create', '--name', signal])).id;
    const child = spawn(process.execPath, [VSS_BIN, 'bot', sessionId, '--count', '2', '--duration', '60'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...server.env },
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      await eventually(
        () => /^bot-1 joined/m.test(stderr) && /^bot-2 joined/m.test(stderr),
        20_000,
        'both bots to join',
      );
      child.kill(signal);
      const [code, killedBy] = await exited;
      return { sessionId, code, killedBy, stdout, stderr };
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: the bots leave, the summary is printed, and vss exits %i',
    async (signal, exitCode) => {
      const r = await stopped(signal);
      expect({ code: r.code, killedBy: r.killedBy }, r.stderr).toEqual({ code: exitCode, killedBy: null });
      for (const user of ['bot-1', 'bot-2']) {
        expect(r.stderr).toMatch(
          new RegExp(`^${user} left: aborted \\(\\d+ of \\d+ frames recorded\\)$`, 'm'),
        );
        expect(r.stdout).toMatch(new RegExp(`^${user}\\s+yes\\s+\\d+`, 'm'));
      }
      expect(r.stderr).toMatch(/^stopped after [\d.]+ s$/m);
      // They left cleanly: the session saw both go, and ends.
      await ended(r.sessionId);
      const timeline = (
        await call(server.app, 'GET', `/v1/sessions/${r.sessionId}/timeline`, { key: server.key })
      ).body.data as Array<{ type: string; actor: string }>;
      expect(
        timeline
          .filter((e) => e.type === 'participant.left')
          .map((e) => e.actor)
          .sort(),
      ).toEqual(['bot-1', 'bot-2']);
    },
    60_000,
  );
});
