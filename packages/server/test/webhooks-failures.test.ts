import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { waitForJob } from './support/exports.js';
import { jpeg } from './support/live.js';
import { pcmVoice, recordSession, type Planned } from './support/media.js';
import { startS3, type LocalS3 } from './support/s3.js';
import { eventually } from './support/wait.js';
import { receiver, verifies, verifiesStandard, type Hit, type Receiver } from './support/webhooks.js';

/** Webhooks of the project hear of these, signed: nothing else is subscribed. */
async function hookFor(t: TestApp, who: Tenant, url: string, events: string[]) {
  const res = await call(t, 'POST', '/v1/webhooks', { key: who.key, body: { url, events } });
  if (res.status !== 201) throw new Error(`webhook create failed: ${res.raw}`);
  return res.body.data as { id: string; secret: string };
}

/** Deliveries of these webhooks still queued or running: none means nothing more is coming. */
async function pending(t: TestApp, hookIds: string[]): Promise<number> {
  const rows = await t.runtime.database.db
    .selectFrom('jobs')
    .select('id')
    .where('group_key', 'in', hookIds)
    .where('status', 'in', ['queued', 'running'])
    .execute();
  return rows.length;
}

describe('export.failed', () => {
  let t: TestApp;
  let a: Tenant;
  let r: Receiver;
  beforeAll(async () => {
    t = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SESSION_DEPARTURE_TIMEOUT_S: '0' },
      jobPollMs: 100,
    });
    a = await tenant(t);
    r = await receiver();
  });
  afterAll(async () => {
    await r?.close();
    await t?.close();
  });

  it('is delivered signed, with the job and its error, when a render fails for good, and the timeline records it', async () => {
    const hook = await hookFor(t, a, r.url, ['export.completed', 'export.failed']);
    // JPEG markers around bytes that are not a picture: ffmpeg refuses them, and would again.
    const broken = await createSession(t, a.key, 'undecodable');
    const frames: Planned[] = Array.from({ length: 20 }, (_, k) => ({
      user: 'dave',
      atMs: k * 66,
      stream: 'media/dave/cam',
      payload: jpeg(k, 2000),
    }));
    await recordSession(t, a.key, broken.id, frames);
    const res = await call(t, 'GET', `/v1/sessions/${broken.id}/export`, { key: a.key });
    expect(res.status, res.raw).toBe(202);
    const jobId = res.body.data.job_id;

    const hit: Hit = await eventually(() => r.hits.find((h) => h.body?.data?.job_id === jobId), 60_000);
    expect(verifies(hook.secret, hit)).toBe(true);
    expect(verifiesStandard(hook.secret, hit)).toBe(true);
    expect(hit.body).toMatchObject({
      type: 'export.failed',
      project_id: a.projectId,
      session_id: broken.id,
    });
    // The data is the job as the API shows it once failed: its error and the end of ffmpeg's log.
    const job = await waitForJob(t, a.key, jobId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(hit.body.data).toEqual(job);
    expect(hit.body.data.error).toMatch(/^ffmpeg failed \(exit code \d+\)/);
    expect(hit.body.data.error_log).not.toContain(t.dataDir);

    const entry = await eventually(async () => {
      const tl = await call(t, 'GET', `/v1/sessions/${broken.id}/timeline`, { key: a.key });
      return tl.body.data.find((e: { type: string }) => e.type === 'export.failed');
    });
    expect(entry).toMatchObject({ actor: 'system', data: { job_id: jobId, status: 'failed' } });
    expect(entry.data.error).toBe(job.error);

    // Told once, and nothing of it as completed.
    await eventually(async () => (await pending(t, [hook.id])) === 0, 10_000, 'deliveries settled');
    expect(r.hits.filter((h) => h.body?.data?.job_id === jobId).map((h) => h.body.type)).toEqual([
      'export.failed',
    ]);
  }, 120_000);
});

describe('recording.failed', () => {
  let s3: LocalS3;
  let t: TestApp;
  let a: Tenant;
  let r: Receiver;
  beforeAll(async () => {
    s3 = await startS3();
    // Object storage that answers, and refuses every upload: the bucket named does not exist.
    t = await startApp({
      env: {
        ...s3.env,
        S3_BUCKET: 'never-created',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        SESSION_DEPARTURE_TIMEOUT_S: '0',
        // Three attempts at sealing, close together, so that the last one comes within the test.
        RECORDING_RETRY_DELAYS_S: '0.1,0.2',
      },
      jobPollMs: 100,
    });
    a = await tenant(t);
    r = await receiver();
  }, 60_000);
  afterAll(async () => {
    await r?.close();
    await t?.close();
    await s3?.stop();
  });

  it('is delivered signed, naming the stage and the error, when sealing fails its last attempt', async () => {
    const hook = await hookFor(t, a, r.url, ['recording.ready', 'recording.failed']);
    const session = await createSession(t, a.key, 'unstored');
    await recordSession(t, a.key, session.id, pcmVoice('erin', 440, 1));

    const failed: Hit = await eventually(
      () => r.hits.find((h) => h.body?.type === 'recording.failed'),
      30_000,
      'recording.failed',
    );
    expect(verifies(hook.secret, failed)).toBe(true);
    expect(verifiesStandard(hook.secret, failed)).toBe(true);
    expect(failed.body).toMatchObject({
      type: 'recording.failed',
      project_id: a.projectId,
      session_id: session.id,
      data: { stage: 'seal' },
    });
    expect(Object.keys(failed.body.data).sort()).toEqual(['error', 'stage']);
    expect(failed.body.data.error).toMatch(/never-created/);
    expect(failed.body.data.error).not.toContain(t.dataDir);

    // The recording was announced first; sealing then failed all three of its attempts, for good.
    const types = r.hits.filter((h) => h.body?.session_id === session.id).map((h) => h.body.type);
    expect(types).toEqual(['recording.ready', 'recording.failed']);
    const seal = await t.runtime.database.db
      .selectFrom('jobs')
      .select(['status', 'attempts', 'last_error'])
      .where('kind', '=', 'recording.seal')
      .where('payload', 'like', `%${session.id}%`)
      .executeTakeFirstOrThrow();
    expect(seal).toMatchObject({ status: 'failed', attempts: 3 });
    await eventually(async () => (await pending(t, [hook.id])) === 0, 10_000, 'deliveries settled');
    expect(r.hits.filter((h) => h.body?.type === 'recording.failed')).toHaveLength(1);
    // The recording still plays from this server's own storage.
    const manifest = await call(t, 'GET', `/v1/sessions/${session.id}/manifest`, { key: a.key });
    expect(manifest.status, manifest.raw).toBe(200);
  }, 60_000);
});
