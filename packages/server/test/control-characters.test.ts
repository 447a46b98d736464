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
import { join, listen, openSocket, token } from './support/live.js';
import { agentToken, mcpClient } from './support/mcp.js';

const NUL = 'a\u0000';

describe('control characters in ids and names', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = await listen(t);
  });
  afterAll(() => t?.close());

  const refused = (res: Awaited<ReturnType<typeof call>>, field: string) => {
    const message = expectError(res, 400, 'BAD_REQUEST');
    expect(message).toBe(`${field} must not contain control characters`);
  };

  it('refuses a NUL in each named field with 400 naming it, and stores nothing', async () => {
    const before = {
      sessions: (await call(t, 'GET', '/v1/sessions?limit=200', { key: a.key })).body.data.length,
      projects: (await call(t, 'GET', '/v1/projects', { cookie: a.cookie })).body.data.length,
      keys: (await call(t, 'GET', '/v1/api-keys?limit=200', { cookie: a.cookie })).body.data.length,
      restricted: (await call(t, 'GET', '/v1/restricted-keys?limit=200', { cookie: a.cookie })).body.data
        .length,
      agentTokens: (await call(t, 'GET', '/v1/agent-tokens', { cookie: a.cookie })).body.data.length,
    };
    refused(await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: NUL } }), 'body.name');
    refused(await call(t, 'POST', '/v1/projects', { cookie: a.cookie, body: { name: NUL } }), 'body.name');
    refused(
      await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, {
        cookie: a.cookie,
        body: { label: NUL },
      }),
      'body.label',
    );
    refused(await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: { label: NUL } }), 'body.label');
    refused(
      await call(t, 'POST', '/v1/webhooks', {
        key: a.key,
        body: { url: 'https://example.com/hook', events: ['session.created'], description: NUL },
      }),
      'body.description',
    );
    refused(
      await call(t, 'POST', '/v1/agent-tokens', {
        cookie: a.cookie,
        body: { scopes: ['mcp:read'], label: NUL },
      }),
      'body.label',
    );
    refused(
      await call(t, 'POST', '/oauth/register', {
        body: { redirect_uris: ['https://client.example/cb'], client_name: NUL },
      }),
      'body.client_name',
    );
    refused(
      await call(t, 'POST', '/v1/auth/login', {
        body: { email: `${NUL}@example.com`, password: 'whatever' },
      }),
      'body.email',
    );
    refused(await call(t, 'GET', '/v1/sessions?cursor=a%00', { key: a.key }), 'query.cursor');
    refused(await call(t, 'GET', '/v1/sessions/a%00', { key: a.key }), 'path.sessionId');
    // Every C0 character and DEL, not only NUL.
    for (const c of ['\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f'])
      refused(await call(t, 'POST', '/v1/sessions', { key: a.key, body: { name: `x${c}y` } }), 'body.name');

    expect((await call(t, 'GET', '/v1/sessions?limit=200', { key: a.key })).body.data).toHaveLength(
      before.sessions,
    );
    expect((await call(t, 'GET', '/v1/projects', { cookie: a.cookie })).body.data).toHaveLength(
      before.projects,
    );
    expect((await call(t, 'GET', '/v1/api-keys?limit=200', { cookie: a.cookie })).body.data).toHaveLength(
      before.keys,
    );
    expect(
      (await call(t, 'GET', '/v1/restricted-keys?limit=200', { cookie: a.cookie })).body.data,
    ).toHaveLength(before.restricted);
    expect((await call(t, 'GET', '/v1/agent-tokens', { cookie: a.cookie })).body.data).toHaveLength(
      before.agentTokens,
    );
    expect((await call(t, 'GET', '/v1/webhooks', { key: a.key })).body.data).toEqual([]);
  });

  it('walks a deeply nested body without failing: the schema refuses it with 400', async () => {
    const deep = `{"name":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const res = await call(t, 'POST', '/v1/sessions', {
      key: a.key,
      payload: deep,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectError(res, 400, 'BAD_REQUEST')).toMatch(/^body\.name /);
  });

  it('keeps tabs and line breaks in free text (a webhook description), and other characters anywhere', async () => {
    const hook = await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: {
        url: 'https://example.com/hook',
        events: ['session.created'],
        description: 'line one\n\tline two\r\n',
      },
    });
    expect(hook.status).toBe(201);
    expect(hook.body.data.description).toBe('line one\n\tline two\r\n');
    refused(
      await call(t, 'POST', '/v1/webhooks', {
        key: a.key,
        body: { url: 'https://example.com/hook', events: ['session.created'], description: 'bell\u0007' },
      }),
      'body.description',
    );
    const s = await createSession(t, a.key, 'naïve — 会議 🎥');
    expect(s.name).toBe('naïve — 会議 🎥');
  });

  it('refuses a NUL user_id at the connection request and at the WebSocket, and stays up', async () => {
    const s = await createSession(t, a.key);
    const rk = (await call(t, 'POST', '/v1/restricted-keys', { key: a.key, body: {} })).body.data.secret;
    refused(
      await call(t, 'POST', `/v1/sessions/${s.id}/connection`, { key: rk, body: { user_id: NUL } }),
      'body.user_id',
    );
    const good = await token(t, a.key, s.id, 'ann');
    const upgrade = await openSocket(base, { session: s.id, access_token: good, user_id: NUL }).catch(
      (e) => e,
    );
    expect(upgrade.status).toBe(400);
    expect(JSON.parse(upgrade.body).error).toEqual({
      code: 'BAD_REQUEST',
      message: 'query.user_id must not contain control characters',
    });
    // Still answering, and still admitting participants.
    const ann = await join(t, a.key, s.id, 'ann');
    ann.ws.close();
    expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).status).toBe(200);
  });
});

describe('user_id is a safe path segment', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = await listen(t);
  });
  afterAll(() => t?.close());

  it('refuses ".", "..", slashes, spaces and control characters as a participant, over REST and MCP', async () => {
    const s = await createSession(t, a.key);
    for (const user_id of ['.', '..', 'a/b', 'a b', NUL, '', 'x'.repeat(129)]) {
      const res = await call(t, 'POST', `/v1/sessions/${s.id}/connection`, { key: a.key, body: { user_id } });
      expect(expectError(res, 400, 'BAD_REQUEST'), JSON.stringify(user_id)).toMatch(/^body\.user_id /);
    }
    for (const user_id of ['...', '.a', 'a.b', 'ann@example.com', 'x'.repeat(128)])
      expect(
        (await call(t, 'POST', `/v1/sessions/${s.id}/connection`, { key: a.key, body: { user_id } })).status,
        user_id,
      ).toBe(200);

    const good = await token(t, a.key, s.id, 'ann');
    for (const user_id of ['.', '..']) {
      const upgrade = await openSocket(base, { session: s.id, access_token: good, user_id }).catch((e) => e);
      expect(upgrade.status).toBe(400);
      expect(JSON.parse(upgrade.body).error.message).toBe('query.user_id has an invalid format');
    }

    const client = await mcpClient(
      base.replace('ws://', 'http://'),
      await agentToken(t, a, ['mcp:read', 'mcp:write']),
    );
    for (const user_id of ['.', '..', NUL]) {
      const r = await client.callTool({
        name: 'create_connection_token',
        arguments: { session_id: s.id, user_id },
      });
      expect(r.isError, JSON.stringify(user_id)).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/user_id/);
    }
    await client.close();
  });
});

describe('MCP tool calls with control characters', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
  });
  afterAll(() => t?.close());

  it('answers a tool error for a NUL in any argument, logs the call, stores nothing and keeps answering', async () => {
    const s = await createSession(t, a.key);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read', 'mcp:write']));
    const calls: Array<[string, Record<string, unknown>, RegExp]> = [
      ['create_session', { name: NUL }, /name/],
      ['get_session', { session_id: NUL }, /session_id/],
      ['create_connection_token', { session_id: s.id, user_id: NUL }, /user_id/],
      ['start_export', { session_id: s.id, layout: 'presenter', focus: NUL }, /focus/],
      ['redact_participant', { session_id: s.id, user_id: NUL }, /user_id/],
      ['get_usage', { session_id: NUL }, /session_id/],
    ];
    for (const [name, args, field] of calls) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      expect(JSON.stringify(r.content), name).toMatch(field);
    }
    const unknown = await client.callTool({ name: `list${NUL}`, arguments: {} });
    expect(unknown.isError).toBe(true);
    await client.close();

    const activity = (await call(t, 'GET', '/v1/agent-activity?limit=200', { key: a.key })).body.data;
    expect(activity.map((r: any) => `${r.tool}:${r.status}:${r.error_code}`).sort()).toEqual([
      'create_connection_token:failed:BAD_REQUEST',
      'create_session:failed:BAD_REQUEST',
      'get_session:failed:BAD_REQUEST',
      'get_usage:failed:BAD_REQUEST',
      'lista\uFFFD:failed:NOT_FOUND',
      'redact_participant:failed:BAD_REQUEST',
      'start_export:failed:BAD_REQUEST',
    ]);
    expect(activity.every((r: any) => r.session_id === null || r.session_id === s.id)).toBe(true);
    expect((await call(t, 'GET', '/v1/sessions', { key: a.key })).body.data.map((x: any) => x.id)).toEqual([
      s.id,
    ]);
  });
});
