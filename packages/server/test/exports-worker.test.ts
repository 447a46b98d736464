import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  ENGINE,
  expectError,
  PG_URL,
  startApp,
  tenant,
  type TestApp,
} from './support/app.js';
import { decodeVideo } from './support/decode.js';
import { downloadTo, waitForJob } from './support/exports.js';
import { recordSession, solidJpeg, type Planned } from './support/media.js';
import { eventually } from './support/live.js';
import { dropPgSchema, pgSchemaUrl, serverCommand } from './support/process.js';

const SECONDS = 25;

describe('an export whose worker process is killed mid-render', () => {
  let dir: string;
  let schema: string | undefined;
  let t: TestApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vss-export-kill-'));
    schema = ENGINE === 'postgres' ? `ex_${Math.random().toString(36).slice(2, 10)}` : undefined;
    // This process serves the API and runs no jobs until told to: the worker process takes the render.
    t = await startApp({
      dataDir: dir,
      pgSchema: schema,
      env: { JOB_WORKER: 'false', SESSION_DEPARTURE_TIMEOUT_S: '0', EXPORT_LEASE_S: '2' },
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
    if (schema) await dropPgSchema(PG_URL, schema);
  });

  it('is taken up again by another worker once its lease runs out, and no partial file is ever served', async () => {
    const a = await tenant(t);
    const session = await createSession(t, a.key, 'long enough to interrupt');
    const [red, blue] = await Promise.all([solidJpeg('red'), solidJpeg('blue')]);
    const plan: Planned[] = [];
    for (let k = 0; k < SECONDS * 15; k++) {
      plan.push({
        user: 'alice',
        atMs: Math.round((k * 1000) / 15),
        stream: 'media/alice/cam',
        payload: red,
      });
      plan.push({ user: 'bob', atMs: Math.round((k * 1000) / 15), stream: 'media/bob/cam', payload: blue });
    }
    await recordSession(t, a.key, session.id, plan);
    const res = await call(t, 'GET', `/v1/sessions/${session.id}/export`, { key: a.key });
    expect(res.status).toBe(202);
    const id: string = res.body.data.job_id;
    const exportsDir = join(dir, 'exports');

    const worker = spawn(process.execPath, serverCommand('worker'), {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dir,
        LOG_LEVEL: 'warn',
        EXPORT_LEASE_S: '2',
        ...(schema ? { DATABASE_URL: await pgSchemaUrl(PG_URL, schema) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout!.on('data', (d) => (out += d));
    worker.stderr!.on('data', (d) => (out += d));
    const exited = new Promise((ok) => worker.once('exit', ok));
    try {
      // The worker has claimed the job and ffmpeg is writing its output: kill the worker outright.
      await eventually(
        () => existsSync(exportsDir) && readdirSync(exportsDir).some((f) => f === `${id}.1.part`),
        30_000,
        `the worker to start rendering (its output: ${out})`,
      );
      const during = (await call(t, 'GET', `/v1/exports/${id}`, { key: a.key })).body.data;
      expect(during).toMatchObject({ status: 'processing', attempts: 1 });
      worker.kill('SIGKILL');
      await exited;
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    }

    // Nobody holds the job now: it looks in progress, and nothing can be downloaded.
    expect((await call(t, 'GET', `/v1/exports/${id}`, { key: a.key })).body.data.status).toBe('processing');
    expectError(await call(t, 'GET', `/v1/exports/${id}/download`, { key: a.key }), 409, 'CONFLICT');
    expect(readdirSync(exportsDir)).not.toContain(`${id}.mp4`);

    // Another worker (this process) takes it up after the lease and renders it whole.
    t.runtime.jobs.start();
    const job = await waitForJob(t, a.key, id, 90_000);
    expect(job).toMatchObject({ status: 'completed', attempts: 2, error: null });
    expect(readdirSync(exportsDir).filter((f) => f.startsWith(id))).toEqual([`${id}.mp4`]);
    const file = join(dir, 'downloaded.mp4');
    await downloadTo(t, a.key, id, file);
    const v = await decodeVideo(file, 1280, 720);
    expect(Math.abs(v.frames.length - SECONDS * 15)).toBeLessThanOrEqual(1);
  });

  // Finds the render's ffmpeg by its command line in /proc (Linux).
  it.runIf(existsSync('/proc/self/cmdline'))(
    'stops rendering when its session is deleted mid-render: its ffmpeg ends and no file is left',
    async () => {
      const a = await tenant(t);
      const session = await createSession(t, a.key, 'deleted while it renders');
      // Two seconds of camera, then one frame three hours in: a render of 162,000 output frames,
      // minutes of work, against the few seconds it is given to stop below.
      const red = await solidJpeg('red');
      const plan: Planned[] = [];
      for (let k = 0; k < 30; k++)
        plan.push({
          user: 'alice',
          atMs: Math.round((k * 1000) / 15),
          stream: 'media/alice/cam',
          payload: red,
        });
      plan.push({ user: 'alice', atMs: 3 * 3600_000, stream: 'media/alice/cam', payload: red });
      await recordSession(t, a.key, session.id, plan);
      t.runtime.jobs.start();
      const id: string = (await call(t, 'GET', `/v1/sessions/${session.id}/export`, { key: a.key })).body.data
        .job_id;
      const exportsDir = join(dir, 'exports');
      const part = `${id}.1.part`;
      // The processes whose command line names this export's output: its ffmpeg.
      const renderers = () =>
        readdirSync('/proc')
          .filter((p) => /^\d+$/.test(p))
          .filter((p) => {
            try {
              return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(part);
            } catch {
              return false;
            }
          });
      await eventually(
        () => existsSync(exportsDir) && readdirSync(exportsDir).includes(part) && renderers().length > 0,
        30_000,
        'the render to start',
      );
      expect((await call(t, 'GET', `/v1/exports/${id}`, { key: a.key })).body.data.status).toBe('processing');
      expect((await call(t, 'DELETE', `/v1/sessions/${session.id}`, { key: a.key })).status).toBe(200);
      // The lease is renewed every 2/3 s; the renewal that finds the job gone stops the render.
      await eventually(
        () => renderers().length === 0 && readdirSync(exportsDir).every((f) => !f.startsWith(id)),
        4_000,
        'the render to stop and its files to go',
      );
      expectError(await call(t, 'GET', `/v1/exports/${id}`, { key: a.key }), 404, 'NOT_FOUND');
    },
  );
});
