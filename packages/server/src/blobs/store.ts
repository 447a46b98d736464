import type { Readable } from 'node:stream';

/** No object under that key. */
export class BlobNotFound extends Error {
  constructor(readonly key: string) {
    super(`no object ${key}`);
    this.name = 'BlobNotFound';
  }
}

/**
 * Object storage: keys (`segments/<session>/<n>.seg`, `exports/<id>.mp4`) to immutable bytes,
 * written whole and read by byte range.
 */
export interface BlobStore {
  readonly kind: 'disk' | 's3';
  /** Stores a local file under key, replacing what was there; resolves once it is durable. */
  putFile(key: string, path: string): Promise<void>;
  /** Stores bytes under key, replacing what was there; resolves once they are durable. */
  put(key: string, body: Buffer): Promise<void>;
  /** The object's size in bytes, or undefined when there is none. */
  size(key: string): Promise<number | undefined>;
  /** Bytes [start, end) of an object; BlobNotFound when it is missing. */
  read(key: string, start: number, end: number): Promise<Buffer>;
  /** The object, or the inclusive byte range of it, as a stream (a download); BlobNotFound when missing. */
  stream(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** A URL that GETs the object directly for ttlSeconds (Range honoured), or null when the store cannot. */
  presign(key: string, ttlSeconds: number, filename?: string): Promise<string | null>;
  /** Deletes objects; a missing one is not an error. */
  delete(keys: string[]): Promise<void>;
  /** Deletes every object whose key starts with prefix; answers how many went. */
  deletePrefix(prefix: string): Promise<number>;
  /** The keys under a prefix. */
  list(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}
