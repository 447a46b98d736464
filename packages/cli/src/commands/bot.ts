import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { BotEvent, BotStats } from '../bot/index.js';
import { client, settings, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { DISPLAY_NAME_MAX, displayName, integer, nameLength, seconds } from '../options.js';
import { note, printJson, printList, type Column } from '../output.js';

/** The longest user id the API takes. */
const MAX_USER_ID = 128;

/** A run stopped by a signal exits as a shell reports one: 128 + the signal's number. */
const exitCodeOf = (signal: NodeJS.Signals): number => (signal === 'SIGTERM' ? 143 : 130);

interface BotCommandOptions {
  count: number;
  duration: number;
  video?: string;
  userPrefix: string;
  name?: string;
  chatEvery: number;
  layers: number;
}

/** One line on stderr per thing that happens to a bot; the encoder's processes are not news. */
export function describeEvent(e: BotEvent): string | null {
  switch (e.type) {
    case 'joined':
      // The name the server welcomed it by, when it is not just the user id.
      return e.displayName && e.displayName !== e.userId
        ? `${e.userId} joined as "${e.displayName}" (${e.participants} present)`
        : `${e.userId} joined (${e.participants} present)`;
    case 'reconnecting':
      return `${e.userId} lost its connection: reconnecting in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt})`;
    case 'reconnected':
      return `${e.userId} reconnected`;
    case 'left':
      return `${e.userId} left: ${e.reason} (${e.stats.framesAcked} of ${e.stats.framesSent} frames recorded)`;
    case 'error':
      return e.userId ? `${e.userId}: ${e.message}` : `error: ${e.message}`;
    case 'stats':
      // The reduced layers' frames are relayed, not recorded: told apart from the recorded ones,
      // with the bots' uplink steps (how many at 0, 1, 2) and the key frames receivers asked for.
      return (
        `${e.elapsedS}s: ${e.connected} connected, ${e.framesSent} frames sent, ${e.relayedFrames} relayed ` +
        `(uplink steps ${e.steps.join('/')}, ${e.keyframeRequests} key-frame requests), ${e.framesAcked} recorded, ` +
        `${e.framesDropped} dropped, ${e.chats} chats`
      );
    case 'ffmpeg':
      return null;
  }
}

const COLUMNS: Column<BotStats>[] = [
  { key: 'userId', label: 'USER' },
  { key: 'joined', format: (v) => (v ? 'yes' : 'no') },
  { key: 'framesSent', label: 'SENT' },
  { key: 'framesAcked', label: 'RECORDED' },
  { key: 'framesDropped', label: 'DROPPED' },
  { key: 'chats', label: 'CHATS' },
  { key: 'reconnects', label: 'RECONNECTS' },
  { key: 'errors', format: (v) => ((v as string[]).length ? (v as string[]).join('; ') : '-') },
];

export function register(program: Command): void {
  program
    .command('bot <sessionId>')
    .description(
      'test participants: each joins the session, publishes video, a tone and chat for a while, then leaves',
    )
    .option('--count <n>', 'how many bots, 1 to 1000', integer(1, 1000), 1)
    .option('--duration <s>', 'seconds each bot stays, up to one day', seconds(0.1, 86_400), 30)
    .option(
      '--video <file>',
      'a video file to publish, looped, instead of the test pattern (ffmpeg decodes it)',
    )
    .option(
      '--layers <n>',
      'video layers to send, 1 to 3: the full picture (recorded), then half and a quarter of its size (relayed only)',
      integer(1, 3),
      3,
    )
    .option('--user-prefix <prefix>', 'user ids are <prefix>-1, <prefix>-2, …', 'bot')
    .option(
      '--name <name>',
      'the name others see, 1 to 64 characters of any script; with --count 2 or more, "<name> 1", "<name> 2", … (default: the user ids)',
      displayName,
    )
    .option(
      '--chat-every <s>',
      'seconds between chat messages; 0: only a hello on joining',
      seconds(0, 86_400),
      5,
    )
    .addHelpText(
      'after',
      '\nNeeds ffmpeg (FFMPEG_PATH, or on PATH). The first bot to join starts the session; the session ends\nonce every participant has left. Progress goes to stderr; a summary of what each bot sent, and how much\nof it the server recorded, to stdout at the end. Ctrl-C (or SIGTERM) makes every bot leave cleanly\nfirst; the summary is printed, then vss exits 130 (143 for SIGTERM), not 0: the run did not complete.',
    )
    .action(async (sessionId: string, o: BotCommandOptions, cmd: Command) => {
      if (!/^[^/\s]+$/.test(o.userPrefix))
        throw new UsageError(`--user-prefix: "${o.userPrefix}" must not contain "/" or spaces`);
      // User ids are <prefix>-<n>, and the API takes at most 128 characters: refused here rather
      // than by the server once the bots start.
      const longest = 127 - String(o.count).length;
      if (o.userPrefix.length > longest)
        throw new UsageError(
          `--user-prefix: at most ${longest} characters with --count ${o.count} (user ids are <prefix>-<n>, at most ${MAX_USER_ID}), got ${o.userPrefix.length}`,
        );
      // With several bots each name ends in the bot's number, and a name is at most 64 characters.
      const longestName = DISPLAY_NAME_MAX - (o.count > 1 ? String(o.count).length + 1 : 0);
      if (o.name !== undefined && nameLength(o.name) > longestName)
        throw new UsageError(
          `--name: at most ${longestName} characters with --count ${o.count} (names are "<name> <n>", at most ${DISPLAY_NAME_MAX}), got ${nameLength(o.name)}`,
        );
      if (o.video !== undefined) {
        let isFile = false;
        try {
          isFile = statSync(o.video).isFile();
        } catch {
          throw new UsageError(`--video: no file ${o.video}`);
        }
        if (!isFile) throw new UsageError(`--video: ${o.video} is not a file`);
      }
      // Loaded here: the engine (ws, ffmpeg handling) is not needed to start any other command.
      const [{ runBots }, { findFfmpeg, FfmpegNotFoundError, VideoInputError }] = await Promise.all([
        import('../bot/index.js'),
        import('../bot/ffmpeg.js'),
      ]);
      let ffmpegPath: string;
      try {
        ffmpegPath = findFfmpeg();
      } catch (err) {
        // The machine's setup, as FFMPEG_PATH or PATH tell it: the message names what to change.
        if (err instanceof FfmpegNotFoundError) throw new UsageError(err.message);
        throw err;
      }
      const vss = client(cmd);
      // User ids are <prefix>-<n>: bot n is "<name> <n>" when there are several.
      const nameOf = (userId: string): string | undefined =>
        o.name === undefined || o.count === 1 ? o.name : `${o.name} ${userId.slice(o.userPrefix.length + 1)}`;
      const connectionToken = async (userId: string) => {
        const name = nameOf(userId);
        return (
          await vss.post('/v1/sessions/{sessionId}/connection', {
            params: { path: { sessionId } },
            body: { user_id: userId, ...(name !== undefined ? { display_name: name } : {}) },
          })
        ).access_token;
      };
      // Asked once before anything starts, so that an unknown or ended session is the API's one
      // error line rather than every bot failing on its own.
      await connectionToken(`${o.userPrefix}-1`);

      // The first Ctrl-C (or SIGTERM) makes every bot leave cleanly; a second quits at once.
      const abort = new AbortController();
      let stoppedBy: NodeJS.Signals | null = null;
      const onSignal = (signal: NodeJS.Signals) => {
        if (abort.signal.aborted) process.exit(exitCodeOf(signal));
        stoppedBy = signal;
        note(`stopping: every bot leaves (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once)`);
        abort.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      let report;
      try {
        report = await runBots({
          baseUrl: settings(globals(cmd)).baseUrl,
          sessionId,
          connectionToken,
          count: o.count,
          durationS: o.duration,
          userPrefix: o.userPrefix,
          chatEveryS: o.chatEvery,
          layers: o.layers,
          ffmpegPath,
          ...(o.video !== undefined ? { video: o.video } : {}),
          signal: abort.signal,
          onEvent: (e) => {
            const line = describeEvent(e);
            if (line) note(line);
          },
        });
      } catch (err) {
        // The probe that runs before any bot joins could not decode the file: a bad --video.
        if (err instanceof VideoInputError) throw new UsageError(`--video: ${err.message}`);
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (globals(cmd).json) printJson(report);
      else printList(cmd, report.bots, COLUMNS);
      if (report.aborted) note(`stopped after ${report.elapsedS} s`);
      const failed = report.bots.filter((b) => !b.joined).length;
      if (stoppedBy) {
        if (failed) note(`${failed} of ${report.bots.length} bots could not join`);
        // The bots left and the summary is out; the exit code still says the run was cut short, so
        // that `vss bot … && vss export …` does not go on as if it had completed. Set as the
        // process ends, after the command's own (successful) result.
        const code = exitCodeOf(stoppedBy);
        process.once('exit', () => (process.exitCode = code));
        return;
      }
      if (failed) throw new Error(`${failed} of ${report.bots.length} bots could not join`);
    });
}
