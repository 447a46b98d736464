import { writeFileSync } from 'node:fs';
import { call, type TestApp } from './app.js';
import { eventually } from './wait.js';

/** Running exports through the API: enqueue, wait for the job, download. */

/** Waits for an export job to finish; returns the job. */
export async function waitForJob(
  t: TestApp,
  key: string,
  jobId: string,
  ms = 60_000,
): Promise<Record<string, any>> {
  // Four reads a second: a render takes seconds, and reading faster spends the key's rate limit
  // (1200 a minute), after which every read is refused and the wait could never end.
  return eventually(
    async () => {
      const res = await call(t, 'GET', `/v1/exports/${jobId}`, { key });
      if (res.status !== 200)
        throw new Error(`reading export ${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
      const job = res.body.data;
      return job && (job.status === 'completed' || job.status === 'failed') ? job : null;
    },
    ms,
    `export ${jobId} to finish`,
    250,
  );
}

/** Downloads a completed export (asserting 200) into `file`. */
export async function downloadTo(t: TestApp, key: string, jobId: string, file: string): Promise<void> {
  const dl = await t.app.inject({
    method: 'GET',
    url: `/v1/exports/${jobId}/download`,
    headers: { authorization: `Bearer ${key}` },
  });
  if (dl.statusCode !== 200) throw new Error(`download of ${jobId}: ${dl.statusCode} ${dl.body}`);
  writeFileSync(file, dl.rawPayload);
}

/**
 * Exports a session (`query`: layout and the rest, e.g. `?layout=presenter`), waits for the job,
 * requires it to have completed and downloads the MP4 into `file`. Returns the job.
 */
export async function exportTo(
  t: TestApp,
  key: string,
  sessionId: string,
  file: string,
  query = '',
): Promise<Record<string, any>> {
  const res = await call(t, 'GET', `/v1/sessions/${sessionId}/export${query}`, { key });
  if (res.status !== 202) throw new Error(`export of ${sessionId}: ${res.status} ${res.raw}`);
  const job = await waitForJob(t, key, res.body.data.job_id);
  if (job.status !== 'completed')
    throw new Error(`export ${job.job_id} did not complete: ${JSON.stringify(job)}`);
  await downloadTo(t, key, job.job_id, file);
  return job;
}
