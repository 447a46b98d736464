import { Worker } from 'node:worker_threads';
import { statsOf, type StreamEvent } from './store.js';

/** What the write worker does, one request at a time, in the order posted. */
export type WriteOp =
  | {
      op: 'append';
      sessions: string[];
      streams: string[];
      /** seq, ts, body length per event */
      nums: Float64Array;
      /** every body, one after another */
      bodies: ArrayBuffer;
      /** session, stream, events, bytes, min ts, max ts */
      stats: Array<[string, string, number, number, number, number]>;
    }
  | { op: 'seal'; sessionId: string }
  | { op: 'stored'; sessionId: string; segment: number; changes: number }
  | { op: 'deleteStreams'; sessionId: string; streamIds: string[] }
  | { op: 'deleteSession'; sessionId: string }
  | { op: 'replaceBody'; sessionId: string; seq: number; body: ArrayBuffer }
  | { op: 'close' };
/** A request as posted: its op and the id its reply carries. */
export type WriteRequest = { id: number } & WriteOp;
/** A reply; `give` is an append's body buffer handed back for reuse. */
type Reply =
  | { id: number; ok: true; value: unknown; give?: ArrayBuffer }
  | { id: number; ok: false; message: string; code?: string };

/** Body buffers are allocated in powers of two from this size, so that one fits many batches. */
const MIN_BODY_BUFFER = 64 * 1024;
/** Given-back buffers kept for reuse, and the largest kept (a bulk write's buffer is let go). */
const SPARE_BUFFERS = 2;
const MAX_SPARE_BYTES = 8 * 1024 * 1024;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** A failure of the stream store's write thread, with SQLite's error code when it has one. */
export class StreamWriteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'StreamWriteError';
  }
}

/**
 * The write side of the embedded stream store: a worker thread that owns the segments being
 * appended to and the index's write connection, so that the appends, their fsyncs and the commits
 * run beside the event loop instead of on it. Requests run one at a time in the order posted, so
 * a delete posted after an append sees it. The thread starts on the first write (a store that is
 * only read never starts it) and holds the process open only while a request is in flight. A
 * thread that dies fails every request in flight; the next request starts a new one.
 */
export class SqliteWriteThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /**
   * Body buffers the worker gave back, reused for the next batches: a fresh buffer per batch left
   * the worker's heap holding tens of megabytes of spent buffers between its rare collections.
   */
  private spare: ArrayBuffer[] = [];

  /**
   * @param path streams.sqlite
   * @param segments the folder of the segment files
   */
  constructor(
    private readonly path: string,
    private readonly segments: string,
  ) {}

  /** The running thread, if any (tests stop it to check that a crash fails writes, not hangs them). */
  get thread(): Worker | null {
    return this.worker;
  }

  /**
   * Writes a batch: bodies to the sessions' segments, synced, then the index rows in one
   * transaction; resolves once it has committed.
   */
  append(batch: StreamEvent[]): Promise<void> {
    // Each session's events one after another (in their order), so that its bodies are one write.
    const events = groupBySession(batch);
    let total = 0;
    for (const e of events) total += e.body.length;
    // The bodies are copied into one buffer that is moved, not cloned, to the thread: the events'
    // own buffers may be views into larger shared ones (socket reads, Node's pool).
    const bodies = Buffer.from(this.bodyBuffer(total));
    const nums = new Float64Array(events.length * 3);
    const sessions: string[] = new Array(events.length);
    const streams: string[] = new Array(events.length);
    let off = 0;
    events.forEach((e, i) => {
      sessions[i] = e.sessionId;
      streams[i] = e.streamId;
      nums[i * 3] = e.seq;
      nums[i * 3 + 1] = e.ts;
      nums[i * 3 + 2] = e.body.length;
      off += e.body.copy(bodies, off);
    });
    const stats = [...statsOf(events).values()].map((s): [string, string, number, number, number, number] => [
      s.sessionId,
      s.streamId,
      s.events,
      s.bytes,
      s.minTs,
      s.maxTs,
    ]);
    return this.request({ op: 'append', sessions, streams, nums, bodies: bodies.buffer, stats }, [
      bodies.buffer,
      nums.buffer,
    ]) as Promise<void>;
  }

  private bodyBuffer(size: number): ArrayBuffer {
    const i = this.spare.findIndex((b) => b.byteLength >= size);
    if (i >= 0) return this.spare.splice(i, 1)[0]!;
    return Buffer.allocUnsafeSlow(Math.max(MIN_BODY_BUFFER, 2 ** Math.ceil(Math.log2(size)))).buffer;
  }

  /** Seals the session's open segment; answers the segments sealed (none or one). */
  seal(sessionId: string): Promise<number[]> {
    return this.request({ op: 'seal', sessionId }) as Promise<number[]>;
  }

  /**
   * Records that a sealed segment is stored in object storage as it was after `changes` changes
   * (a change since the upload read it leaves it to be stored again).
   */
  stored(sessionId: string, segment: number, changes: number): Promise<void> {
    return this.request({ op: 'stored', sessionId, segment, changes }) as Promise<void>;
  }

  /** Zeroes the streams' bytes and deletes their rows; answers the events gone and segments changed. */
  deleteStreams(sessionId: string, streamIds: string[]): Promise<{ events: number; segments: number[] }> {
    return this.request({ op: 'deleteStreams', sessionId, streamIds }) as Promise<{
      events: number;
      segments: number[];
    }>;
  }

  deleteSession(sessionId: string): Promise<number> {
    return this.request({ op: 'deleteSession', sessionId }) as Promise<number>;
  }

  /** Answers the segments that changed. */
  replaceBody(sessionId: string, seq: number, body: Buffer): Promise<number[]> {
    const copy = Buffer.allocUnsafeSlow(body.length);
    body.copy(copy);
    return this.request({ op: 'replaceBody', sessionId, seq, body: copy.buffer }, [copy.buffer]) as Promise<
      number[]
    >;
  }

  /** Lets the requests already posted finish, closes the write connection and stops the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    await this.post(worker, { op: 'close' }).catch(() => {});
    await worker.terminate();
  }

  private request(op: WriteOp, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.closed) return Promise.reject(new StreamWriteError('the stream store is closed'));
    return this.post(this.worker ?? this.start(), op, transfer);
  }

  private post(worker: Worker, op: WriteOp, transfer: ArrayBuffer[] = []): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, ...op } satisfies WriteRequest, transfer);
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./sqlite-write-worker.js', import.meta.url), {
      workerData: { path: this.path, segments: this.segments },
      // The worker is plain JavaScript: it needs none of the parent's loaders or flags.
      execArgv: [],
    });
    worker.unref();
    worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (this.pending.size === 0) worker.unref();
      if (r.ok && r.give && this.spare.length < SPARE_BUFFERS && r.give.byteLength <= MAX_SPARE_BYTES)
        this.spare.push(r.give);
      if (r.ok) p.resolve(r.value);
      else p.reject(new StreamWriteError(r.message, r.code));
    });
    // An uncaught error ends the thread: 'exit' follows and fails what is still in flight.
    let failure: Error | null = null;
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      const err = new StreamWriteError(
        `the stream store's write thread stopped (exit code ${code})${failure ? `: ${failure.message}` : ''}`,
      );
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}

/** The events of a batch with each session's together, in their order within the session. */
function groupBySession(events: StreamEvent[]): StreamEvent[] {
  let mixed = false;
  for (let i = 1; i < events.length && !mixed; i++)
    if (events[i]!.sessionId !== events[i - 1]!.sessionId) mixed = true;
  if (!mixed) return events;
  const by = new Map<string, StreamEvent[]>();
  for (const e of events) {
    const list = by.get(e.sessionId);
    if (list) list.push(e);
    else by.set(e.sessionId, [e]);
  }
  return [...by.values()].flat();
}
