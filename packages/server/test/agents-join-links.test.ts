import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { join, leave, listen } from './support/live.js';
import { agentToken, mcpClient } from './support/mcp.js';
import { eventually } from './support/wait.js';

const body = (r: any) => JSON.parse(r.content[0].text);

describe('the create_join_link MCP tool', () => {
  let t: TestApp;
  let a: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await startApp({ env: { SESSION_DEPARTURE_TIMEOUT_S: '0' } });
    a = await tenant(t);
    base = (await listen(t)).replace('ws://', 'http://');
  });
  afterAll(() => t?.close());

  /** Redeems a link's token as a guest's browser does: no credential, a name. */
  const redeem = (token: string, name: string) =>
    call(t, 'POST', `/v1/join/${token}`, { body: { display_name: name } });

  it('with mcp:write makes a link whose url lets guests in, as the REST API makes them', async () => {
    const s = await createSession(t, a.key, 'with guests');
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read', 'mcp:write']));
    const tools = (await client.listTools()).tools;
    expect(tools.find((x) => x.name === 'create_join_link')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });

    const before = Date.now();
    const made = await client.callTool({
      name: 'create_join_link',
      arguments: { session_id: s.id, expires_in_minutes: 30, max_uses: 1, can_publish: false },
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const link = body(made);
    expect(link).toMatchObject({ session_id: s.id, max_uses: 1, uses: 0, can_publish: false });
    expect(link.url).toBe(`${t.config.publicBaseUrl}/join/${link.token}`);
    expect(Date.parse(link.expires_at) - before).toBeGreaterThan(29 * 60_000);
    expect(Date.parse(link.expires_at) - before).toBeLessThan(31 * 60_000);

    // The url's token lets one guest in, watching only; its one use is then spent.
    const token = new URL(link.url).pathname.split('/').at(-1)!;
    const guest = await redeem(token, 'Ana María');
    expect(guest.status, guest.raw).toBe(200);
    expect(guest.body.data).toMatchObject({ session: s.id, display_name: 'Ana María', can_publish: false });
    expect(guest.body.data.user_id).toMatch(/^guest-/);
    expect((await redeem(token, 'Second')).status).toBe(409);

    // Without arguments: the API's defaults, a day, any number of guests, who may publish.
    const open = body(await client.callTool({ name: 'create_join_link', arguments: { session_id: s.id } }));
    expect(open).toMatchObject({ max_uses: null, can_publish: true });
    expect(Date.parse(open.expires_at) - Date.now()).toBeGreaterThan(1439 * 60_000);
    expect((await redeem(open.token, 'Ben')).status).toBe(200);
    await client.close();

    const listed = await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key });
    expect(listed.body.data.map((l: any) => [l.id, l.uses])).toEqual([
      [open.id, 1],
      [link.id, 1],
    ]);
    const activity = (await call(t, 'GET', '/v1/agent-activity', { key: a.key })).body.data;
    expect(activity.slice(0, 2).map((r: any) => [r.tool, r.status, r.session_id])).toEqual([
      ['create_join_link', 'succeeded', s.id],
      ['create_join_link', 'succeeded', s.id],
    ]);
  });

  it('refuses a token with only mcp:read, like every write tool, and makes nothing', async () => {
    const s = await createSession(t, a.key);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read']));
    const r = await client.callTool({ name: 'create_join_link', arguments: { session_id: s.id } });
    expect(r.isError).toBe(true);
    expect(body(r)).toEqual({ code: 'FORBIDDEN', message: 'create_join_link needs the mcp:write scope' });
    await client.close();
    expect((await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key })).body.data).toEqual([]);
    const [row] = (await call(t, 'GET', '/v1/agent-activity', { key: a.key })).body.data;
    expect(row).toMatchObject({
      tool: 'create_join_link',
      status: 'refused',
      error_code: 'FORBIDDEN',
      session_id: s.id,
    });
  });

  it("refuses bad arguments, another organisation's session and an ended one as tool errors", async () => {
    const s = await createSession(t, a.key);
    const client = await mcpClient(base, await agentToken(t, a, ['mcp:read', 'mcp:write']));
    const refused = async (args: Record<string, unknown>, match: RegExp) => {
      const r = await client.callTool({ name: 'create_join_link', arguments: args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(r.content), JSON.stringify(args)).toMatch(match);
    };
    await refused({ session_id: 'nope' }, /session_id/);
    await refused({ session_id: s.id, max_uses: 0 }, /max_uses/);
    await refused({ session_id: s.id, max_uses: 10_001 }, /max_uses/);
    await refused({ session_id: s.id, expires_in_minutes: 43_201 }, /expires_in_minutes/);
    await refused({ session_id: s.id, can_publish: 'no' }, /can_publish/);
    await refused({ session_id: '00000000-0000-4000-8000-000000000000' }, /NOT_FOUND/);
    const b = await tenant(t);
    await refused({ session_id: (await createSession(t, b.key)).id }, /NOT_FOUND/);

    // The last participant leaves and the session ends: nobody can join it any more.
    await leave(await join(t, a.key, s.id, 'host'));
    await eventually(
      async () => (await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).body.data.ended_at,
      10_000,
      'the session to end',
    );
    await refused({ session_id: s.id }, /CONFLICT/);
    await client.close();
    expect((await call(t, 'GET', `/v1/sessions/${s.id}/join-links`, { key: a.key })).body.data).toEqual([]);
  });
});
