import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../server/test/support/process.js';
import { useCliServer, vss, vssJson } from './support.js';

const server = useCliServer();

/** The environment of a user who has only logged in: the profile file, nothing else. */
const profileOnly = () => ({ VSS_CONFIG: server.configFile });

describe('vss login and profiles', () => {
  it('checks the key, saves it with the address in a 0600 file, and later commands use it', async () => {
    const r = await vss(['login', '--base-url', server.baseUrl, '--api-key', server.key], {
      env: profileOnly(),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Logged in to ${server.baseUrl} as profile "default"`);
    expect(statSync(server.configFile).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(server.configFile, 'utf8'));
    expect(saved.profiles.default).toEqual({ base_url: server.baseUrl, api_key: server.key });

    const created = await vss(['--json', 'sessions', 'create', '--name', 'from the profile'], {
      env: profileOnly(),
    });
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'from the profile', started_at: null });
  });

  it('takes the key on standard input and keeps named profiles apart', async () => {
    const r = await vss(['login', '--profile', 'staging', '--base-url', server.baseUrl], {
      env: profileOnly(),
      input: `${server.key}\n`,
    });
    expect(r.code).toBe(0);
    const who = await vss(['--profile', 'staging', '--json', 'whoami'], { env: profileOnly() });
    expect(JSON.parse(who.stdout)).toMatchObject({ base_url: server.baseUrl, profile: 'staging' });
    expect(JSON.parse(who.stdout).key_prefix).toBe(`${server.key.slice(0, 12)}…`);

    const missing = await vss(['--profile', 'nope', 'sessions', 'list'], { env: profileOnly() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `vss: no profile "nope" in ${server.configFile}: run \`vss login --profile nope\`\n`,
    );

    const out = await vss(['--profile', 'staging', 'logout'], { env: profileOnly() });
    expect(out.code).toBe(0);
    expect(JSON.parse(readFileSync(server.configFile, 'utf8')).profiles.staging).toBeUndefined();
  });

  it('reads the key from standard input with --api-key -, so that it never shows in the process list', async () => {
    const r = await vss(['login', '--profile', 'piped', '--base-url', server.baseUrl, '--api-key', '-'], {
      env: { ...profileOnly(), VSS_API_KEY: 'sk_live_not_this_one' },
      input: `${server.key}\n`,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(server.configFile, 'utf8')).profiles.piped).toEqual({
      base_url: server.baseUrl,
      api_key: server.key,
    });
    const empty = await vss(
      ['login', '--profile', 'piped2', '--base-url', server.baseUrl, '--api-key', '-'],
      {
        env: profileOnly(),
        input: '',
      },
    );
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(
      /^vss: login: --api-key - reads the key from standard input, which was empty/,
    );
    expect(JSON.parse(readFileSync(server.configFile, 'utf8')).profiles.piped2).toBeUndefined();
  });

  it('a profile named with --profile wins over VSS_API_KEY; without it the variable wins', async () => {
    const env = { ...profileOnly(), VSS_API_KEY: 'sk_live_from_the_environment' };
    const named = JSON.parse((await vss(['--profile', 'default', '--json', 'whoami'], { env })).stdout);
    expect(named.key_prefix).toBe(`${server.key.slice(0, 12)}…`);
    const unnamed = JSON.parse((await vss(['--json', 'whoami'], { env })).stdout);
    expect(unnamed.key_prefix).toBe('sk_live_from…');
  });

  it('login without --base-url keeps the server the profile already names', async () => {
    const r = await vss(['login', '--api-key', server.key], { env: profileOnly() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Logged in to ${server.baseUrl} as profile "default"`);
  });

  it('VSS_API_KEY and VSS_BASE_URL work without any profile', async () => {
    const r = await vss(['--json', 'projects', 'list'], {
      env: { VSS_BASE_URL: server.baseUrl, VSS_API_KEY: server.key, VSS_CONFIG: `${server.configFile}.none` },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((p: { id: string }) => p.id)).toContain(server.projectId);
    expect(existsSync(`${server.configFile}.none`)).toBe(false);
  });

  it('refuses a wrong key at login with the API error and saves nothing', async () => {
    const before = readFileSync(server.configFile, 'utf8');
    const r = await vss(
      ['login', '--profile', 'bad', '--base-url', server.baseUrl, '--api-key', 'sk_live_wrong'],
      {
        env: profileOnly(),
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): .+\n$/);
    expect(readFileSync(server.configFile, 'utf8')).toBe(before);
  });

  it('says where the server could not be reached, as a service error', async () => {
    const closed = await freePort();
    const r = await vss(['sessions', 'list'], {
      env: {
        VSS_BASE_URL: `http://127.0.0.1:${closed}`,
        VSS_API_KEY: server.key,
        VSS_CONFIG: profileOnly().VSS_CONFIG,
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vss: NETWORK_ERROR: no answer from http://127.0.0.1:${closed} (ECONNREFUSED)\n`);
  });

  it('a damaged profile file is a usage error naming the file', async () => {
    const file = `${server.configFile}.damaged`;
    writeFileSync(file, '{ not json');
    const r = await vss(['sessions', 'list'], { env: { VSS_CONFIG: file } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `vss: ${file} is not valid JSON: fix it or delete it and run \`vss login\` again\n`,
    );
  });

  it('a profile file holding null is a usage error, not a crash', async () => {
    const file = `${server.configFile}.null`;
    writeFileSync(file, 'null');
    const r = await vss(['sessions', 'list'], { env: { VSS_CONFIG: file } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `vss: ${file} holds no profiles: fix it or delete it and run \`vss login\` again\n`,
    );
  });
});

describe('vss sessions and projects', () => {
  it('creates, lists, gets, publishes and deletes a session', async () => {
    const s = await vssJson(server, ['sessions', 'create', '--name', 'standup']);
    expect(s).toMatchObject({ name: 'standup', is_public: false, project_id: server.projectId });

    const table = await vss(['sessions', 'list'], { env: server.env });
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATE\s+PUBLIC\s+CREATED$/);
    expect(lines.some((l) => l.startsWith(s.id) && /standup\s+created\s+no\s+\d{4}-/.test(l))).toBe(true);

    const got = await vss(['sessions', 'get', s.id], { env: server.env });
    expect(got.stdout).toMatch(new RegExp(`^id\\s+${s.id}$`, 'm'));
    expect(got.stdout).toMatch(/^state\s+created$/m);

    const pub = await vss(['sessions', 'visibility', s.id, 'public'], { env: server.env });
    expect(pub.stdout).toBe(`${s.id} is now public\n`);
    expect((await vssJson(server, ['sessions', 'get', s.id])).is_public).toBe(true);

    const token = await vssJson(server, ['sessions', 'token', s.id, '--user', 'alice']);
    expect(token).toMatchObject({ expires_in: 300, session: s.id });
    expect(token.access_token).toMatch(/^ey/);

    const del = await vss(['sessions', 'delete', s.id, '--yes'], { env: server.env });
    expect(del).toMatchObject({ code: 0, stdout: `deleted ${s.id}\n` });
    const gone = await vss(['sessions', 'get', s.id], { env: server.env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): .+\n$/);
  });

  it('pages with --limit and --cursor, and follows every page with --all', async () => {
    for (let i = 0; i < 3; i += 1) await vssJson(server, ['sessions', 'create', '--name', `page ${i}`]);
    const first = await vss(['--json', 'sessions', 'list', '--limit', '2'], { env: server.env });
    expect(JSON.parse(first.stdout)).toHaveLength(2);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const second = await vssJson(server, ['sessions', 'list', '--limit', '2', '--cursor', cursor!]);
    expect(second.length).toBeGreaterThan(0);
    const all = await vssJson(server, ['sessions', 'list', '--limit', '2', '--all']);
    expect(all.map((s: { id: string }) => s.id)).toEqual(
      [...JSON.parse(first.stdout), ...(await vssJson(server, ['sessions', 'list', '--limit', '200']))]
        .map((s: { id: string }) => s.id)
        .filter((id: string, i: number, a: string[]) => a.indexOf(id) === i),
    );
  });

  it("creates and renames a project; sessions go to the key's own project", async () => {
    const p = await vssJson(server, ['projects', 'create', 'Mobile', '--environment', 'staging']);
    expect(p).toMatchObject({ name: 'Mobile', environment: 'staging' });
    const renamed = await vssJson(server, [
      'projects',
      'update',
      p.id,
      '--name',
      'Mobile app',
      '--environment',
      'none',
    ]);
    expect(renamed).toMatchObject({ name: 'Mobile app', environment: null });
    const s = await vssJson(server, ['sessions', 'create']);
    expect(s.project_id).toBe(server.projectId);
    expect((await vssJson(server, ['projects', 'get', p.id])).name).toBe('Mobile app');
    const bad = await vss(['projects', 'update', p.id], { env: server.env });
    expect(bad).toMatchObject({
      code: 2,
      stderr: 'vss: projects update: give --name, --environment, --embed-origin or --no-embed-origins\n',
    });
    // The sites that may frame the project's room: set, refused when not an origin, cleared.
    const framed = await vssJson(server, [
      'projects',
      'update',
      p.id,
      '--embed-origin',
      'https://app.example.com',
      '--embed-origin',
      'http://localhost:3000',
    ]);
    expect(framed.embed_origins).toEqual(['https://app.example.com', 'http://localhost:3000']);
    const wrong = await vss(['projects', 'update', p.id, '--embed-origin', 'https://app.example.com/call'], {
      env: server.env,
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('embed_origins[0]');
    expect((await vssJson(server, ['projects', 'get', p.id])).embed_origins).toHaveLength(2);
    const cleared = await vssJson(server, ['projects', 'update', p.id, '--no-embed-origins']);
    expect(cleared.embed_origins).toEqual([]);
  });
});

describe('usage errors: exit code 2 and one line', () => {
  const cases: Array<[string[], RegExp]> = [
    [['sesions', 'list'], /^vss: unknown command 'sesions'\n\(Did you mean sessions\?\)\n$/],
    [['sessions', 'list', '--limt', '2'], /^vss: unknown option '--limt'\n\(Did you mean --limit\?\)\n$/],
    [['sessions', 'get'], /^vss: missing required argument 'sessionId'\n$/],
    [
      ['sessions', 'list', '--limit', '500'],
      /^vss: option '--limit <n>' argument '500' is invalid\. expected a whole number from 1 to 200, got "500"\n$/,
    ],
    [
      ['sessions', 'visibility', 'x', 'open'],
      /^vss: command-argument value 'open' is invalid for argument 'visibility'\. Allowed choices are public, private\.\n$/,
    ],
    [['sessions', 'token', 'x'], /^vss: required option '--user <userId>' not specified\n$/],
    [
      ['--base-url', 'ftp://x', 'sessions', 'list'],
      /^vss: --base-url: "ftp:\/\/x" must start with http:\/\/ or https:\/\/\n$/,
    ],
  ];
  it.each(cases)('vss %j', async (args, stderr) => {
    const r = await vss(args, { env: server.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(stderr);
  });

  it("a bad value's control characters are shown escaped, never acted on by the terminal", async () => {
    const r = await vss(['sessions', 'list', '--limit', '\u001b[2J\u009b31m\n5'], { env: server.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "vss: option '--limit <n>' argument '\\u001b[2J\\u009b31m\\n5' is invalid. expected a whole number from 1 to 200, got \"\\u001b[2J\\u009b31m\\n5\"\n",
    );
    // The suggestion stays on a line of its own.
    const typo = await vss(['sessions', 'list', '--limt\u0007', '2'], { env: server.env });
    expect(typo.stderr).toBe("vss: unknown option '--limt\\u0007'\n(Did you mean --limit?)\n");
  });

  it('a missing key says how to get one', async () => {
    const r = await vss(['sessions', 'list'], { env: { VSS_CONFIG: `${server.configFile}.empty` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'vss: no API key: run `vss login`, set VSS_API_KEY, or pass --api-key (create one in the dashboard under API keys)\n',
    );
  });

  it('deleting without --yes and without a terminal refuses rather than guessing', async () => {
    const s = await vssJson(server, ['sessions', 'create']);
    const r = await vss(['sessions', 'delete', s.id], { env: server.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `vss: Delete session ${s.id} and its recording: confirm with --yes (no terminal to ask on)\n`,
    );
    expect((await vssJson(server, ['sessions', 'get', s.id])).id).toBe(s.id);
  });

  it('--help and --version succeed', async () => {
    const help = await vss(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: vss [options] [command]');
    for (const family of [
      'login',
      'projects',
      'sessions',
      'join-links',
      'recording',
      'export',
      'webhooks',
      'keys',
      'bot',
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${family}\\b`, 'm'));
    const version = await vss(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('a bare vss shows the help as a usage error', async () => {
    const r = await vss([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: vss [options] [command]');
  });
});
