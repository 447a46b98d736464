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

/** A read of one session's recording. */
export interface ReadRange {
  fromTs?: number;
  /** exclusive */
  toTs?: number;
  /** the first seq to return (inclusive) */
  fromSeq?: number;
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
  /** Writes a batch of events in one transaction; resolves once it is durable. */
  appendBatch(events: StreamEvent[]): Promise<void>;
  /** The highest seq recorded for the session, or 0. */
  maxSeq(sessionId: string): Promise<number>;
  /** Events in seq order, read page by page so memory stays bounded. */
  read(sessionId: string, range: ReadRange): AsyncGenerator<StreamEvent>;
  /** Deletes the named streams of a session; returns how many events went. */
  deleteStreams(sessionId: string, streamIds: string[]): Promise<number>;
  /** Deletes a session's whole recording. */
  deleteSession(sessionId: string): Promise<number>;
  close(): Promise<void>;
}
