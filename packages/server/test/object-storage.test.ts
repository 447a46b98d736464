import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3BlobStore } from '../src/blobs/s3.js';
import { sqliteStreamStore } from '../src/streams/sqlite.js';
import {
  call,
  createSession,
  ENGINE,
  startApp,
  tenant,
  type Res,
  type TestApp,
  type Tenant,
} from './support/app.js';
import { waitForJob } from './support/exports.js';
import { h264Camera, pcmVoice, recordSession, type Planned } from './support/media.js';
import { startS3, type LocalS3 } from './support/s3.js';
import { eventually } from './support/wait.js';
import { filesHaving } from './support/files.js';

/** Every event of a session through the playback route, by seq. */
async function playback(t: TestApp, key: string, sessionId: string): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  let baseSeq: number | null = null;
  for (;;) {
    const q: string = `from_ts=0&window_size=300000${baseSeq === null ? '' : `&base_seq=${baseSeq}`}`;
    const res: Res = await call(t, 'GET', `/v1/sessions/${sessionId}/playback?${q}`, { key });
    if (res.status !== 200) throw new Error(`playback: ${res.status} ${res.raw}`);
    for (const e of res.body.data.events) out.set(e.seq, `${e.stream_id} ${e.body_base64}`);
    if (res.body.data.next_base_seq === null) return out;
    baseSeq = res.body.data.next_base_seq;
  }
}

/** A camera frame made recognisable: the H.264 frame with a marker naming it appended (EVC1 keeps it). */
function marked(plan: Planned[], user: string): Planned[] {
  return plan.map((m, i) =>
    m.payload ? { ...m, payload: Buffer.concat([m.payload, Buffer.from(`<${user} ${i}>`)]) } : m,
  );
}

describe.runIf(ENGINE === 'sqlite')(
  'recordings and exports in an S3 bucket (embedded default + s3rver)',
  () => {
    let s3: LocalS3;
    let t: TestApp;
    let a: Tenant;
    beforeAll(async () => {
      s3 = await startS3();
      t = await startApp({ env: { ...s3.env, SESSION_DEPARTURE_TIMEOUT_S: '0' } });
      a = await tenant(t);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await s3?.stop();
    });

    it('seals a recording into the bucket, reads it from there, exports to it and deletes it all with the session', async () => {
      const s = await createSession(t, a.key);
      await recordSession(t, a.key, s.id, [
        ...(await h264Camera('alice', 'red', 2)),
        ...pcmVoice('alice', 440, 2),
      ]);
      // Sealed once announced: every segment (the last holds `recording.ready`) is in the bucket.
      await eventually(
        async () => {
          const local = readdirSync(join(t.dataDir, 'segments', s.id)).map((n) => `segments/${s.id}/${n}`);
          return local.length > 0 && (await s3.list(`segments/${s.id}/`)).join() === local.sort().join();
        },
        20_000,
        'segments in the bucket',
      );
      const before = await playback(t, a.key, s.id);
      const db = t.runtime.streams;
      expect(db.files.some((f) => f.endsWith('segments'))).toBe(true);

      // This node's copies gone (as on another node): every event still reads, from the bucket.
      rmSync(join(t.dataDir, 'segments', s.id), { recursive: true, force: true });
      expect(await playback(t, a.key, s.id)).toEqual(before);

      // The export is an object in the bucket, not a file here, and downloads whole, by range, and
      // through a presigned URL, the same bytes.
      const enq = await call(t, 'GET', `/v1/sessions/${s.id}/export`, { key: a.key });
      expect(enq.status).toBe(202);
      const job = await waitForJob(t, a.key, enq.body.data.job_id);
      expect(job.status).toBe('completed');
      expect(await s3.list('exports/')).toContain(`exports/${job.job_id}.mp4`);
      expect(existsSync(join(t.dataDir, 'exports', `${job.job_id}.mp4`))).toBe(false);
      const stored = await s3.store.read(`exports/${job.job_id}.mp4`, 0, job.size_bytes);
      const whole = await fetch(`${await baseUrl(t)}/v1/exports/${job.job_id}/download`, {
        headers: { authorization: `Bearer ${a.key}` },
      });
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(stored)).toBe(true);
      const part = await fetch(`${await baseUrl(t)}/v1/exports/${job.job_id}/download`, {
        headers: { authorization: `Bearer ${a.key}`, range: 'bytes=100-1099' },
      });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 100-1099/${stored.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(stored.subarray(100, 1100))).toBe(true);
      const redirect = await fetch(`${await baseUrl(t)}/v1/exports/${job.job_id}/download?redirect=true`, {
        headers: { authorization: `Bearer ${a.key}` },
        redirect: 'manual',
      });
      expect(redirect.status).toBe(302);
      const direct = await fetch(redirect.headers.get('location')!, { headers: { range: 'bytes=0-99' } });
      expect(direct.status).toBe(206);
      expect(Buffer.from(await direct.arrayBuffer()).equals(stored.subarray(0, 100))).toBe(true);
      // Bad input is named.
      const bad = await call(t, 'GET', `/v1/exports/${job.job_id}/download?redirect=perhaps`, { key: a.key });
      expect(bad.status).toBe(400);
      expect(bad.body.error?.message).toMatch(/redirect/);

      // Deleting the session deletes its objects.
      expect((await call(t, 'DELETE', `/v1/sessions/${s.id}`, { key: a.key })).status).toBe(200);
      expect(await s3.list(`segments/${s.id}/`)).toEqual([]);
      expect(await s3.list(`exports/${job.job_id}`)).toEqual([]);
    }, 120_000);

    it('redacts a participant from the bucket’s objects too', async () => {
      const s = await createSession(t, a.key);
      await recordSession(t, a.key, s.id, [
        ...marked(await h264Camera('alice', 'red', 1), 'alice'),
        ...marked(await h264Camera('bob', 'blue', 1), 'bob'),
      ]);
      await eventually(
        async () => filesHaving(s3.dir, Buffer.from('<alice 3>')).length > 0,
        20_000,
        'stored',
      );
      const res = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/alice`, { key: a.key });
      expect(res.status).toBe(200);
      // No object and no local file holds a byte sequence of alice's; bob's are intact.
      expect(filesHaving(s3.dir, Buffer.from('<alice 3>'))).toEqual([]);
      expect(filesHaving(t.dataDir, Buffer.from('<alice 3>'))).toEqual([]);
      expect(filesHaving(s3.dir, Buffer.from('<bob 3>')).length).toBeGreaterThan(0);
      rmSync(join(t.dataDir, 'segments', s.id), { recursive: true, force: true });
      const after = [...(await playback(t, a.key, s.id)).values()];
      expect(after.filter((e) => e.startsWith('media/alice/'))).toEqual([]);
      expect(after.filter((e) => e.startsWith('media/bob/cam'))).toHaveLength(15);
    }, 120_000);
  },
);

describe.runIf(ENGINE === 'sqlite')('sealed segments while the bucket cannot take them', () => {
  it('keeps them local and stores them on a later pass, once the bucket can', async () => {
    const s3 = await startS3();
    const dir = mkdtempSync(join(tmpdir(), 'vss-later-'));
    // A bucket that does not exist yet: every upload fails until it is created.
    const objects = s3BlobStore({ ...s3.config, bucket: 'created-later' });
    const store = sqliteStreamStore(dir, { objects });
    try {
      const body = (seq: number) => Buffer.from(`body of ${seq}`);
      await store.appendBatch(
        [1, 2, 3].map((seq) => ({ sessionId: 's', seq, streamId: 'chat', ts: seq, body: body(seq) })),
      );
      await expect(store.seal('s')).rejects.toThrow(/created-later/);
      const events: string[] = [];
      for await (const e of store.read('s', {})) events.push(e.body.toString());
      expect(events).toEqual(['body of 1', 'body of 2', 'body of 3']);

      const client = new S3Client({
        region: 'us-east-1',
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      await client.send(new CreateBucketCommand({ Bucket: 'created-later' }));
      client.destroy();
      await store.appendBatch([{ sessionId: 's', seq: 4, streamId: 'chat', ts: 4, body: body(4) }]);
      await store.seal('s');
      expect(await objects.list('segments/s/')).toEqual(['segments/s/0.seg', 'segments/s/1.seg']);
      expect((await objects.read('segments/s/0.seg', 0, 9)).toString()).toBe('body of 1');
    } finally {
      await store.close();
      await objects.close();
      await s3.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

async function baseUrl(t: TestApp): Promise<string> {
  const { listen } = await import('./support/live.js');
  return (await listen(t)).replace(/^ws/, 'http');
}
