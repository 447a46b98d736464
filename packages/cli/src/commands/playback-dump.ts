import { once } from 'node:events';
import { createWriteStream, mkdirSync, openSync, statSync, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { VssError, type DataOf, type VssClient } from '@vss/client';
import type { Command } from 'commander';
import { client } from '../context.js';
import { UsageError } from '../errors.js';
import { jsonSafe, note, printList } from '../output.js';

/** `vss playback dump`: a whole recording read window after window, written as it arrives. */

type PlaybackEvent = DataOf<'/v1/sessions/{sessionId}/playback', 'get'>['events'][number];

/** The widest window the API reads at once: fewer requests, and an answer is capped anyway. */
const WINDOW_MS = 300_000;
/** An answer whose body was cut (the server failed after its first byte) is read again this often. */
const PAGE_ATTEMPTS = 3;

/** Every playback event from `from` (ms) up to `to` (exclusive), one answer at a time. */
async function* playbackPages(
  vss: VssClient,
  sessionId: string,
  from: number,
  to: number,
): AsyncGenerator<PlaybackEvent[]> {
  let baseSeq: number | undefined;
  for (;;) {
    const page = await readPage(vss, sessionId, from, baseSeq);
    // An answer is a run of seqs: an event that arrived late (stamped earlier than events before
    // it) can come in a later answer, so the answers are read to the end and each is cut at `to`.
    const wanted = page.events.filter((e) => e.timestamp_ms < to);
    if (wanted.length) yield wanted;
    if (page.next_base_seq === null) return;
    baseSeq = page.next_base_seq;
  }
}

async function readPage(
  vss: VssClient,
  sessionId: string,
  from: number,
  baseSeq: number | undefined,
): Promise<DataOf<'/v1/sessions/{sessionId}/playback', 'get'>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await vss.get('/v1/sessions/{sessionId}/playback', {
        params: {
          path: { sessionId },
          query: {
            from_ts: from,
            window_size: WINDOW_MS,
            ...(baseSeq !== undefined ? { base_seq: baseSeq } : {}),
          },
        },
      });
    } catch (err) {
      // An error answer is final; a body cut short (no status) is read again.
      if ((err instanceof VssError && err.status > 0) || attempt >= PAGE_ATTEMPTS) throw err;
    }
  }
}

/** The pages of `rest` after `first`, the answer already read from it. */
async function* startingWith<T>(
  first: IteratorResult<T, void>,
  rest: AsyncGenerator<T, void>,
): AsyncGenerator<T, void> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}

/** Writes with backpressure: waits while the stream's buffer is full. */
async function write(out: Writable, chunk: string | Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/**
 * A file to write, opened at once: a path that cannot be written is the command's error when it
 * is opened, not an unhandled stream error later.
 */
function openFile(file: string): WriteStream {
  const out = createWriteStream(file, { fd: openSync(file, 'w') });
  out.on('error', () => {}); // reported by the write or finish that meets it
  return out;
}

function stat(path: string): ReturnType<typeof statSync> | undefined {
  return statSync(path, { throwIfNoEntry: false });
}

/** --out as the command line gave it, checked before anything is asked of the server. */
function checkOut(file: string): void {
  if (file === '') throw new UsageError('--out: empty: give a file, or "-" for standard output');
  if (stat(file)?.isDirectory()) throw new UsageError(`--out: ${file} is a directory`);
  const dir = /[\\/]$/.test(file) ? file : dirname(file);
  if (!stat(dir)?.isDirectory()) throw new UsageError(`--out: no directory ${dir}`);
}

/** --split as the command line gave it: a directory, or nothing yet. */
function checkSplit(dir: string): void {
  if (dir === '') throw new UsageError('--split: empty: give a directory');
  const s = stat(dir);
  if (s && !s.isDirectory()) throw new UsageError(`--split: ${dir} is not a directory`);
}

async function finish(out: WriteStream): Promise<void> {
  out.end();
  if (!out.writableFinished) await once(out, 'finish');
}

/** A media stream `media/<user>/<kind>` as its user and kind; null for the other streams. */
function mediaStream(streamId: string): { user: string; kind: string } | null {
  const m = /^media\/([^/]+)\/([^/]+)$/.exec(streamId);
  return m ? { user: m[1]!, kind: m[2]! } : null;
}

/** The file of one stream in a --split directory. */
function splitFile(streamId: string): string {
  const media = mediaStream(streamId);
  if (media) return `${encodeURIComponent(media.user)}-${media.kind}.bin`;
  return `${encodeURIComponent(streamId)}.ndjson`;
}

/** The header of a media record in a --split file: timestamp_ms, seq, payload length. */
function mediaRecordHeader(e: PlaybackEvent, length: number): Buffer {
  const h = Buffer.alloc(20);
  h.writeBigUInt64BE(BigInt(e.timestamp_ms), 0);
  h.writeBigUInt64BE(BigInt(e.seq), 8);
  h.writeUInt32BE(length, 16);
  return h;
}

/** A timeline, chat or director event as a line: its JSON body decoded when it is JSON. */
function jsonLine(e: PlaybackEvent): string {
  const text = Buffer.from(e.body_base64, 'base64').toString('utf8');
  try {
    return JSON.stringify({ seq: e.seq, timestamp_ms: e.timestamp_ms, body: JSON.parse(text) as unknown });
  } catch {
    return JSON.stringify({ seq: e.seq, timestamp_ms: e.timestamp_ms, body_base64: e.body_base64 });
  }
}

export interface DumpOptions {
  from?: number;
  to?: number;
  out?: string;
  split?: string;
}

export const DUMP_HELP = `
Output: one JSON object per line, every event of every stream in recording order (windows of time,
seq order within each): { "seq", "timestamp_ms", "stream_id", "body_base64" }, as the playback API
answers them. Media bodies are the recorded payloads (a JPEG, or an EVC1 chunk); the bodies of
"events", "chat" and "director" are UTF-8 JSON.

--split DIR writes one file per stream instead:
  events.ndjson, chat.ndjson, director.ndjson   one line per event: { "seq", "timestamp_ms", "body" }
                                                with the body's JSON decoded
  <user>-cam.bin, <user>-mic.bin, <user>-screen.bin
                                                the media payloads as recorded, each record framed as
                                                uint64 timestamp_ms, uint64 seq, uint32 length (all
                                                big-endian), then that many bytes of payload
(user ids are percent-encoded where a file name needs it). The recording is read page by page and
written as it arrives, so a long session never has to fit in memory.

--out FILE is written as FILE.part and renamed to FILE once the dump is complete: a dump that fails
leaves FILE as it was. A --split dump that fails removes the files it began.

Times are ms since 1970, as timestamp_ms; \`vss playback timeline\` shows a recording's bounds.`;

export async function dump(sessionId: string, o: DumpOptions, cmd: Command): Promise<void> {
  if (o.split !== undefined && o.out !== undefined) throw new UsageError('--split and --out: choose one');
  const from = o.from ?? 0;
  const to = o.to ?? Number.MAX_SAFE_INTEGER;
  if (to <= from) throw new UsageError(`--to (${to}) must be after --from (${from})`);
  const toStdout = o.out === undefined || o.out === '-';
  if (o.split !== undefined) checkSplit(o.split);
  else if (!toStdout) checkOut(o.out!);
  const vss = client(cmd);

  // The first answer is read before anything is created or replaced: an unknown session, a
  // malformed id or a refused key leaves the disk as it was.
  const rest = playbackPages(vss, sessionId, from, to);
  const pages = startingWith(await rest.next(), rest);

  if (o.split !== undefined) return split(o.split, pages, cmd);
  if (toStdout) {
    // A reader that stops early (`| head`) ends vss quietly: main.ts handles EPIPE on stdout.
    await writeNdjson(pages, process.stdout);
    return;
  }

  // Written to FILE.part, renamed over FILE once the last page is in: a dump that fails midway
  // leaves FILE as it was, never a file that looks complete.
  const file = o.out!;
  const part = `${file}.part`;
  let out: WriteStream;
  try {
    out = openFile(part);
  } catch (err) {
    throw new UsageError(`--out: cannot write ${part}: ${(err as Error).message}`);
  }
  let count = 0;
  let done = false;
  try {
    count = await writeNdjson(pages, out);
    await finish(out);
    await rename(part, file);
    done = true;
  } finally {
    if (!done) {
      out.destroy();
      await rm(part, { force: true });
    }
  }
  note(`wrote ${count} events to ${file}`);
}

/** Writes the events as NDJSON, one write per answer (up to 5000 lines); answers how many. */
async function writeNdjson(pages: AsyncGenerator<PlaybackEvent[], void>, out: Writable): Promise<number> {
  let count = 0;
  for await (const events of pages) {
    const lines = events.map((e) =>
      jsonSafe(
        JSON.stringify({
          seq: e.seq,
          timestamp_ms: e.timestamp_ms,
          stream_id: e.stream_id,
          body_base64: e.body_base64,
        }),
      ),
    );
    if (lines.length) await write(out, lines.join('\n') + '\n');
    count += lines.length;
  }
  return count;
}

/**
 * --split: one file per stream in `dir`. A dump that fails midway removes what it wrote (and the
 * directory when it made it), so that no set of files looks complete.
 */
async function split(dir: string, pages: AsyncGenerator<PlaybackEvent[], void>, cmd: Command): Promise<void> {
  let created: string | undefined;
  try {
    // The first directory made, when any was: removed again if the dump fails.
    created = mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UsageError(`--split: cannot create ${dir}: ${(err as Error).message}`);
  }
  const files = new Map<string, { out: WriteStream; file: string; events: number; bytes: number }>();
  let done = false;
  try {
    for await (const events of pages) {
      for (const e of events) {
        let f = files.get(e.stream_id);
        if (!f) {
          const file = join(dir, splitFile(e.stream_id));
          f = { out: openFile(file), file, events: 0, bytes: 0 };
          files.set(e.stream_id, f);
        }
        if (mediaStream(e.stream_id)) {
          const body = Buffer.from(e.body_base64, 'base64');
          await write(f.out, mediaRecordHeader(e, body.length));
          await write(f.out, body);
          f.bytes += 20 + body.length;
        } else {
          const line = jsonLine(e) + '\n';
          await write(f.out, line);
          f.bytes += Buffer.byteLength(line);
        }
        f.events += 1;
      }
    }
    await Promise.all([...files.values()].map((f) => finish(f.out)));
    done = true;
  } finally {
    if (!done) {
      for (const f of files.values()) f.out.destroy();
      await Promise.all([...files.values()].map((f) => rm(f.file, { force: true })));
      if (created !== undefined) await rm(created, { recursive: true, force: true });
    }
  }
  const rows = [...files.entries()].map(([stream_id, f]) => ({
    stream_id,
    file: f.file,
    events: f.events,
    bytes: f.bytes,
  }));
  printList(
    cmd,
    rows,
    [{ key: 'stream_id', label: 'STREAM' }, { key: 'file' }, { key: 'events' }, { key: 'bytes' }],
    'no events',
  );
}
