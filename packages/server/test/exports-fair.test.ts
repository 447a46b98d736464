import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  ENGINE,
  expectError,
  PG_URL,
  REDIS_URL,
  startApp,
  tenant,
  type TestApp,
} from './support/app.js';
import { waitForJob } from './support/exports.js';
import { recordSession, solidJpeg, type Planned } from './support/media.js';
import { dropPgSchema, pgSchemaUrl, serverCommand } from './support/process.js';

/** Exports of one organisation queued at once. */
const QUEUE_CAP = 6;

describe('one organisation filling the export queue', () => {
  let dir: string;
  let schema: string | undefined;
  let t: TestApp;
  const workers: Array<ReturnType<typeof spawn>> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vss-export-fair-'));
    schema = ENGINE === 'postgres' ? `ef_${Math.random().toString(36).slice(2, 10)}` : undefined;
    const env = {
      SESSION_DEPARTURE_TIMEOUT_S: '0',
      EXPORT_RUNNING_PER_ORG: '1',
      EXPORT_QUEUE_PER_ORG: String(QUEUE_CAP),
      ...(REDIS_URL ? { REDIS_URL } : {}),
    };
    // This process serves the API and runs no jobs: two worker processes render, one at a time each.
    t = await startApp({ dataDir: dir, pgSchema: schema, env: { ...env, JOB_WORKER: 'false' } });
    for (let k = 0; k < 2; k++)
      workers.push(
        spawn(process.execPath, serverCommand('worker'), {
          env: {
            PATH: process.env.PATH ?? '',
            DATA_DIR: dir,
            LOG_LEVEL: 'warn',
            EXPORT_CONCURRENCY: '1',
            ...env,
            ...(schema ? { DATABASE_URL: await pgSchemaUrl(PG_URL, schema) } : {}),
          },
          stdio: 'ignore',
        }),
      );
  });
  afterAll(async () => {
    for (const w of workers) {
      if (w.exitCode !== null || w.signalCode !== null) continue;
      const exited = new Promise((ok) => w.once('exit', ok));
      w.kill('SIGKILL');
      await exited;
    }
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
    if (schema) await dropPgSchema(PG_URL, schema);
  });

  it("cannot hold every worker: another organisation's export is claimed before the first one's third, and its queue is capped", async () => {
    const red = await solidJpeg('red');
    const camera = (seconds: number, stretchedToMs?: number): Planned[] => {
      const plan: Planned[] = [];
      for (let k = 0; k < seconds * 15; k++)
        plan.push({
          user: 'alice',
          atMs: Math.round((k * 1000) / 15),
          stream: 'media/alice/cam',
          payload: red,
        });
      if (stretchedToMs)
        plan.push({ user: 'alice', atMs: stretchedToMs, stream: 'media/alice/cam', payload: red });
      return plan;
    };
    // Organisation A: two seconds of camera stretched to 20 s by one late frame (a skewed clock).
    const a = await tenant(t);
    const long = await createSession(t, a.key, 'stretched');
    await recordSession(t, a.key, long.id, camera(2, 20_000));
    const b = await tenant(t);
    const short = await createSession(t, b.key, 'one second');
    await recordSession(t, b.key, short.id, camera(1));

    const ofA: string[] = [];
    for (let k = 0; k < QUEUE_CAP; k++) {
      const res = await call(t, 'GET', `/v1/sessions/${long.id}/export`, { key: a.key });
      expect(res.status).toBe(202);
      ofA.push(res.body.data.job_id);
    }
    // Past its cap, the organisation is told to come back later; nothing is queued.
    const over = await call(t, 'POST', `/v1/sessions/${long.id}/exports`, {
      key: a.key,
      body: { layout: 'grid' },
    });
    expectError(over, 429, 'RATE_LIMITED');
    expect(over.body.error?.message).toMatch(/6 exports queued or rendering/);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await call(t, 'GET', `/v1/sessions/${long.id}/exports`, { key: a.key })).body.data).toHaveLength(
      QUEUE_CAP,
    );

    const res = await call(t, 'GET', `/v1/sessions/${short.id}/export`, { key: b.key });
    expect(res.status).toBe(202);
    const job = await waitForJob(t, b.key, res.body.data.job_id, 120_000);
    expect(job.status).toBe('completed');
    // A runs one render at a time whatever its backlog: B's export took the other worker.
    const startedA = await Promise.all(
      ofA.map(async (id) => (await call(t, 'GET', `/v1/exports/${id}`, { key: a.key })).body.data.started_at),
    );
    const before = startedA.filter((s) => s !== null && Date.parse(s) <= Date.parse(job.started_at));
    expect(before.length).toBeLessThanOrEqual(2);

    // And A's backlog is still rendered, whole.
    for (const id of ofA) expect((await waitForJob(t, a.key, id, 240_000)).status).toBe('completed');
  }, 300_000);
});
