import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSession,
  expectError,
  startApp,
  tenant,
  type Tenant,
  type TestApp,
} from './support/app.js';
import { listen } from './support/live.js';
import { agentToken, mcpClient, postMcp } from './support/mcp.js';
import { pcmVoice, recordSession } from './support/media.js';
import { waitForJob } from './support/exports.js';

const body = (r: any) => JSON.parse(r.content[0].text);

describe('the MCP endpoint with agent tokens', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
  });
  afterAll(() => t?.close());

  it('lists every tool with its schema, reads with mcp:read, and refuses a write tool to a read token', async () => {
    const s = await createSession(t, a.key, 'standup');
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read']));
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([
      'create_connection_token',
      'create_join_link',
      'create_replay_link',
      'create_session',
      'get_chat',
      'get_event_timeline',
      'get_export',
      'get_limits',
      'get_manifest',
      'get_playback_timeline',
      'get_session',
      'get_usage',
      'list_exports',
      'list_sessions',
      'pause_recording',
      'redact_participant',
      'resume_recording',
      'set_recording_rules',
      'set_visibility',
      'start_export',
    ]);
    expect(tools.find((x) => x.name === 'redact_participant')!.annotations).toMatchObject({
      destructiveHint: true,
    });
    const got = await client.callTool({ name: 'get_session', arguments: { session_id: s.id } });
    expect(got.isError).toBeFalsy();
    expect(body(got)).toMatchObject({ id: s.id, name: 'standup' });

    const write = await client.callTool({ name: 'create_session', arguments: { name: 'x' } });
    expect(write.isError).toBe(true);
    expect(body(write)).toEqual({ code: 'FORBIDDEN', message: 'create_session needs the mcp:write scope' });

    const bad = await client.callTool({ name: 'get_session', arguments: { session_id: 'nope' } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/session_id/);
    const missing = await client.callTool({
      name: 'get_session',
      arguments: { session_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(body(missing)).toMatchObject({ code: 'NOT_FOUND' });
    await client.close();

    const activity = await call(t, 'GET', '/v1/agent-activity', { key: a.key });
    expect(activity.body.data.map((r: any) => [r.tool, r.status, r.error_code])).toEqual([
      ['get_session', 'failed', 'NOT_FOUND'],
      ['get_session', 'failed', 'BAD_REQUEST'],
      ['create_session', 'refused', 'FORBIDDEN'],
      ['get_session', 'succeeded', null],
    ]);
  });

  it('writes with mcp:write; a token of another organisation sees nothing of this one; a deleted token is refused at once', async () => {
    const secret = await agentToken(t, a, ['mcp:read', 'mcp:write']);
    const client = await mcpClient(base, secret);
    const made = body(await client.callTool({ name: 'create_session', arguments: { name: 'by an agent' } }));
    expect(made).toMatchObject({ name: 'by an agent', started_at: null });
    const listed = await call(t, 'GET', `/v1/sessions/${made.id}`, { key: a.key });
    expect(listed.status).toBe(200);
    const token = body(
      await client.callTool({
        name: 'create_connection_token',
        arguments: { session_id: made.id, user_id: 'bot' },
      }),
    );
    expect(token.access_token).toMatch(/^eyJ/);
    // Each activity row names its session: the one a tool acted on, or the one it made.
    const rows = (await call(t, 'GET', '/v1/agent-activity', { key: a.key })).body.data;
    expect(rows.slice(0, 2).map((r: any) => [r.tool, r.status, r.session_id])).toEqual([
      ['create_connection_token', 'succeeded', made.id],
      ['create_session', 'succeeded', made.id],
    ]);

    const b = await tenant(t);
    const theirs = await mcpClient(base, await agentToken(t, b, ['mcp:read', 'mcp:write']));
    expect(
      body(await theirs.callTool({ name: 'get_session', arguments: { session_id: made.id } })),
    ).toMatchObject({ code: 'NOT_FOUND' });
    expect(body(await theirs.callTool({ name: 'list_sessions', arguments: {} }))).toEqual([]);
    await theirs.close();

    const id = (await call(t, 'GET', '/v1/agent-tokens', { cookie: a.cookie })).body.data.find((x: any) =>
      secret.startsWith(x.prefix),
    ).id;
    expect((await call(t, 'DELETE', `/v1/agent-tokens/${id}`, { cookie: a.cookie })).status).toBe(200);
    await expect(client.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(
      /invalid, expired or revoked/,
    );
    await client.close();
  });

  it('refuses API keys and cookies with 401 and the resource metadata; the REST API refuses agent tokens', async () => {
    const res = await postMcp(
      base,
      { authorization: `Bearer ${a.key}` },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.config.publicBaseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    const withCookie = await postMcp(
      base,
      { cookie: `service_session=${a.cookie}` },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    );
    expect(withCookie.status).toBe(401);
    expect(((await withCookie.json()) as any).error.message).toMatch(/login cookie/);
    const none = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(401);
    // What starts OAuth discovery in a client: the resource metadata address.
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
    const secret = await agentToken(t, a, ['mcp:read']);
    expectError(await call(t, 'GET', '/v1/sessions', { key: secret }), 401, 'UNAUTHORIZED');
    expectError(
      await call(t, 'POST', '/v1/agent-tokens', { cookie: a.cookie, body: { scopes: ['admin'] } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await call(t, 'POST', '/v1/agent-tokens', { key: a.key, body: { scopes: ['mcp:read'] } }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('every MCP tool, with valid and invalid arguments', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0', RATE_LIMIT_PER_KEY: '400' } });
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
  });
  afterAll(() => t?.close());

  it('answers each tool and resource on a recorded session, refuses each bad argument as a tool error, and logs every call', async () => {
    const s = await createSession(t, a.key, 'recorded');
    await recordSession(t, a.key, s.id, [...pcmVoice('ann', 440, 1), ...pcmVoice('ben', 220, 1)]);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read', 'mcp:write']));
    const ok = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
      const text = (r.content as any)[0].text as string;
      return text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text;
    };
    const refused = async (name: string, args: Record<string, unknown>, match: RegExp) => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      expect(JSON.stringify(r.content), name).toMatch(match);
    };

    expect((await ok('list_sessions', { limit: 5 })).map((x: any) => x.id)).toContain(s.id);
    expect(await ok('get_session', { session_id: s.id })).toMatchObject({ id: s.id });
    expect(
      (await ok('get_manifest', { session_id: s.id })).participants.map((p: any) => p.user_id).sort(),
    ).toEqual(['ann', 'ben']);
    const meta = await ok('get_playback_timeline', { session_id: s.id });
    expect(meta).toMatchObject({ participant_count: 2 });
    expect(meta.stream_ids).toEqual(
      expect.arrayContaining(['media/ann/mic', 'media/ben/mic', 'chat', 'events']),
    );
    expect(await ok('get_event_timeline', { session_id: s.id })).toMatch(/participant\.joined ann/);
    expect(await ok('get_chat', { session_id: s.id })).toMatch(/ann: bye from ann/);
    const usage = await ok('get_usage', { session_id: s.id });
    expect(usage.summary.storage_bytes_total).toBeGreaterThan(0);
    expect(await ok('get_limits', {})).toMatchObject({ is_blocked: false });
    const made = await ok('create_session', { name: 'from a tool' });
    expect(await ok('create_connection_token', { session_id: made.id, user_id: 'bot' })).toMatchObject({
      expires_in: 300,
    });
    expect(await ok('set_visibility', { session_id: s.id, is_public: true })).toEqual({ is_public: true });
    expect((await ok('create_replay_link', { session_id: s.id, expires_in_minutes: 5 })).link).toMatch(
      /replay\?token=/,
    );
    const job = await ok('start_export', { session_id: s.id });
    expect(job.job_id).toBeTruthy();
    // The paused spans kept: a job of its own, saying so.
    const kept = await ok('start_export', { session_id: s.id, keep_gaps: true });
    expect(await ok('get_export', { export_id: kept.job_id })).toMatchObject({ keep_gaps: true });
    // The options: the sound alone, a clip of the recording's first half second.
    const { start_ts } = await ok('get_manifest', { session_id: s.id });
    const clip = await ok('start_export', {
      session_id: s.id,
      format: 'm4a',
      layout: 'speaker',
      resolution: '1080p',
      names: false,
      from_ts: start_ts,
      to_ts: start_ts + 500,
    });
    await waitForJob(t, a.key, clip.job_id);
    expect(await ok('get_export', { export_id: clip.job_id })).toMatchObject({
      status: 'completed',
      format: 'm4a',
      layout: 'speaker',
      resolution: '1080p',
      names: false,
      from_ts: start_ts,
      to_ts: start_ts + 500,
    });
    await waitForJob(t, a.key, kept.job_id);
    await waitForJob(t, a.key, job.job_id);
    expect(await ok('get_export', { export_id: job.job_id })).toMatchObject({ status: 'completed' });
    const listed = (await ok('list_exports', { session_id: s.id })).map((j: any) => j.job_id);
    expect(listed.sort()).toEqual([job.job_id, kept.job_id, clip.job_id].sort());
    expect(await ok('redact_participant', { session_id: s.id, user_id: 'ben' })).toMatchObject({
      redacted: 'ben',
    });

    const missing = '00000000-0000-4000-8000-000000000000';
    await refused('list_sessions', { limit: 0 }, /limit/);
    for (const name of [
      'get_session',
      'get_manifest',
      'get_playback_timeline',
      'get_event_timeline',
      'get_chat',
      'list_exports',
    ])
      await refused(name, { session_id: missing }, /NOT_FOUND/);
    await refused('get_session', { session_id: 'x' }, /session_id/);
    await refused('get_export', { export_id: missing }, /NOT_FOUND/);
    await refused('get_usage', { from: 'yesterday' }, /from/);
    await refused('create_session', { name: 'x'.repeat(201) }, /name/);
    await refused('create_connection_token', { session_id: s.id }, /user_id/);
    await refused('set_visibility', { session_id: s.id, is_public: 'yes' }, /is_public/);
    await refused(
      'create_replay_link',
      { session_id: s.id, expires_in_minutes: 50_000 },
      /expires_in_minutes/,
    );
    await refused('start_export', { session_id: s.id, layout: 'mosaic' }, /layout/);
    await refused('start_export', { session_id: s.id, keep_gaps: 'yes' }, /keep_gaps/);
    await refused('start_export', { session_id: s.id, format: 'wav' }, /format/);
    await refused(
      'start_export',
      { session_id: s.id, from_ts: start_ts + 500, to_ts: start_ts },
      /BAD_REQUEST.*body\.to_ts must be after from_ts/,
    );
    await refused('start_export', { session_id: made.id }, /CONFLICT/);
    await refused('redact_participant', { session_id: s.id, user_id: 'nobody' }, /NOT_FOUND/);

    const manifest = await client.readResource({ uri: `vss://sessions/${s.id}/manifest` });
    expect(JSON.parse((manifest.contents[0] as any).text).participants.map((p: any) => p.user_id)).toEqual([
      'ann',
    ]);
    const timeline = await client.readResource({ uri: `vss://sessions/${s.id}/timeline` });
    expect((timeline.contents[0] as any).text).toMatch(/participant\.redacted/);
    await expect(client.readResource({ uri: `vss://sessions/${missing}/manifest` })).rejects.toThrow(
      /NOT_FOUND/,
    );
    await client.close();

    const activity = (await call(t, 'GET', '/v1/agent-activity?limit=200', { key: a.key })).body.data;
    const tools = new Set(activity.map((r: any) => r.tool));
    for (const name of [
      'list_sessions',
      'get_session',
      'get_manifest',
      'get_playback_timeline',
      'get_event_timeline',
      'get_chat',
      'get_usage',
      'get_limits',
      'create_session',
      'create_connection_token',
      'set_visibility',
      'create_replay_link',
      'start_export',
      'get_export',
      'list_exports',
      'redact_participant',
      'resource:manifest',
      'resource:timeline',
    ])
      expect(tools.has(name), name).toBe(true);
    expect(
      activity.find((r: any) => r.tool === 'redact_participant' && r.status === 'succeeded'),
    ).toMatchObject({ session_id: s.id });
    // Every refused argument above is a row, those the SDK refused before the tool ran included.
    const failed = activity.filter((r: any) => r.status === 'failed');
    expect(failed.map((r: any) => `${r.tool}:${r.error_code}`).sort()).toEqual([
      'create_connection_token:BAD_REQUEST',
      'create_replay_link:BAD_REQUEST',
      'create_session:BAD_REQUEST',
      'get_chat:NOT_FOUND',
      'get_event_timeline:NOT_FOUND',
      'get_export:NOT_FOUND',
      'get_manifest:NOT_FOUND',
      'get_playback_timeline:NOT_FOUND',
      'get_session:BAD_REQUEST',
      'get_session:NOT_FOUND',
      'get_usage:BAD_REQUEST',
      'list_exports:NOT_FOUND',
      'list_sessions:BAD_REQUEST',
      'redact_participant:NOT_FOUND',
      'resource:manifest:NOT_FOUND',
      'set_visibility:BAD_REQUEST',
      'start_export:BAD_REQUEST',
      'start_export:BAD_REQUEST',
      'start_export:BAD_REQUEST',
      'start_export:BAD_REQUEST',
      'start_export:CONFLICT',
    ]);
  }, 60_000);

  it('negotiates the protocol revision: the newest for a new client, an older one when asked', async () => {
    const secret = await agentToken(t, a, ['mcp:read']);
    const init = async (protocolVersion: string) => {
      const res = await postMcp(
        base,
        { authorization: `Bearer ${secret}` },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        },
      );
      return ((await res.json()) as any).result.protocolVersion as string;
    };
    expect(await init(LATEST_PROTOCOL_VERSION)).toBe(LATEST_PROTOCOL_VERSION);
    expect(await init('2024-11-05')).toBe('2024-11-05');
    expect(await init('1999-01-01')).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('counts agent calls under the same per-credential rate limit as everything else', async () => {
    const secret = await agentToken(t, a, ['mcp:read']);
    let status = 0;
    // Up to twice the limit: the counters are fixed one-minute windows, and the loop may straddle a
    // window's end once (a first run of 401 then finds the count reset).
    for (let i = 0; i < 802 && status !== 429; i++) {
      const res = await postMcp(
        base,
        { authorization: `Bearer ${secret}` },
        { jsonrpc: '2.0', id: i, method: 'tools/list' },
      );
      status = res.status;
      // The edge's rate-limit headers reach the client through the SDK's answer too.
      if (i === 0) expect(res.headers.get('ratelimit-limit')).toBe('400');
      await res.arrayBuffer();
    }
    expect(status).toBe(429);
  });
});

describe('agent tokens and their users', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
  });
  afterAll(() => t?.close());

  async function member(): Promise<{ cookie: string; userId: string }> {
    const address = `member-${Math.random().toString(36).slice(2)}@example.com`;
    const inv = await call(t, 'POST', `/v1/projects/${a.projectId}/invitations`, {
      key: a.key,
      body: { email: address, role: 'member' },
    });
    const reg = await call(t, 'POST', '/v1/auth/register', {
      body: { email: address, password: 'correct horse battery' },
    });
    const cookie = String(reg.headers['set-cookie']).match(/service_session=([^;]+)/)![1]!;
    expect(
      (await call(t, 'POST', '/v1/invitations/redeem', { cookie, body: { token: inv.body.data.token } }))
        .status,
    ).toBe(200);
    return { cookie, userId: reg.body.data.id };
  }

  it("a removed member's tokens stop working at once; a member sees and deletes only their own tokens", async () => {
    const m = await member();
    const made = await call(t, 'POST', '/v1/agent-tokens', {
      cookie: m.cookie,
      body: { scopes: ['mcp:read', 'mcp:write'] },
    });
    expect(made.status, made.raw).toBe(201);
    const ownerToken = await agentToken(t, a, ['mcp:read']);
    const listed = (await call(t, 'GET', '/v1/agent-tokens', { cookie: m.cookie })).body.data;
    expect(listed.map((x: any) => x.id)).toEqual([made.body.data.id]);
    const ownerId = (await call(t, 'GET', '/v1/agent-tokens', { cookie: a.cookie })).body.data.find(
      (x: any) => ownerToken.startsWith(x.prefix),
    ).id;
    expectError(
      await call(t, 'DELETE', `/v1/agent-tokens/${ownerId}`, { cookie: m.cookie }),
      404,
      'NOT_FOUND',
    );

    const client = await mcpClient(base, made.body.data.secret);
    await client.callTool({ name: 'list_sessions', arguments: {} });
    expect((await call(t, 'DELETE', `/v1/members/${m.userId}`, { key: a.key })).status).toBe(200);
    await expect(client.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(
      /invalid, expired or revoked/,
    );
    await client.close();
  });

  it('refuses batches, and GET and DELETE, on /mcp', async () => {
    const secret = await agentToken(t, a, ['mcp:read', 'mcp:write']);
    const headers = {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const batch = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify(
        [1, 2].map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'create_session', arguments: {} },
        })),
      ),
    });
    expect(batch.status).toBe(400);
    expect((await call(t, 'GET', '/v1/sessions', { key: a.key })).body.data).toEqual([]);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/mcp`, { method, headers });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('keeps a write-only token from reading resources', async () => {
    const s = await createSession(t, a.key);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:write']));
    await expect(client.readResource({ uri: `vss://sessions/${s.id}/manifest` })).rejects.toThrow(/mcp:read/);
    await client.close();
  });
});
