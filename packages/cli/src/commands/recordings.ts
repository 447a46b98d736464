import type { DataOf } from '@vss/client';
import type { Command } from 'commander';
import { client, globals } from '../context.js';
import { dump, DUMP_HELP, type DumpOptions } from './playback-dump.js';
import { confirmed, expiresIn, integer } from '../options.js';
import { cell, note, out, printDone, printJson, printList, printObject } from '../output.js';

type Manifest = DataOf<'/v1/sessions/{sessionId}/manifest', 'get'>;
type TimelineEvent = DataOf<'/v1/sessions/{sessionId}/timeline', 'get'>[number];

/** Milliseconds since 1970 as `2025-01-31 12:00:00.123Z`. */
export function instant(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ');
}

/** A duration in ms as `1h02m03s`, `2m05s` or `4.2s`. */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(Math.floor(s % 60)).padStart(2, '0');
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m${rest}s` : `${m}m${rest}s`;
}

interface TrackRow {
  user_id: string;
  kind: string;
  stream_id: string;
  start: number | null;
  end: number | null;
}

export function register(program: Command): void {
  const links = program
    .command('replay-links')
    .description('links that play a recording back without a key, until they expire');

  links
    .command('create <sessionId>')
    .description('create a replay link and print it')
    .option(
      '--expires-in <duration>',
      'seconds (60 or more), or 90m, 12h, 7d: from 1 minute to 30 days, rounded up to whole minutes (default one day)',
      expiresIn,
    )
    .action(async (sessionId: string, o: { expiresIn?: number }, cmd: Command) => {
      const link = await client(cmd).post('/v1/sessions/{sessionId}/replay-links', {
        params: { path: { sessionId } },
        body: o.expiresIn !== undefined ? { expires_in_minutes: o.expiresIn } : {},
      });
      printDone(cmd, link.link, link);
      if (!globals(cmd).json) note(`expires ${cell(link.expires_at)}`);
    });

  links
    .command('revoke <sessionId>')
    .description('revoke every replay link of a session')
    .action(async (sessionId: string, _o, cmd: Command) => {
      const r = await client(cmd).delete('/v1/sessions/{sessionId}/replay-links', {
        params: { path: { sessionId } },
      });
      printDone(cmd, `revoked ${r.revoked} replay link${r.revoked === 1 ? '' : 's'} of ${sessionId}`, r);
    });

  program
    .command('manifest <sessionId>')
    .description("a recording's participants and their tracks (cam, mic, screen)")
    .action(async (sessionId: string, _o, cmd: Command) => {
      const m: Manifest = await client(cmd).get('/v1/sessions/{sessionId}/manifest', {
        params: { path: { sessionId } },
      });
      if (globals(cmd).json) return printJson(m);
      out(
        `${m.session_id}  ${instant(m.start_ts)} to ${instant(m.end_ts)} (${duration(m.end_ts - m.start_ts)})\n`,
      );
      const rows = m.participants.flatMap((p): TrackRow[] =>
        p.tracks.length
          ? p.tracks.map((t) => ({
              user_id: p.user_id,
              kind: t.kind,
              stream_id: t.stream_id,
              start: t.start_ts,
              end: t.end_ts,
            }))
          : [{ user_id: p.user_id, kind: '-', stream_id: '-', start: null, end: null }],
      );
      // Times from the start of the recording, as a player shows them.
      const offset = (v: unknown) => (typeof v === 'number' ? duration(v - m.start_ts) : '-');
      printList(
        cmd,
        rows,
        [
          { key: 'user_id', label: 'USER' },
          { key: 'kind' },
          { key: 'stream_id', label: 'STREAM' },
          { key: 'start', label: 'FROM', format: offset },
          { key: 'end', label: 'TO', format: offset },
        ],
        'no participant recorded media',
      );
    });

  program
    .command('timeline <sessionId>')
    .description("a session's timeline: joins, leaves, tracks, chat, director commands")
    .action(async (sessionId: string, _o, cmd: Command) => {
      const events: TimelineEvent[] = await client(cmd).get('/v1/sessions/{sessionId}/timeline', {
        params: { path: { sessionId } },
      });
      const data = (v: unknown) => {
        const s = JSON.stringify(v ?? {});
        return s === '{}' ? '-' : s.length > 80 ? `${s.slice(0, 79)}…` : s;
      };
      printList(
        cmd,
        events,
        [
          { key: 'seq' },
          { key: 'ts', label: 'TIME', format: (v) => instant(v as number) },
          { key: 'type' },
          { key: 'actor' },
          { key: 'data', format: data },
        ],
        'no events',
      );
    });

  const playback = program.command('playback').description('read a recording back');

  playback
    .command('timeline <sessionId>')
    .description("a recording's bounds, streams and event count")
    .action(async (sessionId: string, _o, cmd: Command) => {
      const t = await client(cmd).get('/v1/sessions/{sessionId}/playback/timeline', {
        params: { path: { sessionId } },
      });
      if (globals(cmd).json) return printJson(t);
      // With nothing recorded the API's bounds are 0: no time to show, rather than 1970.
      const empty = t.stream_ids.length === 0;
      printObject(cmd, {
        participants: t.participant_count,
        streams: empty ? '-' : t.stream_ids,
        events: empty ? 0 : `about ${t.total_events_estimated}`,
        from: empty ? 'nothing recorded' : `${t.min_ts} (${instant(t.min_ts)})`,
        to: empty ? '-' : `${t.max_ts} (${instant(t.max_ts)})`,
        duration: empty ? '-' : duration(t.max_ts - t.min_ts),
      });
    });

  playback
    .command('dump <sessionId>')
    .description('every event of a recording as NDJSON, or one file per stream with --split')
    .option(
      '--from <ms>',
      'start at this time (ms since 1970; default: the beginning)',
      integer(0, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--to <ms>',
      'stop before this time (ms since 1970; default: the end)',
      integer(0, Number.MAX_SAFE_INTEGER),
    )
    .option('--out <file>', 'write the NDJSON to this file ("-": standard output, the default)')
    .option('--split <dir>', 'write one file per stream into this directory (see below)')
    .addHelpText('after', DUMP_HELP)
    .action((sessionId: string, o: DumpOptions, cmd: Command) => dump(sessionId, o, cmd));

  program
    .command('redact <sessionId> <userId>')
    .description(
      "delete a participant's recorded media (cam, mic, screen) from storage; exports that show them are withdrawn",
    )
    .option('--include-chat', 'also replace their chat messages with a redaction marker')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (sessionId: string, userId: string, o: { includeChat?: boolean }, cmd: Command) => {
      const question = `Delete every recorded media stream of ${userId} in session ${sessionId} for good?`;
      if (!(await confirmed(cmd, question))) {
        note('nothing redacted');
        return;
      }
      const r = await client(cmd).delete('/v1/sessions/{sessionId}/participants/{userId}', {
        params: { path: { sessionId, userId }, query: { include_chat: o.includeChat ?? false } },
      });
      printDone(
        cmd,
        `redacted ${r.redacted} from ${sessionId}: ${r.deletedStreams} media stream${r.deletedStreams === 1 ? '' : 's'} deleted`,
        r,
      );
    });
}
