import { closeSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { segmentKey, segmentPath } from './segment-files.js';

/** Where an event's body is: a byte range of one of its session's segments, and its checksum. */
export interface BodyRef {
  seq: number;
  segment: number;
  off: number;
  len: number;
  crc: number;
}

/** Where sealed segments are read from when this node has no copy: object storage. */
export interface SegmentSource {
  /** bytes [start, end) of the object under key */
  read(key: string, start: number, end: number): Promise<Buffer>;
}

/** What the stream store needs of object storage (the blob store of `blobs/` is one). */
export interface SegmentObjects extends SegmentSource {
  /** Stores a local file under key, replacing what was there; resolves once it is stored. */
  putFile(key: string, path: string): Promise<void>;
  /** the object's size, or undefined when there is none */
  size(key: string): Promise<number | undefined>;
  deletePrefix(prefix: string): Promise<number>;
}

/** Object storage for sealed segments, and the folder that keeps local copies of them. */
export interface SealedSegments {
  objects: SegmentObjects;
  /** DATA_DIR/segments: where sealed segments are written before upload, kept as a read cache */
  cacheDir: string;
}

/** A body whose bytes are not the bytes written: reported, never served. */
export class SegmentCorruptError extends Error {
  constructor(
    readonly sessionId: string,
    readonly seq: number,
    readonly segment: number,
  ) {
    super(
      `recorded event ${seq} of session ${sessionId} fails its checksum (segment ${segment}): the recording is damaged there`,
    );
    this.name = 'SegmentCorruptError';
  }
}

/** Segment files kept open for reading at once; the least recently used is closed first. */
const OPEN_FILES = 64;
/** Adjacent bodies are read in one call while the read stays under this size. */
const MAX_READ = 4 * 1024 * 1024;

/**
 * Reads event bodies out of segment files: positional reads, one open file per segment (kept in a
 * small LRU), adjacent bodies of a page in one read, each body checked against its checksum. A
 * segment this node has no file of is read from object storage by byte range.
 *
 * Local reads are synchronous on purpose: a page is at most a few MiB, almost always in the page
 * cache, and a synchronous read of that costs less than the thread-pool hand-off of an async one
 * (the playback window's latency is what this path is measured by).
 */
export class SegmentReader {
  /** open descriptors by `session/segment`, in use order (a Map iterates oldest first) */
  private readonly fds = new Map<string, number>();

  constructor(
    private readonly root: string,
    private readonly remote: SegmentSource | null = null,
  ) {}

  /** The bodies of rows of one session, in the rows' order. */
  async bodies(sessionId: string, refs: readonly BodyRef[]): Promise<Buffer[]> {
    const out: Buffer[] = new Array(refs.length);
    for (let i = 0; i < refs.length;) {
      // A run of bodies that follow one another in one segment: one read.
      const first = refs[i]!;
      let end = first.off + first.len;
      let j = i + 1;
      while (j < refs.length) {
        const r = refs[j]!;
        if (r.segment !== first.segment || r.off !== end || r.off + r.len - first.off > MAX_READ) break;
        end += r.len;
        j++;
      }
      const bytes = await this.range(sessionId, first.segment, first.off, end);
      for (let k = i; k < j; k++) {
        const r = refs[k]!;
        const body = bytes.subarray(r.off - first.off, r.off - first.off + r.len);
        if (crc32(body) !== r.crc) throw new SegmentCorruptError(sessionId, r.seq, r.segment);
        out[k] = body;
      }
      i = j;
    }
    return out;
  }

  /** Closes the files of a session (its segments were deleted or rewritten). */
  forget(sessionId: string): void {
    for (const [k, fd] of this.fds)
      if (k.startsWith(`${sessionId}/`)) {
        this.fds.delete(k);
        closeSync(fd);
      }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private async range(sessionId: string, segment: number, start: number, end: number): Promise<Buffer> {
    const fd = this.fd(sessionId, segment);
    if (fd === null) {
      if (!this.remote) throw new Error(`segment ${segment} of session ${sessionId} is missing`);
      return this.remote.read(segmentKey(sessionId, segment), start, end);
    }
    const buf = Buffer.allocUnsafe(end - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      // Short of what the index says: the file was cut. The checksum reports it for the body.
      if (n === 0) return buf.subarray(0, got);
      got += n;
    }
    return buf;
  }

  private fd(sessionId: string, segment: number): number | null {
    const k = `${sessionId}/${segment}`;
    const had = this.fds.get(k);
    if (had !== undefined) {
      this.fds.delete(k);
      this.fds.set(k, had);
      return had;
    }
    let fd: number;
    try {
      fd = openSync(segmentPath(this.root, sessionId, segment), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    this.fds.set(k, fd);
    if (this.fds.size > OPEN_FILES) {
      const [oldest, ofd] = this.fds.entries().next().value as [string, number];
      this.fds.delete(oldest);
      closeSync(ofd);
    }
    return fd;
  }
}
