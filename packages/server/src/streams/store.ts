/** One recorded message of a session: its place in the session's sequence, its stream, time and bytes. */
export interface StreamEvent {
  sessionId: string;
  seq: number;
  /** `events`, `chat`, `director`, `media/<user>/cam|mic|screen` */
  streamId: string;
  /** ms since 1970 on the media clock */
  ts: number;
  body: Buffer;
}

/** What is recorded in one stream of a session, kept up to date batch by batch. */
export interface StreamStat {
  streamId: string;
  events: number;
  bytes: number;
  minTs: number;
  maxTs: number;
}

/** Per-stream totals of a batch, merged into the stored statistics. */
export function statsOf(events: StreamEvent[]): Map<string, { sessionId: string } & StreamStat> {
  const out = new Map<string, { sessionId: string } & StreamStat>();
  for (const e of events) {
    const k = `${e.sessionId}\n${e.streamId}`;
    const s = out.get(k);
    if (!s)
      out.set(k, {
        sessionId: e.sessionId,
        streamId: e.streamId,
        events: 1,
        bytes: e.body.length,
        minTs: e.ts,
        maxTs: e.ts,
      });
    else {
      s.events += 1;
      s.bytes += e.body.length;
      if (e.ts < s.minTs) s.minTs = e.ts;
      if (e.ts > s.maxTs) s.maxTs = e.ts;
    }
  }
  return out;
}

/** Rows in the first page of a `read`: 32 camera frames are well under 1 MiB. */
export const READ_FIRST_PAGE_ROWS = 32;
/** Rows at most in a page of a `read`. */
const READ_PAGE_ROWS = 256;
/** About this many bytes of bodies in a page of a `read`: a page of camera frames is ~50 rows. */
const READ_PAGE_BYTES = 1 << 20;

/**
 * How many rows the next page of a `read` asks for, from the page just read: 256 while bodies are
 * small (events, chat, audio), fewer when they averaged large (video), so that what a reader holds
 * at once (a page, and the garbage it leaves) stays near 1 MiB whatever the stream. The first page
 * is READ_FIRST_PAGE_ROWS.
 */
export function nextPageRows(rows: ReadonlyArray<{ body: Buffer } | { len: number }>): number {
  let bytes = 0;
  for (const r of rows) bytes += 'len' in r ? r.len : r.body.length;
  if (rows.length === 0 || bytes === 0) return READ_PAGE_ROWS;
  // As many rows as 1 MiB holds at the last page's average, both ways: a page just under 1 MiB
  // must not be followed by 256 rows of the same large bodies.
  return Math.min(READ_PAGE_ROWS, Math.max(8, Math.floor((READ_PAGE_BYTES * rows.length) / bytes)));
}

/** A read of one session's recording. */
export interface ReadRange {
  fromTs?: number;
  /** exclusive */
  toTs?: number;
  /** the first seq to return (inclusive) */
  fromSeq?: number;
  /** the seq to stop before (exclusive) */
  toSeq?: number;
  /** only this stream (filtered by the database) */
  streamId?: string;
  /** only these streams (filtered by the database) */
  streamIds?: string[];
  /** only these streams */
  streams?: (streamId: string) => boolean;
  limit?: number;
}

/**
 * The stream store: where every accepted live message is recorded. One implementation per engine
 * (SQLite file beside the metadata database, or a PostgreSQL table); written through a batching
 * writer so that a frame costs one row in a shared transaction, not a transaction of its own.
 */
export interface StreamStore {
  /** The files it keeps in DATA_DIR, whose loss loses recordings: none on PostgreSQL. */
  readonly files: readonly string[];
  /** Writes a batch of events in one transaction; resolves once it is durable. */
  appendBatch(events: StreamEvent[]): Promise<void>;
  /**
   * Seals the session's open segment (its session ended): nothing more is appended to it, and
   * where object storage is configured it is stored there.
   */
  seal(sessionId: string): Promise<void>;
  /** The highest seq recorded for the session, or 0. */
  maxSeq(sessionId: string): Promise<number>;
  /** Events in seq order, read page by page so memory stays bounded. */
  read(sessionId: string, range: ReadRange): AsyncGenerator<StreamEvent>;
  /** Per-stream statistics of a session's recording (no scan of the events). */
  stats(sessionId: string): Promise<StreamStat[]>;
  /** The first event (in seq order) with seq >= fromSeq and ts >= fromTs: where a read starts. */
  firstFrom(
    sessionId: string,
    fromSeq: number,
    fromTs: number,
  ): Promise<{ seq: number; ts: number } | undefined>;
  /** The earliest timestamp at or after `ts`, or undefined. */
  nextTs(sessionId: string, ts: number): Promise<number | undefined>;
  /**
   * One playback answer's events: those with seq >= fromSeq and ts >= fromTs, in seq order, through
   * the last seq of an event stamped lo <= ts < hi (so an event that arrived late, stamped before
   * lo, or early, stamped after hi, comes in its place in seq order), at most `limit` of them, in
   * pages (a page is about a megabyte of bodies): the cost is bounded by the window, not by what
   * follows it in the session, and nothing beyond a page of bodies is held at once. Pages rather
   * than single events, because a playback answer holds thousands of events and each step of an
   * async generator is a promise.
   */
  slot(
    sessionId: string,
    lo: number,
    hi: number,
    fromSeq: number,
    limit: number,
    fromTs: number,
  ): AsyncGenerator<StreamEvent[]>;
  /** Deletes the named streams of a session; returns how many events went. */
  deleteStreams(sessionId: string, streamIds: string[]): Promise<number>;
  /** Deletes a session's whole recording. */
  deleteSession(sessionId: string): Promise<number>;
  /** Replaces the body of one event (redacting a chat message), overwriting the old bytes. */
  replaceBody(sessionId: string, seq: number, body: Buffer): Promise<void>;
  close(): Promise<void>;
}
