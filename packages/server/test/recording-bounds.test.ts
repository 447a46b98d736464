import { afterAll, describe, expect, it } from 'vitest';
import { call, createSession, useApp, type Tenant, type TestApp } from './support/app.js';
import { eventually } from './support/live.js';
import { pcmVoice, recordSession } from './support/media.js';
import { clockAhead, realClock } from './support/wait.js';

describe("a recording's span after the session ended", () => {
  let t: TestApp;
  let a: Tenant;
  // After hooks run in reverse: the clock goes back once the app has closed.
  afterAll(realClock);
  useApp(
    (app, tenant) => {
      t = app;
      a = tenant;
    },
    { env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } },
  );

  it("stays at the last leave when timeline events are added later (the session's end, recording.ready, a redaction)", async () => {
    const s = await createSession(t, a.key, 'span');
    await recordSession(t, a.key, s.id, [...pcmVoice('ann', 440, 1), ...pcmVoice('ben', 220, 1)]);
    // recording.ready is appended to the timeline once the recording is written, after the end.
    const timeline: Array<{ type: string; ts: number }> = await eventually(async () => {
      const events = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body.data;
      return events.some((e: { type: string }) => e.type === 'recording.ready') ? events : null;
    });
    const lastLeave = Math.max(...timeline.filter((e) => e.type === 'participant.left').map((e) => e.ts));
    const before = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
    expect(before.end_ts).toBe(lastLeave);
    expect(timeline.find((e) => e.type === 'session.ended')!.ts).toBeGreaterThanOrEqual(lastLeave);

    // The redaction's event, a second on the server's clock after the rest.
    clockAhead(1000);
    const redacted = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/ann`, { key: a.key });
    expect(redacted.status).toBe(200);
    const after = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
    expect(after.participants.map((p: { user_id: string }) => p.user_id)).toEqual(['ben']);
    expect(after.start_ts).toBe(before.start_ts);
    expect(after.end_ts).toBe(lastLeave);
  });
});
