import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { join, leave, listen } from './support/live.js';
import { agentToken, mcpClient } from './support/mcp.js';
import { eventually } from './support/wait.js';

const body = (r: any) => JSON.parse(r.content[0].text);
const isRecordingControl = (m: Record<string, any>) => m.type === 'control' && m.event === 'recording';

describe('the recording MCP tools', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
  });
  afterAll(() => t?.close());

  const stateOf = async (id: string) =>
    (await call(t, 'GET', `/v1/sessions/${id}/recording-rules`, { key: a.key })).body.data;

  it('with mcp:write sets the rules, pauses and resumes as the REST API does; participants are told', async () => {
    const s = await createSession(t, a.key, 'recorded');
    const host = await join(t, a.key, s.id, 'host');
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read', 'mcp:write']));
    const tools = (await client.listTools()).tools;
    for (const name of ['set_recording_rules', 'pause_recording', 'resume_recording'])
      expect(tools.find((x) => x.name === name)!.annotations, name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });

    // The host alone, and not their screen: later rules win.
    const rules = [
      { type: 'exclude', all: true },
      { type: 'include', user_id: 'host' },
      { type: 'exclude', user_id: 'host', kind: 'screen' },
    ];
    const set = await client.callTool({
      name: 'set_recording_rules',
      arguments: { session_id: s.id, rules },
    });
    expect(set.isError, JSON.stringify(set.content)).toBeFalsy();
    expect(body(set)).toEqual({ session_id: s.id, state: 'recording', paused_at: null, rules });
    expect(await stateOf(s.id)).toEqual(body(set));
    expect((await host.waitForCount(isRecordingControl, 1))[0]!.data).toEqual({
      state: 'recording',
      rules,
      hosts: [],
    });

    const before = Date.now();
    const paused = await client.callTool({ name: 'pause_recording', arguments: { session_id: s.id } });
    expect(paused.isError, JSON.stringify(paused.content)).toBeFalsy();
    expect(body(paused)).toMatchObject({ session_id: s.id, state: 'paused', rules });
    expect(Date.parse(body(paused).paused_at)).toBeGreaterThanOrEqual(before - 1000);
    expect((await stateOf(s.id)).state).toBe('paused');
    expect((await host.waitForCount(isRecordingControl, 2))[1]!.data).toEqual({
      state: 'paused',
      rules,
      hosts: [],
    });

    // Paused already: the API's conflict, as a tool error; nothing changes.
    const again = await client.callTool({ name: 'pause_recording', arguments: { session_id: s.id } });
    expect(again.isError).toBe(true);
    expect(body(again)).toEqual({ code: 'CONFLICT', message: 'the recording is already paused' });

    const resumed = await client.callTool({ name: 'resume_recording', arguments: { session_id: s.id } });
    expect(resumed.isError, JSON.stringify(resumed.content)).toBeFalsy();
    expect(body(resumed)).toEqual({ session_id: s.id, state: 'recording', paused_at: null, rules });
    expect((await host.waitForCount(isRecordingControl, 3))[2]!.data).toEqual({
      state: 'recording',
      rules,
      hosts: [],
    });
    const notPaused = await client.callTool({ name: 'resume_recording', arguments: { session_id: s.id } });
    expect(body(notPaused)).toEqual({ code: 'CONFLICT', message: 'the recording is not paused' });

    // [] records everything again.
    const cleared = await client.callTool({
      name: 'set_recording_rules',
      arguments: { session_id: s.id, rules: [] },
    });
    expect(body(cleared).rules).toEqual([]);
    await client.close();

    const timeline = (await call(t, 'GET', `/v1/sessions/${s.id}/timeline`, { key: a.key })).body.data;
    expect(timeline.filter((e: any) => e.type.startsWith('recording.')).map((e: any) => e.type)).toEqual([
      'recording.rules_changed',
      'recording.paused',
      'recording.resumed',
      'recording.rules_changed',
    ]);
    const activity = (await call(t, 'GET', '/v1/agent-activity', { key: a.key })).body.data;
    expect(activity.slice(0, 6).map((r: any) => [r.tool, r.status, r.error_code, r.session_id])).toEqual([
      ['set_recording_rules', 'succeeded', null, s.id],
      ['resume_recording', 'failed', 'CONFLICT', s.id],
      ['resume_recording', 'succeeded', null, s.id],
      ['pause_recording', 'failed', 'CONFLICT', s.id],
      ['pause_recording', 'succeeded', null, s.id],
      ['set_recording_rules', 'succeeded', null, s.id],
    ]);
    await leave(host);
  });

  it('refuses a token with only mcp:read for each of the three, and changes nothing', async () => {
    const s = await createSession(t, a.key);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read']));
    for (const [name, args] of [
      ['set_recording_rules', { session_id: s.id, rules: [{ type: 'exclude', all: true }] }],
      ['pause_recording', { session_id: s.id }],
      ['resume_recording', { session_id: s.id }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      expect(body(r)).toEqual({ code: 'FORBIDDEN', message: `${name} needs the mcp:write scope` });
    }
    await client.close();
    expect(await stateOf(s.id)).toEqual({ session_id: s.id, state: 'recording', paused_at: null, rules: [] });
    const rows = (await call(t, 'GET', '/v1/agent-activity', { key: a.key })).body.data.slice(0, 3);
    expect(rows.map((r: any) => [r.tool, r.status, r.error_code, r.session_id])).toEqual([
      ['resume_recording', 'refused', 'FORBIDDEN', s.id],
      ['pause_recording', 'refused', 'FORBIDDEN', s.id],
      ['set_recording_rules', 'refused', 'FORBIDDEN', s.id],
    ]);
  });

  it('refuses bad rules naming the field, unknown and foreign sessions, and an ended one', async () => {
    const s = await createSession(t, a.key);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read', 'mcp:write']));
    const refused = async (name: string, args: Record<string, unknown>, match: RegExp) => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(r.content), JSON.stringify(args)).toMatch(match);
    };
    const setRules = (rules: unknown, match: RegExp) =>
      refused('set_recording_rules', { session_id: s.id, rules }, match);
    await setRules([{ type: 'exclude', kind: 'video' }], /rules\[0\]\.kind/);
    await setRules(
      [
        { type: 'exclude', all: true },
        { type: 'drop', all: true },
      ],
      /rules\[1\]\.type/,
    );
    await setRules([{ type: 'exclude' }], /a rule names user_id or host, kind, or both.*rules\[0\]\.user_id/);
    await setRules(
      [{ type: 'include', all: true, kind: 'mic' }],
      /"all\\" matches every stream.*rules\[0\]\.all/,
    );
    await setRules([{ type: 'exclude', user_id: 'a b' }], /rules\[0\]\.user_id/);
    await setRules([{ type: 'exclude', all: true, extra: 1 }], /extra/);
    await setRules(
      Array.from({ length: 101 }, () => ({ type: 'exclude', all: true })),
      /100.*rules|rules.*100/,
    );
    await setRules('exclude everyone', /rules/);
    await refused('set_recording_rules', { session_id: s.id }, /rules/);
    await refused('pause_recording', { session_id: 'nope' }, /session_id/);
    await refused('pause_recording', { session_id: '00000000-0000-4000-8000-000000000000' }, /NOT_FOUND/);
    const b = await tenant(t);
    const foreign = (await createSession(t, b.key)).id;
    await refused('set_recording_rules', { session_id: foreign, rules: [] }, /NOT_FOUND/);
    await refused('pause_recording', { session_id: foreign }, /NOT_FOUND/);
    expect(await stateOf(s.id)).toMatchObject({ state: 'recording', rules: [] });

    // The session ends: there is no recording to pause or resume any more.
    await leave(await join(t, a.key, s.id, 'host'));
    await eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
      10_000,
      'the session to end',
    );
    await refused('pause_recording', { session_id: s.id }, /CONFLICT.*the session has ended/);
    await refused('resume_recording', { session_id: s.id }, /CONFLICT.*the session has ended/);
    await client.close();
  });
});
