import { describe, expect, it } from 'vitest';
import { call, createSession, useApp, type Tenant, type TestApp } from './support/app.js';
import { eventually } from './support/live.js';
import { pcmVoice, recordSession } from './support/media.js';

describe("a recording's span after the session ended", () => {
  let t: TestApp;
  let a: Tenant;
  useApp(
    (app, tenant) => {
      t = app;
      a = tenant;
    },
    { env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } },
  );

  it('stays where the session ended when timeline events are added later (recording.ready, a redaction)', async () => {
    const s = await createSession(t, a.key, 'span');
    await recordSession(t, a.key, s.id, [...pcmVoice('ann', 440, 1), ...pcmVoice('ben', 220, 1)]);
    const endedAt = Date.parse(
      (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
    );
    // recording.ready is appended to the timeline once the recording is written, after the end.
    await eventually(async () => {
      const timeline = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body.data;
      return timeline.some((e: { type: string }) => e.type === 'recording.ready');
    });
    const before = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
    expect(before.end_ts).toBe(endedAt);

    const later = Date.now() + 50;
    await eventually(() => Date.now() >= later);
    const redacted = await call(t, 'DELETE', `/v1/sessions/${s.id}/participants/ann`, { key: a.key });
    expect(redacted.status).toBe(200);
    const after = (await call(t, 'GET', `/v1/sessions/${s.id}/manifest`, { key: a.key })).body.data;
    expect(after.participants.map((p: { user_id: string }) => p.user_id)).toEqual(['ben']);
    expect(after.start_ts).toBe(before.start_ts);
    expect(after.end_ts).toBe(endedAt);
  });
});
