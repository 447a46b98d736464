import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useCliServer, vss, vssJson } from './support.js';

const server = useCliServer();
const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  vss(args, { env: { ...server.env, ...env }, input });

describe('vss keys', () => {
  it('creates a key in its own project by default and prints the secret once; the key works until deleted', async () => {
    const created = await run(['keys', 'create', '--name', 'ci']);
    expect(created.code).toBe(0);
    const secret = /^secret\s+(sk_live_\S+)$/m.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(created.stdout).toMatch(new RegExp(`^project_id\\s+${server.projectId}$`, 'm'));
    expect(created.stderr).toContain('shown this once');
    const id = /^id\s+(\S+)$/m.exec(created.stdout)![1]!;
    expect((await api(server, 'GET', '/v1/projects', { key: secret! })).status).toBe(200);

    const listed = await run(['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+PROJECT\s+CREATED\s+LAST USED$/m);
    expect(listed.stdout).toContain(`${id}  ci    ${secret!.slice(0, 12)}`);
    expect(listed.stdout).not.toContain(secret);

    const renamed = await vssJson(server, ['keys', 'update', id, '--name', 'deploys']);
    expect(renamed).toMatchObject({ id, label: 'deploys' });
    const row = (await api(server, 'GET', '/v1/api-keys')).data.find((k: { id: string }) => k.id === id);
    expect(row.label).toBe('deploys');
    expect((await vssJson(server, ['keys', 'update', id, '--name', ''])).label).toBeNull();

    const unconfirmed = await run(['keys', 'delete', id]);
    expect(unconfirmed.code).toBe(2);
    expect((await api(server, 'GET', '/v1/projects', { key: secret! })).status).toBe(200);
    const deleted = await run(['keys', 'delete', id, '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`deleted ${id}\n`);
    const refused = await run(['projects', 'list'], { VSS_API_KEY: secret! });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): .+\n$/);
  });

  it('puts a key in another project with --project; that key then defaults to its own project', async () => {
    const other = await vssJson(server, ['projects', 'create', 'second']);
    const key = await vssJson(server, ['keys', 'create', '--project', other.id]);
    expect(key.project_id).toBe(other.id);
    expect(key.secret).toMatch(/^sk_live_/);

    const fromOther = await vssJson(server, ['keys', 'create', '--name', 'made by the second'], {
      env: { VSS_API_KEY: key.secret },
    });
    expect(fromOther.project_id).toBe(other.id);

    const onlyOther = await vssJson(server, ['keys', 'list', '--project', other.id]);
    expect(onlyOther.map((k: { id: string }) => k.id).sort()).toEqual([key.id, fromOther.id].sort());
  });

  it('refuses bad input and unknown ids, and a wrong key', async () => {
    const noName = await run(['keys', 'update', randomUUID()]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("required option '--name <name>' not specified");

    const unknown = await run(['keys', 'update', randomUUID(), '--name', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);
    const unknownDelete = await run(['keys', 'delete', randomUUID(), '--yes']);
    expect(unknownDelete.code).toBe(1);
    expect(unknownDelete.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);

    const notInOrg = await run(['keys', 'create', '--project', randomUUID()]);
    expect(notInOrg.code).toBe(1);
    expect(notInOrg.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);

    const tooLong = await run(['keys', 'create', '--name', 'x'.repeat(201)]);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): .*label/);

    const wrong = await run(['keys', 'list'], { VSS_API_KEY: 'sk_live_wrong' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): /);
  });
});

describe('vss restricted-keys', () => {
  it('creates a restricted key that may create sessions but nothing else; renames and deletes it', async () => {
    const created = await vssJson(server, ['restricted-keys', 'create', '--name', 'mobile app']);
    expect(created).toMatchObject({ label: 'mobile app', project_id: server.projectId });
    expect(created.secret).toMatch(/^rk_live_/);

    expect((await api(server, 'POST', '/v1/sessions', { key: created.secret, body: {} })).status).toBe(201);
    const elsewhere = await run(['webhooks', 'list'], { VSS_API_KEY: created.secret });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/^vss: FORBIDDEN \(HTTP 403\): restricted keys may only/);

    const listed = await vssJson(server, ['restricted-keys', 'list']);
    expect(listed.map((k: { id: string }) => k.id)).toEqual([created.id]);
    // API keys and restricted keys are listed apart.
    expect((await vssJson(server, ['keys', 'list'])).map((k: { id: string }) => k.id)).not.toContain(
      created.id,
    );

    expect((await vssJson(server, ['restricted-keys', 'update', created.id, '--name', 'web'])).label).toBe(
      'web',
    );

    const deleted = await run(['restricted-keys', 'delete', created.id, '--yes']);
    expect(deleted.code).toBe(0);
    expect((await api(server, 'POST', '/v1/sessions', { key: created.secret, body: {} })).status).toBe(401);
    expect(await vssJson(server, ['restricted-keys', 'list'])).toEqual([]);

    // An API key's id is not a restricted key's.
    const apiKeyId = (await vssJson(server, ['keys', 'list']))[0].id;
    const wrongKind = await run(['restricted-keys', 'delete', apiKeyId, '--yes']);
    expect(wrongKind.code).toBe(1);
    expect(wrongKind.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);
  });
});

describe('vss agent-tokens', () => {
  const email = `agents-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const user = { VSS_EMAIL: email, VSS_PASSWORD: password };
  beforeAll(async () => {
    const res = await fetch(`${server.baseUrl}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(res.status).toBe(201);
  });

  it('signs in as the user to create, list and delete tokens; the secret is printed once', async () => {
    const created = await run(['agent-tokens', 'create', '--scopes', 'read', '--name', 'assistant'], user);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^secret\s+sat_\S+$/m);
    expect(created.stdout).toMatch(/^scopes\s+mcp:read$/m);
    expect(created.stderr).toContain('shown this once');
    const id = /^id\s+(\S+)$/m.exec(created.stdout)![1]!;

    // The password may come on standard input instead.
    const both = await vssJson(
      server,
      ['agent-tokens', 'create', '--scopes', 'mcp:read,write', '--email', email, '--expires-in-days', '7'],
      {
        input: `${password}\n`,
      },
    );
    expect(both.scopes).toEqual(['mcp:read', 'mcp:write']);
    expect(Date.parse(both.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

    const listed = await run(['agent-tokens', 'list'], user);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}  assistant`);
    expect(listed.stdout).not.toMatch(/sat_\S{20,}/);

    expect((await run(['agent-tokens', 'delete', id, '--yes'], user)).code).toBe(0);
    const after = await vssJson(server, ['agent-tokens', 'list'], { env: user });
    expect(after.map((t: { id: string }) => t.id)).toEqual([both.id]);

    const again = await run(['agent-tokens', 'delete', id, '--yes'], user);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): /);
  });

  it('says what it needs: an account (exit 2), the right password (UNAUTHORIZED), known scopes (exit 2)', async () => {
    const noUser = await run(['agent-tokens', 'list']);
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toContain('this needs a signed-in user, not an API key: give --email');

    const noPassword = await run(['agent-tokens', 'list', '--email', email]);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('no password');

    const wrong = await run(['agent-tokens', 'list'], { ...user, VSS_PASSWORD: 'not the password' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): /);

    const scopes = await run(['agent-tokens', 'create', '--scopes', 'read,admin'], user);
    expect(scopes.code).toBe(2);
    expect(scopes.stderr).toContain('expected read, write or both (read,write), got "admin"');

    const missing = await run(['agent-tokens', 'create'], user);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--scopes <scopes>' not specified");
  });
});
