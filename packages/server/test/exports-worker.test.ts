import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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

describe('a worker process killed outright mid-render', () => {
  let dir: string;
  let schema: string | undefined;
  let t: TestApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vss-export-orphans-'));
    schema = ENGINE === 'postgres' ? `eo_${Math.random().toString(36).slice(2, 10)}` : undefined;
    // This process serves the API and runs no jobs: worker processes take the render.
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

  // Finds the render's processes by their command line in /proc (Linux).
  it.runIf(existsSync('/proc/self/cmdline'))(
    'takes its ffmpeg with it when killed outright; a restart clears what attempts left and the job completes',
    async () => {
      const a = await tenant(t);
      const session = await createSession(t, a.key, 'stretched by a skewed clock');
      // Two seconds of camera, then one frame 30 s later, as a publisher's skewed clock stamps it:
      // a render of 450 output frames, which the dead worker's ffmpeg would go on with. Long enough
      // to be killed mid-way, short enough for the second worker to render it whole on a busy
      // machine (with 120 s it took over two minutes under CI's load).
      const red = await solidJpeg('red');
      const plan: Planned[] = [];
      for (let k = 0; k < 30; k++)
        plan.push({
          user: 'alice',
          atMs: Math.round((k * 1000) / 15),
          stream: 'media/alice/cam',
          payload: red,
        });
      plan.push({ user: 'alice', atMs: 30_000, stream: 'media/alice/cam', payload: red });
      await recordSession(t, a.key, session.id, plan);
      const id: string = (await call(t, 'GET', `/v1/sessions/${session.id}/export`, { key: a.key })).body.data
        .job_id;
      const exportsDir = join(dir, 'exports');
      const part = `${id}.1.part`;
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
      // Gone, or dead and waiting to be reaped (no init reaps orphans in some containers).
      const running = (pid: string) => {
        try {
          return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
        } catch {
          return false;
        }
      };

      const first = await startWorker();
      let pids: string[] = [];
      try {
        await eventually(
          () => readdirSync(exportsDir).includes(part) && (pids = renderers()).length > 0,
          30_000,
          `the worker to start rendering (its output: ${first.out()})`,
        );
        first.child.kill('SIGKILL');
        await first.exited;
      } finally {
        if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
      }
      await eventually(() => pids.every((p) => !running(p)), 5_000, "the dead worker's ffmpeg to stop");
      // What the dead attempt left, and what an attempt of an export that is gone left.
      expect(readdirSync(exportsDir).filter((f) => f.startsWith(`${id}.1.`)).length).toBeGreaterThan(0);
      const gone = 'exportthatisgone';
      writeFileSync(join(exportsDir, `${gone}.2.part`), 'partial');
      mkdirSync(join(exportsDir, `${gone}.2.work`));
      writeFileSync(join(exportsDir, `${gone}.2.work`, 'graph.txt'), 'scratch');

      // A new worker on the same DATA_DIR: the dead one's lease runs out (2 s), it renders the job
      // whole. Its own lease is longer (15 s, renewed and reaped every 5 s): on a loaded machine a
      // 2 s lease was not always renewed in time, and each attempt was then taken over by the next
      // before it could finish.
      const second = await startWorker(15);
      try {
        await eventually(
          () => readdirSync(exportsDir).every((f) => !f.startsWith(`${gone}.`)),
          30_000,
          `the restarted worker to clear what interrupted attempts left (its output: ${second.out()})`,
        );
        const job = await waitForJob(t, a.key, id, 120_000).catch(async (err: Error) => {
          const res = await call(t, 'GET', `/v1/exports/${id}`, { key: a.key });
          const last = { status: res.status, ...res.body };
          throw new Error(
            `${err.message}; the job: ${JSON.stringify(last)}; its files: ${readdirSync(exportsDir).join(' ')}; ` +
              `the second worker's output: ${second.out()}`,
          );
        });
        expect(job).toMatchObject({ status: 'completed', attempts: 2, error: null });
        expect(readdirSync(exportsDir).filter((f) => f.startsWith(id))).toEqual([`${id}.mp4`]);
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    },
    180_000,
  );

  it('an idle worker waits for work: an export asked for after it started is rendered', async () => {
    const worker = await startWorker(15);
    try {
      await eventually(() => worker.out().includes('vss worker running jobs'), 30_000, 'the worker to start');
      // Nothing to do yet. The work comes after it started, as it does for a worker kept running.
      const a = await tenant(t);
      const session = await createSession(t, a.key, 'after the worker started');
      const red = await solidJpeg('red');
      await recordSession(
        t,
        a.key,
        session.id,
        Array.from({ length: 15 }, (_, k) => ({
          user: 'alice',
          atMs: Math.round((k * 1000) / 15),
          stream: 'media/alice/cam',
          payload: red,
        })),
      );
      const id: string = (await call(t, 'GET', `/v1/sessions/${session.id}/export`, { key: a.key })).body.data
        .job_id;
      const job = await waitForJob(t, a.key, id, 60_000).catch((err: Error) => {
        throw new Error(
          `${err.message}; the worker ${worker.child.exitCode === null ? 'runs' : `exited (${worker.child.exitCode})`}: ${worker.out()}`,
        );
      });
      expect(job).toMatchObject({ status: 'completed', error: null });
      expect(worker.child.exitCode, 'the worker is still running').toBeNull();
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
  }, 90_000);

  /** A `npm run worker` process on this test's storage. */
  /** `leaseS`: how long its claims last without renewal (short: its death is seen soon). */
  async function startWorker(leaseS = 2) {
    const child = spawn(process.execPath, serverCommand('worker'), {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dir,
        // What it claimed and when, for a failure's message.
        LOG_LEVEL: 'info',
        EXPORT_LEASE_S: String(leaseS),
        ...(schema ? { DATABASE_URL: await pgSchemaUrl(PG_URL, schema) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise((ok) => child.once('exit', ok));
    return { child, out: () => out, exited };
  }
});
