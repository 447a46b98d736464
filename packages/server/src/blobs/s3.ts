import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { pipeline, Transform, type Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { BlobNotFound, type BlobStore } from './store.js';
import { attachment } from '../lib/content-disposition.js';

/** Where the bucket is and how to reach it (from the `S3_*` variables). */
export interface S3Config {
  bucket: string;
  /** an S3-compatible server's URL (MinIO, R2, a local one); the AWS endpoint of the region when unset */
  endpoint: string | null;
  region: string;
  /** explicit credentials; the SDK's default chain (environment, profile, instance role) when unset */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (most self-hosted servers) */
  forcePathStyle: boolean;
  /** put in front of every key, so that one bucket can hold several deployments */
  prefix: string;
}

/**
 * Files up to this size are stored with one PutObject (read into memory); larger ones in parts of
 * this size, one part in memory at a time. A file is read into a Buffer rather than streamed so
 * that the request can be signed over its bytes and retried by the SDK: a stream can be read once.
 */
const PART_BYTES = 16 * 1024 * 1024;

function readPart(path: string, start: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, start + got);
      if (n === 0) throw new Error(`${path} ended at ${start + got}, before ${start + length}`);
      got += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** Passes on bytes [start, end) of what goes through it. */
function slice(start: number, end: number): Transform {
  let at = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const from = Math.max(0, start - at);
      const to = Math.min(chunk.length, end - at);
      at += chunk.length;
      done(null, to > from ? chunk.subarray(from, to) : undefined);
    },
  });
}

/**
 * Where the bytes a ranged GET answered with begin in the object. A server may send more than
 * the range asked for: the whole object (no Content-Range; s3rver also answers `bytes=0-0` with
 * all of it, labelled so), and the caller then cuts the range out. A range past the object's end
 * is cut short at the end, as on disk; anything else short of the range is an error.
 */
function answeredFrom(contentRange: string | undefined, start: number, end: number, what: string): number {
  if (!contentRange) return 0;
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
  const last = m && m[3] !== '*' ? Math.min(end, Number(m[3]) - 1) : end;
  if (!m || Number(m[1]) > start || Number(m[2]) < last)
    throw new Error(`asked for bytes ${start}-${end} of ${what}, got ${contentRange}`);
  return Number(m[1]);
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Objects in an S3-compatible bucket, through the official AWS SDK client. */
export function s3BlobStore(config: S3Config): BlobStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
    // Checksums only where an operation requires them: many S3-compatible servers do not know the
    // newer checksum headers, and every body read back is checked against our own CRC-32 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = config.bucket;
  const keyOf = (key: string) => config.prefix + key;
  const fail = (what: string, key: string, err: unknown): never => {
    // Missing means the object only when reading it; storing into a missing bucket is a failure.
    if (what === 'reading' && isMissing(err)) throw new BlobNotFound(key);
    throw new Error(
      `object storage: ${what} s3://${Bucket}/${keyOf(key)} failed: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  };

  const store: BlobStore = {
    kind: 's3',
    async putFile(key, path) {
      const size = statSync(path).size;
      const Key = keyOf(key);
      try {
        if (size <= PART_BYTES) {
          await client.send(
            new PutObjectCommand({ Bucket, Key, Body: readPart(path, 0, size), ContentLength: size }),
          );
          return;
        }
        const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
        try {
          const parts: Array<{ ETag: string; PartNumber: number }> = [];
          for (let start = 0, n = 1; start < size; start += PART_BYTES, n++) {
            const length = Math.min(PART_BYTES, size - start);
            const { ETag } = await client.send(
              new UploadPartCommand({
                Bucket,
                Key,
                UploadId,
                PartNumber: n,
                Body: readPart(path, start, length),
                ContentLength: length,
              }),
            );
            parts.push({ ETag: ETag!, PartNumber: n });
          }
          await client.send(
            new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
          );
        } catch (err) {
          await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
          throw err;
        }
      } catch (err) {
        fail('storing', key, err);
      }
    },
    async put(key, body) {
      try {
        await client.send(
          new PutObjectCommand({ Bucket, Key: keyOf(key), Body: body, ContentLength: body.length }),
        );
      } catch (err) {
        fail('storing', key, err);
      }
    },
    async size(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return head.ContentLength;
      } catch (err) {
        if (isMissing(err)) return undefined;
        return fail('looking up', key, err);
      }
    },
    async read(key, start, end) {
      if (end <= start) return Buffer.alloc(0);
      try {
        const res = await client.send(
          new GetObjectCommand({ Bucket, Key: keyOf(key), Range: `bytes=${start}-${end - 1}` }),
        );
        const from = answeredFrom(res.ContentRange, start, end - 1, keyOf(key));
        const bytes = Buffer.from(await res.Body!.transformToByteArray());
        return bytes.subarray(start - from, end - from);
      } catch (err) {
        return fail('reading', key, err);
      }
    },
    async stream(key, range) {
      try {
        const res = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: keyOf(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        const body = res.Body as Readable;
        if (!range) return body;
        let from: number;
        try {
          from = answeredFrom(res.ContentRange, range.start, range.end, keyOf(key));
        } catch (err) {
          body.destroy();
          throw err;
        }
        if (from === range.start && res.ContentLength === range.end - range.start + 1) return body;
        // More than the range came: pass on only its bytes (an error on the way ends both streams).
        return pipeline(body, slice(range.start - from, range.end - from + 1), () => {});
      } catch (err) {
        return fail('reading', key, err);
      }
    },
    async presign(key, ttlSeconds, filename) {
      return getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket,
          Key: keyOf(key),
          ...(filename ? { ResponseContentDisposition: attachment(filename) } : {}),
        }),
        { expiresIn: ttlSeconds },
      );
    },
    async delete(keys) {
      for (let i = 0; i < keys.length; i += 1000) {
        const Objects = keys.slice(i, i + 1000).map((k) => ({ Key: keyOf(k) }));
        try {
          const res = await client.send(
            new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }),
          );
          const failed = res.Errors?.filter((e) => e.Code !== 'NoSuchKey') ?? [];
          if (failed.length)
            throw new Error(`${failed.length} not deleted, first ${failed[0]!.Key}: ${failed[0]!.Message}`);
        } catch (err) {
          fail('deleting', keys[i]!, err);
        }
      }
    },
    async deletePrefix(prefix) {
      const keys = await store.list(prefix);
      await store.delete(keys);
      return keys.length;
    },
    async list(prefix) {
      const out: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        let res;
        try {
          res = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: keyOf(prefix), ContinuationToken }),
          );
        } catch (err) {
          return fail('listing', prefix, err);
        }
        for (const o of res.Contents ?? []) if (o.Key) out.push(o.Key.slice(config.prefix.length));
        ContinuationToken = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return out.sort();
    },
    async close() {
      client.destroy();
    },
  };
  return store;
}
