import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { waitForJob } from './support/exports.js';
import { recordSession, solidJpeg } from './support/media.js';
import { join, jpeg, leave, publish } from './support/live.js';

/** A participant's clock cannot stretch a recording, and no recording holds the export queue. */

const isControl = (event: string) => (m: Record<string, any>) => m.type === 'control' && m.event === event;
const DAY = 86_400_000;

describe('timestamps from a participant', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  it('are refused more than LIVE_CLOCK_SKEW_S (120 s) from the server clock, either way; the recording keeps its span', async () => {
    const s = await createSession(t, a.key);
    const alice = await join(t, a.key, s.id, 'alice');
    const now = Date.now();
    const refused = [
      ['year', now + 365 * DAY],
      ['five-minutes', now + 5 * 60_000],
      ['past', now - 10 * 60_000],
      ['epoch', 1],
      ['far', 9e15],
    ] as const;
    for (const [id, ts] of refused) alice.send(publish('media/alice/cam', jpeg(1), { id, timestamp_ms: ts }));
    alice.send(publish('media/alice/cam', jpeg(2), { id: 'ok', timestamp_ms: now + 1000 }));
    alice.send(publish('media/alice/cam', jpeg(3), { id: 'default' }));
    const errors = await alice.waitForCount(isControl('error'), refused.length);
    expect(errors.map((e) => e.data.id).sort()).toEqual(refused.map(([id]) => id).sort());
    for (const e of errors) {
      expect(e.data.code).toBe('BAD_MESSAGE');
      expect(e.data.message).toMatch(/^timestamp_ms must be within 120 s of the server's clock/);
    }
    const acks = await alice.waitForCount(isControl('ack'), 2);
    expect(acks.map((m) => m.data.id).sort()).toEqual(['default', 'ok']);
    await leave(alice);

    const manifest = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
    const track = manifest.participants[0].tracks.find((x: { kind: string }) => x.kind === 'cam');
    expect(track.end_ts - track.start_ts).toBeLessThan(5_000);
  });
});

describe('a render that outlives its deadline', () => {
  let t: TestApp;
  beforeAll(async () => {
    // An operator who allows an hour of clock skew: one participant can record a long, empty span.
    t = await startApp({
      env: {
        SESSION_DEPARTURE_TIMEOUT_S: '0',
        LIVE_CLOCK_SKEW_S: '3600',
        EXPORT_DEADLINE_BASE_S: '30',
        EXPORT_DEADLINE_FACTOR: '0',
      },
    });
  });
  afterAll(() => t.close());

  it('is stopped and fails with a reason, and the next organisation\u2019s export goes through', async () => {
    const red = await solidJpeg('red');
    const mallory = await tenant(t);
    const stretched = await createSession(t, mallory.key, 'stretched');
    // Two frames 50 minutes apart: 45,000 frames to render.
    await recordSession(t, mallory.key, stretched.id, [
      { user: 'm', atMs: 0, stream: 'media/m/cam', payload: red },
      { user: 'm', atMs: 50 * 60_000, stream: 'media/m/cam', payload: red },
    ]);
    const other = await tenant(t);
    const small = await createSession(t, other.key, 'small');
    await recordSession(t, other.key, small.id, [
      { user: 'o', atMs: 0, stream: 'media/o/cam', payload: red },
      { user: 'o', atMs: 2_000, stream: 'media/o/cam', payload: red },
    ]);

    const first = await call(t, 'GET', `/v1/sessions/${stretched.id}/export`, { key: mallory.key });
    const second = await call(t, 'GET', `/v1/sessions/${small.id}/export`, { key: other.key });
    expect([first.status, second.status]).toEqual([202, 202]);
    const stopped = await waitForJob(t, mallory.key, first.body.data.job_id, 120_000);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(
      /^the render took longer than its deadline \(30 s for 3000\.\d s of recording\)/,
    );
    const done = await waitForJob(t, other.key, second.body.data.job_id, 120_000);
    expect(done.status).toBe('completed');
  }, 300_000);
});
