import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskBlobStore } from '../src/blobs/disk.js';
import { BlobNotFound, type BlobStore } from '../src/blobs/store.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { startS3, type LocalS3 } from './support/s3.js';

async function drain(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}

let s3: LocalS3;
let scratch: string;
beforeAll(async () => {
  s3 = await startS3();
  scratch = mkdtempSync(join(tmpdir(), 'vss-blobs-'));
}, 30_000);
afterAll(async () => {
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const stores: Array<[string, () => BlobStore]> = [
  ['on local disk', () => diskBlobStore(mkdtempSync(join(scratch, 'disk-')))],
  ['in an S3 bucket (s3rver)', () => s3.store],
];

describe.each(stores)('the blob store %s', (name, make) => {
  const tag = name.startsWith('on') ? 'disk' : 's3';
  it('stores a file and reads back any byte range of it, byte-identical', async () => {
    const store = make();
    // Above one part (16 MiB), so that the S3 store uploads it in parts.
    const bytes = randomBytes(17 * 1024 * 1024 + 123);
    const file = join(scratch, `${tag}-big.bin`);
    writeFileSync(file, bytes);
    await store.putFile(`t/${tag}/big.bin`, file);
    expect(await store.size(`t/${tag}/big.bin`)).toBe(bytes.length);
    for (const [a, b] of [
      [0, 1],
      [0, 4096],
      [16 * 1024 * 1024 - 7, 16 * 1024 * 1024 + 9],
      [bytes.length - 100, bytes.length],
    ] as const)
      expect((await store.read(`t/${tag}/big.bin`, a, b)).equals(bytes.subarray(a, b)), `[${a}, ${b})`).toBe(
        true,
      );
    expect((await drain(await store.stream(`t/${tag}/big.bin`))).equals(bytes)).toBe(true);
    expect(
      (await drain(await store.stream(`t/${tag}/big.bin`, { start: 10, end: 20 }))).equals(
        bytes.subarray(10, 21),
      ),
    ).toBe(true);

    // One byte, at either end (a range some servers get wrong), and a read running past the end.
    for (const at of [0, bytes.length - 1])
      expect(
        (await drain(await store.stream(`t/${tag}/big.bin`, { start: at, end: at }))).equals(
          bytes.subarray(at, at + 1),
        ),
        `byte ${at}`,
      ).toBe(true);
    expect(
      (await store.read(`t/${tag}/big.bin`, bytes.length - 5, bytes.length + 100)).equals(
        bytes.subarray(bytes.length - 5),
      ),
    ).toBe(true);

    // Stored again: replaced.
    writeFileSync(file, Buffer.from('small now'));
    await store.putFile(`t/${tag}/big.bin`, file);
    expect((await store.read(`t/${tag}/big.bin`, 0, 9)).toString()).toBe('small now');
    expect(await store.size(`t/${tag}/big.bin`)).toBe(9);
  });

  it('stores bytes from memory, replacing what was there', async () => {
    const store = make();
    const bytes = randomBytes(300_000);
    await store.put(`t/${tag}/mem.bin`, bytes);
    expect(await store.size(`t/${tag}/mem.bin`)).toBe(bytes.length);
    expect((await store.read(`t/${tag}/mem.bin`, 0, bytes.length)).equals(bytes)).toBe(true);
    await store.put(`t/${tag}/mem.bin`, Buffer.alloc(0));
    expect(await store.size(`t/${tag}/mem.bin`)).toBe(0);
    expect(await store.list(`t/${tag}/mem`)).toEqual([`t/${tag}/mem.bin`]);
  });

  it('says when an object is missing', async () => {
    const store = make();
    expect(await store.size(`t/${tag}/nothing`)).toBeUndefined();
    await expect(store.read(`t/${tag}/nothing`, 0, 10)).rejects.toBeInstanceOf(BlobNotFound);
    await expect(store.stream(`t/${tag}/nothing`)).rejects.toBeInstanceOf(BlobNotFound);
    await store.delete([`t/${tag}/nothing`]);
  });

  it('lists and deletes by prefix, and only that prefix', async () => {
    const store = make();
    const file = join(scratch, `${tag}-small.bin`);
    writeFileSync(file, 'x');
    for (const k of ['a/1.seg', 'a/2.seg', 'ab/1.seg', 'b/1.seg']) await store.putFile(`p/${tag}/${k}`, file);
    expect(await store.list(`p/${tag}/a/`)).toEqual([`p/${tag}/a/1.seg`, `p/${tag}/a/2.seg`]);
    expect(await store.deletePrefix(`p/${tag}/a/`)).toBe(2);
    expect(await store.list(`p/${tag}/`)).toEqual([`p/${tag}/ab/1.seg`, `p/${tag}/b/1.seg`]);
    await store.delete([`p/${tag}/b/1.seg`]);
    expect(await store.list(`p/${tag}/`)).toEqual([`p/${tag}/ab/1.seg`]);
  });

  it(
    tag === 's3' ? 'presigns a short-lived URL that serves the object with Range' : 'has no URL to presign',
    async () => {
      const store = make();
      const file = join(scratch, `${tag}-presign.bin`);
      writeFileSync(file, 'hello, object storage');
      await store.putFile(`t/${tag}/presign.bin`, file);
      const url = await store.presign(`t/${tag}/presign.bin`, 60, 'hello.txt');
      if (tag === 'disk') {
        expect(url).toBeNull();
        return;
      }
      const res = await fetch(url!, { headers: { range: 'bytes=7-12' } });
      expect(res.status).toBe(206);
      expect(await res.text()).toBe('object');
      const whole = await fetch(url!);
      expect(whole.headers.get('content-disposition')).toContain('hello.txt');
      // Valid for the time asked, signed (s3rver does not check query signatures: S3 does).
      expect(new URL(url!).searchParams.get('X-Amz-Expires')).toBe('60');
      expect(new URL(url!).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    },
  );
});

describe('the disk blob store', () => {
  it('refuses a key that would leave its folder', async () => {
    const store = diskBlobStore(mkdtempSync(join(scratch, 'escape-')));
    await expect(store.read('../outside', 0, 1)).rejects.toThrow(/bad object key/);
  });
});

describe('S3_* configuration', () => {
  // DATA_DIR in the suite's scratch folder (removed after it), read when a test runs.
  const base = () => ({ DATA_DIR: join(scratch, 'config'), SECRET_KEY: 'x'.repeat(40) });
  it('is off without S3_BUCKET, and read in full with it', () => {
    expect(loadConfig(base()).s3).toBeNull();
    expect(
      loadConfig({
        ...base(),
        S3_BUCKET: 'media.example',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PREFIX: 'vss/',
      }).s3,
    ).toEqual({
      bucket: 'media.example',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      prefix: 'vss/',
    });
  });

  it('refuses bad values, naming the variable', () => {
    const bad = (env: Record<string, string>, message: RegExp) =>
      expect(() => loadConfig({ ...base(), ...env })).toThrow(message);
    bad({ S3_ENDPOINT: 'http://127.0.0.1:9000' }, /S3_ENDPOINT set without S3_BUCKET/);
    bad({ S3_BUCKET: 'Bad_Bucket' }, /S3_BUCKET must be a bucket name/);
    bad({ S3_BUCKET: 'ok-bucket', S3_ENDPOINT: 'ftp://x' }, /S3_ENDPOINT/);
    bad({ S3_BUCKET: 'ok-bucket', S3_ACCESS_KEY_ID: 'id' }, /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
    bad({ S3_BUCKET: 'ok-bucket', S3_PREFIX: 'no-slash' }, /S3_PREFIX/);
    bad({ S3_BUCKET: 'ok-bucket', S3_FORCE_PATH_STYLE: 'maybe' }, /S3_FORCE_PATH_STYLE/);
    expect(() => loadConfig({ ...base(), S3_BUCKET: 'x' })).toThrow(ConfigError);
  });
});
