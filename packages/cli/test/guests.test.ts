import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/app.js';
import { leave, openSocket } from '../../server/test/support/live.js';
import { eventually } from '../../server/test/support/wait.js';
import { findFfmpeg } from '../src/bot/ffmpeg.js';
import { useCliServer, vss, VSS_BIN, vssJson } from './support.js';

const server = useCliServer();

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const NOT_FOUND = /^vss: NOT_FOUND \(HTTP 404\): .+\n$/;

const run = (args: string[], timeoutMs?: number) =>
  vss(args, { env: server.env, ...(timeoutMs ? { timeoutMs } : {}) });

/** Why the tests that run bots are skipped here, or null when there is an ffmpeg. */
const noFfmpeg = ((): string | null => {
  try {
    findFfmpeg();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
})();
if (noFfmpeg) console.error(`[vss] vss bot --name tests skipped: ${noFfmpeg}`);

/** Joins live as `userId` with a token the command line printed, and waits for the welcome. */
async function joinWith(sessionId: string, userId: string, accessToken: string) {
  const socket = await openSocket(server.baseUrl.replace(/^http/, 'ws'), {
    session: sessionId,
    user_id: userId,
    access_token: accessToken,
  });
  const welcome = await socket.waitFor((m) => m.type === 'control' && m.event === 'welcome');
  return { socket, welcome };
}

/** Redeems a join link's token as a guest's browser does: no credential, a name. */
async function join(token: string, displayName: string): Promise<{ status: number; data: any }> {
  const res = await fetch(`${server.baseUrl}/v1/join/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: displayName }),
  });
  const body = (await res.json()) as { data: any; error: { code: string } | null };
  return { status: res.status, data: body.data ?? body.error };
}

describe('vss join-links', () => {
  it('creates a link: its address on stdout, what it allows on stderr; a guest joins with it', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'with guests'])).id;
    const r = await run(['join-links', 'create', sessionId]);
    expect(r.code, r.stderr).toBe(0);
    const url = r.stdout.trim();
    expect(r.stdout).toBe(`${url}\n`);
    expect(url).toMatch(new RegExp(`^${server.baseUrl}/join/[A-Za-z0-9_-]+$`));
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ; any number of guests; camera, microphone and screen allowed$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^shown this once; revoke it with: vss join-links revoke ${sessionId} [0-9a-f-]{36}$`),
    );
    expect(lines).toHaveLength(2);

    const guest = await join(url.split('/').at(-1)!, 'Ana María');
    expect(guest.status).toBe(200);
    expect(guest.data).toMatchObject({ session: sessionId, display_name: 'Ana María', can_publish: true });
    expect(guest.data.user_id).toMatch(/^guest-/);
  });

  it('--expires-in, --max-uses and --watch-only reach the link; --json prints the API answer', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    const before = Date.now();
    const link = await vssJson(server, [
      'join-links',
      'create',
      sessionId,
      '--expires-in',
      '2h',
      '--max-uses',
      '1',
      '--watch-only',
    ]);
    expect(Object.keys(link).sort()).toEqual([
      'can_publish',
      'created_at',
      'expires_at',
      'id',
      'max_uses',
      'session_id',
      'token',
      'url',
      'uses',
    ]);
    expect(link).toMatchObject({ session_id: sessionId, max_uses: 1, uses: 0, can_publish: false });
    expect(link.url).toBe(`${server.baseUrl}/join/${link.token}`);
    expect(Date.parse(link.expires_at) - before).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(Date.parse(link.expires_at) - before).toBeLessThan(2 * 3600_000 + 60_000);

    const watcher = await join(link.token, 'Watcher');
    expect(watcher).toMatchObject({ status: 200, data: { can_publish: false } });
    // Its one use is taken.
    expect(await join(link.token, 'Second')).toMatchObject({ status: 409, data: { code: 'CONFLICT' } });

    const limited = await run(['join-links', 'create', sessionId, '--max-uses', '3']);
    expect(limited.code).toBe(0);
    expect(limited.stderr).toMatch(/; up to 3 guests; camera, microphone and screen allowed\n/);
    const short = await run(['join-links', 'create', sessionId, '--expires-in', '90', '--watch-only']);
    expect(short.stderr).toMatch(/; any number of guests; watch and chat only\n/);
  });

  it('lists links newest first, in a table or as JSON, never with a token; revokes one at once', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    expect((await run(['join-links', 'list', sessionId])).stdout).toBe('(no join links)\n');
    const open = await vssJson(server, ['join-links', 'create', sessionId]);
    const used = await vssJson(server, [
      'join-links',
      'create',
      sessionId,
      '--max-uses',
      '1',
      '--watch-only',
    ]);
    expect((await join(used.token, 'Only one')).status).toBe(200);

    const table = await run(['join-links', 'list', sessionId]);
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+STATE\s+USES\s+GUESTS\s+CREATED\s+EXPIRES$/);
    expect(rows).toHaveLength(3);
    // Newest first.
    expect(rows[1]).toMatch(new RegExp(`^${used.id}\\s+used up\\s+1 of 1\\s+watch only\\s+\\d{4}-`));
    expect(rows[2]).toMatch(new RegExp(`^${open.id}\\s+open\\s+0\\s+publish\\s+\\d{4}-`));
    expect(table.stdout).not.toContain(open.token);

    const listed = await vssJson(server, ['join-links', 'list', sessionId]);
    expect(listed.map((l: any) => l.id)).toEqual([used.id, open.id]);
    expect(listed[0]).toMatchObject({ uses: 1, max_uses: 1, can_publish: false });
    expect(listed.every((l: any) => !('token' in l) && !('url' in l))).toBe(true);
    const page = await vss(['--json', 'join-links', 'list', sessionId, '--limit', '1'], { env: server.env });
    expect(JSON.parse(page.stdout).map((l: any) => l.id)).toEqual([used.id]);
    expect(page.stderr).toMatch(/^more: add --cursor \S+ \(or --all\)\n$/);

    const revoked = await run(['join-links', 'revoke', sessionId, open.id]);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${open.id}\n` });
    expect(await join(open.token, 'Too late')).toMatchObject({ status: 404, data: { code: 'NOT_FOUND' } });
    expect((await vssJson(server, ['join-links', 'list', sessionId])).map((l: any) => l.id)).toEqual([
      used.id,
    ]);
    const again = await run(['join-links', 'revoke', sessionId, open.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(NOT_FOUND);
    expect(await vssJson(server, ['join-links', 'revoke', sessionId, used.id])).toEqual({
      id: used.id,
      deleted: true,
    });
  });

  it('refuses bad values naming the flag, a missing argument, and an unknown session', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    for (const bad of ['0', '10001', '1.5', 'many']) {
      const r = await run(['join-links', 'create', sessionId, '--max-uses', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `vss: option '--max-uses <n>' argument '${bad}' is invalid. expected a whole number from 1 to 10000, got "${bad}"\n`,
      );
    }
    for (const bad of ['30', '0.5m', '31d', 'soon']) {
      const r = await run(['join-links', 'create', sessionId, '--expires-in', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^vss: option '--expires-in <duration>' argument '${bad}' is invalid\\.`),
      );
    }
    for (const [args, missing] of [
      [['join-links', 'create'], 'sessionId'],
      [['join-links', 'list'], 'sessionId'],
      [['join-links', 'revoke', sessionId], 'linkId'],
      [['remove', sessionId], 'userId'],
    ] as const) {
      const r = await run([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`vss: missing required argument '${missing}'\n`);
    }
    // Nothing was made by the refusals.
    expect(await vssJson(server, ['join-links', 'list', sessionId])).toEqual([]);
    for (const args of [
      ['join-links', 'create', UNKNOWN],
      ['join-links', 'list', UNKNOWN],
      ['join-links', 'revoke', sessionId, UNKNOWN],
      ['remove', UNKNOWN, 'alice'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(NOT_FOUND);
    }
  });
});

describe('vss sessions token --name', () => {
  it('a token with a name joins under it, trimmed', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'named'])).id;
    const t = await vssJson(server, [
      'sessions',
      'token',
      sessionId,
      '--user',
      'alice',
      '--name',
      '  山田 太郎 ',
    ]);
    const { socket, welcome } = await joinWith(sessionId, 'alice', t.access_token);
    expect(welcome.data).toMatchObject({ user_id: 'alice', display_name: '山田 太郎' });
    await leave(socket);
  });

  it('refuses a name the API would refuse, naming --name, before asking the server', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    for (const [bad, why] of [
      ['', 'expected 1 to 64 characters once trimmed, got 0'],
      ['   ', 'expected 1 to 64 characters once trimmed, got 0'],
      ['é'.repeat(65), 'expected 1 to 64 characters once trimmed, got 65'],
      ['two\nlines', 'expected a name without control characters (newlines, tabs, escapes)'],
    ]) {
      const r = await run(['sessions', 'token', sessionId, '--user', 'alice', '--name', bad!]);
      expect(r.code, bad).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `vss: option '--name <name>' argument '${bad!.replace('\n', '\\n')}' is invalid. ${why}\n`,
      );
    }
    // 64 characters of any script are one name.
    const longest = await vssJson(server, [
      'sessions',
      'token',
      sessionId,
      '--user',
      'alice',
      '--name',
      '名'.repeat(64),
    ]);
    expect(longest.access_token).toMatch(/^ey/);
  });
});

describe.skipIf(noFfmpeg !== null)('vss bot --name', () => {
  it('each bot joins under the name, numbered when there are several; the manifest shows them', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'named bots'])).id;
    const r = await run(['bot', sessionId, '--count', '2', '--duration', '1', '--name', 'Ana María'], 60_000);
    expect(r.code, r.stderr).toBe(0);
    for (const n of [1, 2])
      expect(r.stderr).toMatch(new RegExp(`^bot-${n} joined as "Ana María ${n}" \\(\\d present\\)$`, 'm'));
    const manifest = (
      await call(server.app, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: server.key })
    ).body.data;
    expect(manifest.participants.map((p: any) => [p.user_id, p.display_name]).sort()).toEqual([
      ['bot-1', 'Ana María 1'],
      ['bot-2', 'Ana María 2'],
    ]);

    const one = (await vssJson(server, ['sessions', 'create'])).id;
    const single = await run(['bot', one, '--duration', '1', '--name', 'Demo bot'], 60_000);
    expect(single.code, single.stderr).toBe(0);
    expect(single.stderr).toMatch(/^bot-1 joined as "Demo bot" \(1 present\)$/m);
  });

  it('refuses a name too long for the bots it numbers, naming --name, before anyone joins', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    const bad = await run(['bot', sessionId, '--name', 'x'.repeat(65)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      `vss: option '--name <name>' argument '${'x'.repeat(65)}' is invalid. expected 1 to 64 characters once trimmed, got 65\n`,
    );
    // "<name> 10" must fit in 64 characters too.
    const numbered = await run(['bot', sessionId, '--count', '10', '--name', 'x'.repeat(62)]);
    expect(numbered.code).toBe(2);
    expect(numbered.stderr).toBe(
      'vss: --name: at most 61 characters with --count 10 (names are "<name> <n>", at most 64), got 62\n',
    );
    expect(
      (await call(server.app, 'GET', `/v1/sessions/${sessionId}`, { key: server.key })).body.data.started_at,
    ).toBeNull();
  });
});

describe('vss remove', () => {
  it("closes the participant's connections with 4403; a token issued afterwards lets them in again", async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'remove'])).id;
    const t = await vssJson(server, ['sessions', 'token', sessionId, '--user', 'alice']);
    const { socket } = await joinWith(sessionId, 'alice', t.access_token);

    const r = await run(['remove', sessionId, 'alice']);
    expect(r).toMatchObject({ code: 0, stdout: `removed alice from ${sessionId}\n`, stderr: '' });
    await socket.waitFor((m) => m.type === 'control' && m.event === 'removed');
    expect((await socket.closed).code).toBe(4403);
    // Gone from the session, once its leave is recorded: a second removal has nobody to remove.
    await eventually(
      async () =>
        (
          await call(server.app, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: server.key })
        ).body.data.some((e: any) => e.type === 'participant.left' && e.actor === 'alice'),
      10_000,
      'alice to leave',
    );
    const again = await run(['remove', sessionId, 'alice']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(NOT_FOUND);

    // A removal is not a ban; --json prints the API answer.
    const back = await vssJson(server, ['sessions', 'token', sessionId, '--user', 'alice']);
    const rejoined = await joinWith(sessionId, 'alice', back.access_token);
    expect(await vssJson(server, ['remove', sessionId, 'alice'])).toEqual({
      session_id: sessionId,
      user_id: 'alice',
      removed: true,
    });
    expect((await rejoined.socket.closed).code).toBe(4403);
  });

  it.skipIf(noFfmpeg !== null)(
    'a bot removed with vss remove leaves for good rather than joining again',
    async () => {
      const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
      const child = spawn(process.execPath, [VSS_BIN, 'bot', sessionId, '--duration', '60'], {
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...server.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
      try {
        await eventually(() => /^bot-1 joined/m.test(stderr), 20_000, 'the bot to join');
        const r = await run(['remove', sessionId, 'bot-1']);
        expect(r.code, r.stderr).toBe(0);
        const [code] = await exited;
        expect(code, stderr).toBe(0);
        expect(stderr).toMatch(/^bot-1: connection lost for good: code 4403 \(removed from the session\)$/m);
        expect(stderr).toMatch(/^bot-1 left: disconnected /m);
        expect(stderr).not.toMatch(/reconnect/);
        expect(stdout).toMatch(/^bot-1\s+yes\s+/m);
        const timeline = (
          await call(server.app, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: server.key })
        ).body.data as Array<{ type: string }>;
        expect(timeline.filter((e) => e.type === 'participant.joined')).toHaveLength(1);
        expect(timeline.some((e) => e.type === 'participant.removed')).toBe(true);
      } finally {
        clearTimeout(killer);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
    60_000,
  );
});
