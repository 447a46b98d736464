import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { s3BlobStore, type S3Config } from '../../src/blobs/s3.js';
import type { BlobStore } from '../../src/blobs/store.js';
import { freePort } from './process.js';

/** s3rver's command line, its PUT made to answer only once the object is written (s3rver.mjs). */
const S3RVER = resolve(__dirname, 's3rver.mjs');

/** A local S3-speaking server (s3rver, from the npm registry) in a process of its own. */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** where it keeps the objects on disk (to look for bytes that must be gone) */
  dir: string;
  /** the S3_* variables that point a server process at it */
  env: Record<string, string>;
  config: S3Config;
  /** a client of the bucket, as the server makes one */
  store: BlobStore;
  list(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts s3rver on a free port with an empty bucket; resolves once the bucket answers. */
export async function startS3(bucket = 'vss-test'): Promise<LocalS3> {
  const dir = mkdtempSync(join(tmpdir(), 'vss-s3-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [S3RVER, '-d', dir, '-a', '127.0.0.1', '-p', String(port), '-s', '--configure-bucket', bucket],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((ok) => child.on('exit', () => ok()));
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver's fixed credentials; path-style, as self-hosted servers want.
  const config: S3Config = {
    bucket,
    endpoint,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    prefix: '',
  };
  const store = s3BlobStore(config);
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      await store.list('');
      break;
    } catch (err) {
      if (Date.now() > until || child.exitCode !== null)
        throw new Error(`s3rver did not start: ${(err as Error).message}\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    endpoint,
    bucket,
    dir,
    config,
    store,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    list: (prefix) => store.list(prefix),
    async stop() {
      await store.close();
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
