import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { waitForJob } from './support/exports.js';
import { evc1, h264Of, recordSession, type Planned } from './support/media.js';

/**
 * The name an export downloads under: the session's (made safe for a file name), with the day of
 * the recording, or a clip's span; in ASCII and in UTF-8 (RFC 6266).
 */

let t: TestApp;
let a: Tenant;
let session: string;
let startMs: number;
beforeAll(async () => {
  t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
  a = await tenant(t);
  session = (await createSession(t, a.key, 'Café: weekly/sync')).id;
  const chunks = await h264Of('color=c=red:s=160x120:r=5', 4, 5, 10);
  const plan: Planned[] = chunks.map((c) => ({
    user: 'cam',
    atMs: c.offsetUs / 1000,
    stream: 'media/cam/cam',
    payload: evc1('avc1.42c00c', c, 0),
  }));
  ({ startMs } = await recordSession(t, a.key, session, plan));
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Exports with `body`, waits for it, and answers its download's Content-Disposition. */
async function disposition(body: Record<string, unknown>): Promise<string> {
  const res = await call(t, 'POST', `/v1/sessions/${session}/exports`, { key: a.key, body });
  expect(res.status, res.raw).toBe(202);
  const job = await waitForJob(t, a.key, res.body.data.job_id);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const dl = await t.app.inject({
    method: 'GET',
    url: `/v1/exports/${job.job_id}/download`,
    headers: { authorization: `Bearer ${a.key}` },
  });
  expect(dl.statusCode).toBe(200);
  return dl.headers['content-disposition'] as string;
}

it("names the whole recording after the session and the day it was recorded, ':' and '/' left out", async () => {
  const day = new Date(startMs).toISOString().slice(0, 10);
  expect(await disposition({})).toBe(
    `attachment; filename="Cafe weekly sync ${day}.mp4"; filename*=UTF-8''Caf%C3%A9%20weekly%20sync%20${day}.mp4`,
  );
});

it("names a clip after the session and its span from the recording's start", async () => {
  expect(await disposition({ from_ts: startMs + 1_000, to_ts: startMs + 3_000 })).toBe(
    `attachment; filename="Cafe weekly sync 00-00-01-00-00-03.mp4"; filename*=UTF-8''Caf%C3%A9%20weekly%20sync%2000-00-01%E2%80%9300-00-03.mp4`,
  );
  // Without an end: to the end of the recording (its last frame at 3.8 s), the end rounded up.
  expect(await disposition({ from_ts: startMs + 2_000 })).toBe(
    `attachment; filename="Cafe weekly sync 00-00-02-00-00-04.mp4"; filename*=UTF-8''Caf%C3%A9%20weekly%20sync%2000-00-02%E2%80%9300-00-04.mp4`,
  );
});
