import { createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { VssError, type DataOf, type VssClient } from '@vss/client';
import { Option, type Command } from 'commander';
import { clipTime, clock, type ClipTime } from '../clip.js';
import { client, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { fileSize, note, out, printDone, printJson, printList, printObject, type Column } from '../output.js';
import { FORMATS, LAYOUTS, ORIENTATIONS, RESOLUTIONS } from '../export-choices.js';

type ExportJob = DataOf<'/v1/exports/{jobId}', 'get'>;

/** How often a job is asked where it stands while waiting for it. */
const POLL_MS = 1000;

const COLUMNS: Column<ExportJob>[] = [
  { key: 'job_id', label: 'JOB' },
  { key: 'status' },
  { key: 'layout' },
  { key: 'orientation' },
  {
    key: 'progress',
    format: (v, job) => (job.status === 'processing' ? `${Math.round((v as number) * 100)}%` : '-'),
  },
  { key: 'size_bytes', label: 'SIZE', format: (v) => fileSize(v as number | null) },
  { key: 'created_at', label: 'CREATED' },
];

/**
 * Polls a job until it completed or failed. The bar is drawn only on a terminal; elsewhere (a
 * log, a CI job) each change of status is one line, and never on stdout, which scripts read.
 */
/**
 * Waits until a live session ends: it ends once its last participant has been gone for the
 * server's SESSION_DEPARTURE_TIMEOUT_S (20 s by default).
 */
async function untilEnded(vss: VssClient, sessionId: string): Promise<void> {
  note(
    `session ${sessionId} is live: waiting for it to end (20 s after its last participant leaves, by default)`,
  );
  for (;;) {
    const s = await vss.get('/v1/sessions/{sessionId}', { params: { path: { sessionId } } });
    if (s.ended_at !== null) return;
    await sleep(POLL_MS);
  }
}

async function waitFor(vss: VssClient, jobId: string): Promise<ExportJob> {
  // Loaded when a bar is drawn: every other command starts without it.
  const cliProgress = process.stderr.isTTY ? (await import('cli-progress')).default : null;
  const bar = cliProgress
    ? new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: `export {bar} {percentage}% | {status}`,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(100, 0, { status: 'queued' });
  // Without a terminal, one line per stage reached. A job goes queued → processing → completed
  // (or failed); a stage passed between two polls is still said, so the lines are always the same.
  const stages = ['queued', 'processing', 'completed'];
  let said = 0;
  const sayUpTo = (status: string) => {
    const upTo = status === 'failed' ? stages.indexOf('processing') : stages.indexOf(status);
    for (; said <= upTo; said += 1) note(`export ${jobId}: ${stages[said]}`);
    if (status === 'failed') note(`export ${jobId}: failed`);
  };
  try {
    for (;;) {
      const job = await vss.get('/v1/exports/{jobId}', { params: { path: { jobId } } });
      if (bar) bar.update(Math.round(job.progress * 100), { status: job.status });
      else sayUpTo(job.status);
      if (job.status === 'completed' || job.status === 'failed') return job;
      await sleep(POLL_MS);
    }
  } finally {
    bar?.stop();
  }
}

/** A failed job as the command's error (exit 1), with the end of ffmpeg's log when there is one. */
function failure(job: ExportJob): Error {
  if (job.error_log) note(job.error_log.trimEnd());
  return new Error(`export ${job.job_id} failed: ${job.error ?? 'no reason given'}`);
}

/**
 * The file name the server suggests (Content-Disposition), without any directory in it: the
 * UTF-8 `filename*` when given (the session's name as written), else the ASCII `filename`.
 */
function suggested(response: Response): string | null {
  const header = response.headers.get('content-disposition') ?? '';
  const utf8 = /filename\*=UTF-8''([^;\s]+)/i.exec(header)?.[1];
  let raw: string | undefined;
  try {
    raw = utf8 === undefined ? undefined : decodeURIComponent(utf8);
  } catch {
    raw = undefined;
  }
  raw ??= /filename="?([^";]+)"?/i.exec(header)?.[1];
  const name = raw ? basename(raw) : '';
  return name && name !== '.' && name !== '..' ? name : null;
}

/** Where a download goes: standard output, a file, or a directory (under the server's name). */
type Target = '-' | { file: string } | { dir: string };

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * --output checked before anything is asked of the server (for `export`, before the render is
 * queued rather than after it ran): an existing directory receives the file under its default
 * name; a file must be in a directory that exists.
 */
function target(output: string): Target {
  if (output === '-') return '-';
  if (output === '')
    throw new UsageError('--output: empty: give a file, a directory, or "-" for standard output');
  if (isDirectory(output)) return { dir: output };
  const dir = /[\\/]$/.test(output) ? output : dirname(output);
  if (!isDirectory(dir)) throw new UsageError(`--output: no directory ${dir}`);
  return { file: output };
}

/**
 * Streams a completed export to `to`. The bytes go to a `.part` file renamed into place at the
 * end, so that an interrupted download never leaves a file that looks complete. Answers the file
 * written and its size.
 */
async function download(vss: VssClient, jobId: string, to: Target): Promise<{ file: string; bytes: number }> {
  const res = await vss.stream('get', '/v1/exports/{jobId}/download', { params: { path: { jobId } } });
  if (!res.body) throw new Error(`the download of ${jobId} has no body`);
  let bytes = 0;
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => (bytes += chunk.length));
  if (to === '-') {
    await pipeline(body, process.stdout, { end: false });
    return { file: '-', bytes };
  }
  const file = 'file' in to ? to.file : join(to.dir, suggested(res) ?? `${jobId}.mp4`);
  const part = `${file}.part`;
  try {
    await pipeline(body, createWriteStream(part));
    await rename(part, file);
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
  return { file, bytes };
}

interface ExportOptions {
  layout?: (typeof LAYOUTS)[number];
  orientation: (typeof ORIENTATIONS)[number];
  resolution?: (typeof RESOLUTIONS)[number];
  format: (typeof FORMATS)[number];
  names: boolean;
  from?: ClipTime;
  to?: ClipTime;
  focus?: string;
  keepGaps?: boolean;
  wait?: boolean;
  output?: string;
}

/** The options that draw the pictures: none applies to the sound alone (`--format m4a`). */
const PICTURE_OPTIONS = [
  ['layout', '--layout'],
  ['orientation', '--orientation'],
  ['resolution', '--resolution'],
  ['focus', '--focus'],
  ['names', '--no-names'],
] as const;

/**
 * The command line's own checks, before anything is asked of the server: `--focus` only with the
 * presenter layout, no picture option with `--format m4a`, and a clip whose end is after its start
 * when both are given alike (both offsets, or both ms since 1970).
 */
function checkOptions(o: ExportOptions, cmd: Command): void {
  if (o.focus !== undefined && o.layout !== undefined && o.layout !== 'presenter')
    throw new UsageError('--focus is for the presenter layout: drop it, or use --layout presenter');
  if (o.format === 'm4a')
    for (const [key, flag] of PICTURE_OPTIONS)
      if (cmd.getOptionValueSource(key) === 'cli')
        throw new UsageError(`${flag} does not apply to --format m4a, the sound alone: drop it`);
  const [from, to] = [o.from, o.to];
  if (from && to && 'at' in from === 'at' in to) {
    const show = (t: ClipTime) => ('at' in t ? String(t.at) : clock(t.offset));
    const at = (t: ClipTime) => ('at' in t ? t.at : t.offset);
    if (at(to) <= at(from)) throw new UsageError(`--to (${show(to)}) must be after --from (${show(from)})`);
  }
}

/**
 * `--from` and `--to` as the API takes them, ms since 1970: an offset is added to the recording's
 * start (the manifest's `start_ts`, which replay shows as 0:00), read only when one is given.
 */
async function clipOf(vss: VssClient, sessionId: string, o: ExportOptions) {
  const { from, to } = o;
  if (!from && !to) return {};
  const offsets = (from && 'offset' in from) || (to && 'offset' in to);
  const start = offsets
    ? (await vss.get('/v1/sessions/{sessionId}/manifest', { params: { path: { sessionId } } })).start_ts
    : 0;
  const ts = (t: ClipTime) => ('at' in t ? t.at : start + t.offset);
  const clip = { ...(from ? { from_ts: ts(from) } : {}), ...(to ? { to_ts: ts(to) } : {}) };
  if (clip.from_ts !== undefined && clip.to_ts !== undefined && clip.to_ts <= clip.from_ts)
    throw new UsageError(
      `--to must be after --from: the recording starts at ${start} (ms since 1970), --from is ${clip.from_ts} (${clock(clip.from_ts - start)}), --to ${clip.to_ts}`,
    );
  return clip;
}

const CLIP_HELP = `
--from and --to take an offset from the recording's start, which replay and the manifest's start_ts
show as 0:00: 1:30, 1:02:03, 90s or 90 (seconds), 1500ms; or a moment on the session's clock, in ms
since 1970 (a whole number of 12 digits or more, as the manifest and the timeline give them). --to is
exclusive. A clip reaching past the recording is cut to it.`;

export function register(program: Command): void {
  program
    .command('export <sessionId>')
    .description(
      'render an ended session to an MP4 (H.264 + AAC), or its sound alone to an M4A; with --wait, download it when done',
    )
    .addOption(
      new Option(
        '--layout <layout>',
        'grid: everyone alike; presenter: one large, the others in a strip; speaker: the large tile follows whoever speaks (default grid, or presenter with --focus)',
      ).choices(LAYOUTS),
    )
    .addOption(
      new Option('--orientation <orientation>', 'landscape (1280x720) or vertical (720x1280)')
        .choices(ORIENTATIONS)
        .default('landscape'),
    )
    .addOption(
      new Option(
        '--resolution <resolution>',
        '720p, or 1080p (1920x1080, 1080x1920 vertical); default 720p',
      ).choices(RESOLUTIONS),
    )
    .addOption(
      new Option('--format <format>', 'mp4: pictures and sound; m4a: the sound alone, made much faster')
        .choices(FORMATS)
        .default('mp4'),
    )
    .option('--no-names', "leave out the name bars on the participants' pictures")
    .option('--from <time>', "a clip: where it starts (see below); default the recording's start", clipTime)
    .option('--to <time>', "a clip: where it ends (see below); default the recording's end", clipTime)
    .option(
      '--focus <userId>',
      "presenter layout: the participant shown large throughout (default: follow the recording's director)",
    )
    .option(
      '--keep-gaps',
      'keep the spans in which recording was paused, as silence and names (default: cut out, the export shorter)',
    )
    .option('--wait', 'wait for the render (progress on stderr), then download the file')
    .option(
      '--output <file>',
      'where --wait saves the file: a file, or a directory to save <sessionId>.mp4 (.m4a with --format m4a) in (default: that name, here; "-": stdout); implies --wait',
    )
    .addHelpText(
      'after',
      `${CLIP_HELP}\n\nThe session must have ended (everyone left); with --wait a live session is waited for. Without --wait it prints the job id: follow it with\n\`vss exports get <jobId>\`, fetch it with \`vss exports download <jobId>\`. A failed render exits 1 with its reason.`,
    )
    .action(async (sessionId: string, o: ExportOptions, cmd: Command) => {
      checkOptions(o, cmd);
      const layout = o.layout ?? (o.focus !== undefined ? 'presenter' : undefined);
      const named = `${sessionId}.${o.format}`;
      const to = target(o.output ?? named);
      const saved = typeof to === 'object' && 'dir' in to ? { file: join(to.dir, named) } : to;
      const vss = client(cmd);
      const waiting = o.wait === true || o.output !== undefined;
      const body = {
        ...(layout !== undefined ? { layout } : {}),
        ...(o.format === 'mp4' ? { orientation: o.orientation } : { format: o.format }),
        ...(o.resolution !== undefined ? { resolution: o.resolution } : {}),
        ...(o.names ? {} : { names: false }),
        ...(o.focus !== undefined ? { focus: o.focus } : {}),
        ...(o.keepGaps ? { keep_gaps: true } : {}),
        ...(await clipOf(vss, sessionId, o)),
      };
      const enqueue = () =>
        vss.post('/v1/sessions/{sessionId}/exports', { params: { path: { sessionId } }, body });
      let queued: Awaited<ReturnType<typeof enqueue>>;
      try {
        queued = await enqueue();
      } catch (err) {
        // A live session is exported once it ends; --wait waits for that too, as it waits for the render.
        if (!waiting || !(err instanceof VssError) || err.code !== 'CONFLICT') throw err;
        const s = await vss.get('/v1/sessions/{sessionId}', { params: { path: { sessionId } } });
        if (s.started_at === null || s.ended_at !== null) throw err; // not live: nothing to wait for
        await untilEnded(vss, sessionId);
        queued = await enqueue();
      }
      const { job_id } = queued;
      if (!o.wait && o.output === undefined) {
        printDone(cmd, job_id, { job_id });
        if (!globals(cmd).json) note(`follow it with \`vss exports get ${job_id}\``);
        return;
      }
      const job = await waitFor(vss, job_id);
      if (job.status === 'failed') throw failure(job);
      const { file, bytes } = await download(vss, job_id, saved);
      if (file === '-') return;
      const seconds = job.duration_ms !== null ? `, ${(job.duration_ms / 1000).toFixed(1)} s` : '';
      printDone(cmd, `wrote ${file} (${fileSize(bytes)}${seconds})`, job);
    });

  const exportsCmd = program.command('exports').description('MP4 exports of sessions');

  exportsCmd
    .command('list <sessionId>')
    .description("a session's exports, newest first")
    .action(async (sessionId: string, _o, cmd: Command) => {
      const jobs = await client(cmd).get('/v1/sessions/{sessionId}/exports', {
        params: { path: { sessionId } },
      });
      printList(cmd, jobs, COLUMNS, 'no exports');
    });

  exportsCmd
    .command('get <jobId>')
    .description('one export job: where it stands, and why it failed')
    .action(async (jobId: string, _o, cmd: Command) => {
      const job = await client(cmd).get('/v1/exports/{jobId}', { params: { path: { jobId } } });
      if (globals(cmd).json) return printJson(job);
      const { error_log, ...rest } = job;
      printObject(cmd, {
        ...rest,
        progress: `${Math.round(job.progress * 100)}%`,
        size_bytes: fileSize(job.size_bytes),
      });
      if (error_log) out(`\nffmpeg's log (its end):\n${error_log.trimEnd()}\n`);
    });

  exportsCmd
    .command('download <jobId>')
    .description('download a completed export')
    .option(
      '--output <file>',
      'where to save it: a file, or a directory to save it in under the name the server suggests (default: that name, here; "-": stdout)',
    )
    .action(async (jobId: string, o: { output?: string }, cmd: Command) => {
      const to = target(o.output ?? '.');
      const { file, bytes } = await download(client(cmd), jobId, to);
      if (file === '-') return;
      printDone(cmd, `wrote ${file} (${fileSize(bytes)})`, { job_id: jobId, file, bytes });
    });
}
