import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { waitForJob } from './support/exports.js';
import { h264Camera, pcmVoice, recordSession, type Planned } from './support/media.js';
import { startS3, type LocalS3 } from './support/s3.js';

/**
 * Export files in an S3 bucket (s3rver in a process of its own) against the same exports on local
 * disk: two servers record the same session and render it, and every download must answer the same.
 */

interface Side {
  t: TestApp;
  a: Tenant;
}

async function exportOf(side: Side, sessionId: string): Promise<Record<string, any>> {
  const res = await call(side.t, 'GET', `/v1/sessions/${sessionId}/export`, { key: side.a.key });
  expect(res.status, res.raw).toBe(202);
  const job = await waitForJob(side.t, side.a.key, res.body.data.job_id);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  return job;
}

function download(side: Side, jobId: string, headers: Record<string, string> = {}, query = '') {
  return side.t.app.inject({
    method: 'GET',
    url: `/v1/exports/${jobId}/download${query}`,
    headers: { authorization: `Bearer ${side.a.key}`, ...headers },
  });
}

/** What is left of an export on a server's own disk: its MP4, partial output or scratch. */
function localFiles(t: TestApp, jobId: string): string[] {
  return readdirSync(join(t.dataDir, 'exports')).filter((f) => f.startsWith(`${jobId}.`));
}

describe('exports stored in an S3 bucket', () => {
  let s3: LocalS3;
  let disk: Side;
  let bucket: Side;
  let plan: Planned[];

  beforeAll(async () => {
    s3 = await startS3();
    const [onDisk, inBucket] = await Promise.all([
      startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } }),
      startApp({ env: { ...s3.env, SESSION_DEPARTURE_TIMEOUT_S: '0' } }),
    ]);
    disk = { t: onDisk, a: await tenant(onDisk) };
    bucket = { t: inBucket, a: await tenant(inBucket) };
    plan = [...(await h264Camera('alice', 'red', 2)), ...pcmVoice('alice', 440, 2)];
  }, 60_000);
  afterAll(async () => {
    await disk?.t.close();
    await bucket?.t.close();
    await s3?.stop();
  });

  it('downloads an export from the bucket whole, by range and with If-Range exactly as from local disk', async () => {
    const sessions = await Promise.all(
      [disk, bucket].map(async (side) => {
        const s = await createSession(side.t, side.a.key, 'same recording');
        await recordSession(side.t, side.a.key, s.id, plan);
        return s.id as string;
      }),
    );
    const onDisk = await exportOf(disk, sessions[0]!);
    const inBucket = await exportOf(bucket, sessions[1]!);

    // On disk the MP4 is where it always was; with a bucket it is an object there and nothing is
    // left on the rendering server's disk.
    expect(localFiles(disk.t, onDisk.job_id)).toEqual([`${onDisk.job_id}.mp4`]);
    expect(await s3.list('exports/')).toContain(`exports/${inBucket.job_id}.mp4`);
    expect(localFiles(bucket.t, inBucket.job_id)).toEqual([]);
    const object = await s3.store.read(`exports/${inBucket.job_id}.mp4`, 0, inBucket.size_bytes);
    expect(object.length).toBe(inBucket.size_bytes);

    const wholeDisk = await download(disk, onDisk.job_id);
    const wholeBucket = await download(bucket, inBucket.job_id);
    expect(wholeBucket.statusCode).toBe(200);
    expect(wholeBucket.rawPayload.equals(object)).toBe(true);
    // The same recording renders to the same bytes, wherever the file is kept.
    expect(wholeBucket.rawPayload.equals(wholeDisk.rawPayload)).toBe(true);
    for (const h of ['content-type', 'content-length', 'accept-ranges', 'cache-control'])
      expect(wholeBucket.headers[h], h).toEqual(wholeDisk.headers[h]);
    expect(wholeBucket.headers['content-disposition']).toEqual(wholeDisk.headers['content-disposition']);
    expect(wholeBucket.headers['content-disposition']).toMatch(
      /^attachment; filename=".+ \d{4}-\d{2}-\d{2}\.mp4"; filename\*=UTF-8''/,
    );
    expect(wholeBucket.headers.etag).toBe(`"${inBucket.job_id}-1-${object.length}"`);

    const size = object.length;
    const asks: Array<Record<string, string>> = [
      { range: 'bytes=0-0' },
      { range: 'bytes=0-99' },
      { range: `bytes=100-${size - 2}` },
      { range: 'bytes=-50' },
      { range: `bytes=${size - 10}-` },
      { range: `bytes=${size - 1}-${size + 1000}` },
      { range: `bytes=${size}-` },
      { range: 'bytes=5-1' },
      { range: 'bytes=0-9,20-29' },
      { range: 'pages=1-2' },
      { range: 'bytes=0-9', 'if-range': '"stale"' },
    ];
    for (const ask of asks) {
      const d = await download(disk, onDisk.job_id, ask);
      const b = await download(bucket, inBucket.job_id, ask);
      const what = JSON.stringify(ask);
      expect(b.statusCode, what).toBe(d.statusCode);
      expect(b.headers['content-range'], what).toBe(d.headers['content-range']);
      expect(b.headers['content-length'], what).toBe(d.headers['content-length']);
      expect(b.rawPayload.equals(d.rawPayload), what).toBe(true);
    }
    // A few of those answers spelled out, so that agreeing on a wrong answer cannot pass.
    const mid = await download(bucket, inBucket.job_id, { range: `bytes=100-${size - 2}` });
    expect(mid.statusCode).toBe(206);
    expect(mid.headers['content-range']).toBe(`bytes 100-${size - 2}/${size}`);
    expect(mid.rawPayload.equals(object.subarray(100, size - 1))).toBe(true);
    const first = await download(bucket, inBucket.job_id, { range: 'bytes=0-0' });
    expect(first.statusCode).toBe(206);
    expect(first.rawPayload.equals(object.subarray(0, 1))).toBe(true);
    const beyond = await download(bucket, inBucket.job_id, { range: `bytes=${size}-` });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${size}`);
    const fresh = await download(bucket, inBucket.job_id, {
      range: 'bytes=10-19',
      'if-range': String(wholeBucket.headers.etag),
    });
    expect(fresh.statusCode).toBe(206);
    expect(fresh.rawPayload.equals(object.subarray(10, 20))).toBe(true);
  }, 180_000);

  it('answers redirect=true with a presigned URL of the object, and streams as usual without a bucket', async () => {
    const s = await createSession(bucket.t, bucket.a.key);
    await recordSession(bucket.t, bucket.a.key, s.id, pcmVoice('bob', 660, 1));
    const job = await exportOf(bucket, s.id);
    const object = await s3.store.read(`exports/${job.job_id}.mp4`, 0, job.size_bytes);

    const redirected = await download(bucket, job.job_id, {}, '?redirect=true');
    expect(redirected.statusCode).toBe(302);
    expect(redirected.headers['cache-control']).toBe('no-store');
    const location = new URL(String(redirected.headers.location));
    expect(location.origin).toBe(s3.endpoint);
    expect(location.pathname).toBe(`/${s3.bucket}/exports/${job.job_id}.mp4`);
    // Short-lived: five minutes, as the route's description says.
    expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
    const whole = await fetch(location);
    expect(whole.status).toBe(200);
    // The bucket names the file as the server does.
    const served = await download(bucket, job.job_id);
    expect(whole.headers.get('content-disposition')).toBe(served.headers['content-disposition']);
    expect(Buffer.from(await whole.arrayBuffer()).equals(object)).toBe(true);
    const part = await fetch(location, { headers: { range: 'bytes=20-119' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(object.subarray(20, 120))).toBe(true);

    // redirect=false, or no bucket to presign in: the file itself.
    const streamed = await download(bucket, job.job_id, {}, '?redirect=false');
    expect(streamed.statusCode).toBe(200);
    expect(streamed.rawPayload.equals(object)).toBe(true);
    const ds = await createSession(disk.t, disk.a.key);
    await recordSession(disk.t, disk.a.key, ds.id, pcmVoice('bob', 660, 1));
    const diskJob = await exportOf(disk, ds.id);
    const local = await download(disk, diskJob.job_id, { range: 'bytes=0-9' }, '?redirect=true');
    expect(local.statusCode).toBe(206);
    expect(local.headers.location).toBeUndefined();
    expect(local.rawPayload.length).toBe(10);

    // The URL is only handed to whoever may download the export, and bad values are refused.
    const stranger = await tenant(bucket.t);
    expectError(
      await call(bucket.t, 'GET', `/v1/exports/${job.job_id}/download?redirect=true`, { key: stranger.key }),
      404,
      'NOT_FOUND',
    );
    expect(
      expectError(
        await call(bucket.t, 'GET', `/v1/exports/${job.job_id}/download?redirect=perhaps`, {
          key: bucket.a.key,
        }),
        400,
        'BAD_REQUEST',
      ),
    ).toMatch(/redirect/);
    const pending = await call(bucket.t, 'GET', `/v1/sessions/${s.id}/export?layout=presenter`, {
      key: bucket.a.key,
    });
    const early = await call(
      bucket.t,
      'GET',
      `/v1/exports/${pending.body.data.job_id}/download?redirect=true`,
      {
        key: bucket.a.key,
      },
    );
    // Not yet rendered (409) or already done (302): never a URL of an object that is not there.
    if (early.status !== 302) expectError(early, 409, 'CONFLICT');
    await waitForJob(bucket.t, bucket.a.key, pending.body.data.job_id);
  }, 180_000);

  it("deletes an export's object when a participant it shows is redacted, and with its session", async () => {
    const keep = await createSession(bucket.t, bucket.a.key, 'kept');
    await recordSession(bucket.t, bucket.a.key, keep.id, pcmVoice('dan', 440, 1));
    const kept = await exportOf(bucket, keep.id);

    const s = await createSession(bucket.t, bucket.a.key, 'deleted');
    await recordSession(bucket.t, bucket.a.key, s.id, [
      ...pcmVoice('ivy', 440, 1),
      ...pcmVoice('jon', 660, 1),
    ]);
    const withIvy = await exportOf(bucket, s.id);
    expect(await s3.list(`exports/${withIvy.job_id}`)).toEqual([`exports/${withIvy.job_id}.mp4`]);

    const redacted = await call(bucket.t, 'DELETE', `/v1/sessions/${s.id}/participants/ivy`, {
      key: bucket.a.key,
    });
    expect(redacted.status, redacted.raw).toBe(200);
    expect(await s3.list(`exports/${withIvy.job_id}`)).toEqual([]);
    expect(await s3.store.size(`exports/${withIvy.job_id}.mp4`)).toBeUndefined();
    expectError(
      await call(bucket.t, 'GET', `/v1/exports/${withIvy.job_id}/download`, { key: bucket.a.key }),
      404,
      'NOT_FOUND',
    );

    const jonOnly = await exportOf(bucket, s.id);
    expect(await s3.list(`exports/${jonOnly.job_id}`)).toEqual([`exports/${jonOnly.job_id}.mp4`]);
    expect((await call(bucket.t, 'DELETE', `/v1/sessions/${s.id}`, { key: bucket.a.key })).status).toBe(200);
    expect(await s3.list(`exports/${jonOnly.job_id}`)).toEqual([]);
    expect(existsSync(join(bucket.t.dataDir, 'exports', `${jonOnly.job_id}.mp4`))).toBe(false);
    // Another session's export is untouched, and still downloads.
    expect(await s3.list(`exports/${kept.job_id}`)).toEqual([`exports/${kept.job_id}.mp4`]);
    expect((await download(bucket, kept.job_id)).statusCode).toBe(200);
  }, 180_000);

  it('answers 404 when the object has gone from the bucket behind the server’s back', async () => {
    const s = await createSession(bucket.t, bucket.a.key);
    await recordSession(bucket.t, bucket.a.key, s.id, pcmVoice('eve', 440, 1));
    const job = await exportOf(bucket, s.id);
    await s3.store.delete([`exports/${job.job_id}.mp4`]);
    expectError(
      await call(bucket.t, 'GET', `/v1/exports/${job.job_id}/download?redirect=true`, { key: bucket.a.key }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await call(bucket.t, 'GET', `/v1/exports/${job.job_id}/download`, { key: bucket.a.key }),
      404,
      'NOT_FOUND',
    );
  }, 120_000);
});
