import { describe, expect, it } from 'vitest';
import { leave, openSocket } from '../../server/test/support/live.js';
import { api, useCliServer, vss, vssJson } from './support.js';

const server = useCliServer();

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const run = (args: string[]) => vss(args, { env: server.env });
const rulesOf = async (id: string) => (await api(server, 'GET', `/v1/sessions/${id}/recording-rules`)).data;
const isRecordingControl = (m: Record<string, any>) => m.type === 'control' && m.event === 'recording';

describe('vss recording rules', () => {
  it('prints that everything is recorded, then replaces the rules in the order the flags give them; "host" names the session\'s hosts', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    expect(await run(['recording', 'rules', sessionId])).toEqual({
      code: 0,
      stdout: 'recording\n(no rules: everything is recorded)\n',
      stderr: '',
    });

    // The host alone, without their screen; nobody's chat.
    const r = await run([
      'recording',
      'rules',
      sessionId,
      '--exclude-all',
      '--include',
      'host',
      '--exclude',
      'host:screen',
      '--exclude',
      ':chat',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('recording');
    expect(lines[1]).toMatch(/^#\s+TYPE\s+USER\s+KIND$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/))).toEqual([
      ['1', 'exclude', '*', '*'],
      ['2', 'include', '<host>', '*'],
      ['3', 'exclude', '<host>', 'screen'],
      ['4', 'exclude', '*', 'chat'],
    ]);
    const rules = [
      { type: 'exclude', all: true },
      { type: 'include', host: true },
      { type: 'exclude', host: true, kind: 'screen' },
      { type: 'exclude', kind: 'chat' },
    ];
    expect((await rulesOf(sessionId)).rules).toEqual(rules);
    // Printing them again shows the same table; --json prints the API's answer.
    expect((await run(['recording', 'rules', sessionId])).stdout).toBe(r.stdout);
    expect(await vssJson(server, ['recording', 'rules', sessionId])).toEqual({
      session_id: sessionId,
      state: 'recording',
      paused_at: null,
      rules,
    });

    // "*" is every stream; a user id holding ":" ends with one.
    const star = await vssJson(server, [
      'recording',
      'rules',
      sessionId,
      '--exclude',
      '*',
      '--include',
      'org:ana:',
      '--include',
      'host:',
    ]);
    // So does a participant whose id is "host", which alone names the session's hosts.
    expect(star.rules).toEqual([
      { type: 'exclude', all: true },
      { type: 'include', user_id: 'org:ana' },
      { type: 'include', user_id: 'host' },
    ]);

    const set = await vssJson(server, [
      'recording',
      'rules',
      sessionId,
      '--set',
      '[{"type":"exclude","user_id":"guest-1","kind":"mic"}]',
    ]);
    expect(set.rules).toEqual([{ type: 'exclude', user_id: 'guest-1', kind: 'mic' }]);
    // The API's own shape is taken too.
    await vssJson(server, [
      'recording',
      'rules',
      sessionId,
      '--set',
      '{"rules":[{"type":"exclude","kind":"cam"}]}',
    ]);
    expect((await rulesOf(sessionId)).rules).toEqual([{ type: 'exclude', kind: 'cam' }]);

    expect(await run(['recording', 'rules', sessionId, '--clear'])).toMatchObject({
      code: 0,
      stdout: 'recording\n(no rules: everything is recorded)\n',
    });
    expect((await rulesOf(sessionId)).rules).toEqual([]);
  });

  it('refuses a bad kind and a bad mix of flags before asking the server, and a rule the server refuses', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    await vssJson(server, ['recording', 'rules', sessionId, '--exclude', 'bob']);
    for (const [flag, bad, why] of [
      [
        '--exclude',
        'alice:video',
        'expected USER, USER:KIND or :KIND, KIND one of cam, mic, screen, chat; got "alice:video"',
      ],
      [
        '--include',
        ':webcam',
        'expected USER, USER:KIND or :KIND, KIND one of cam, mic, screen, chat; got ":webcam"',
      ],
      ['--exclude', ':', 'expected USER, USER:KIND or :KIND (--exclude-all for everything); got ":"'],
    ] as const) {
      const r = await run(['recording', 'rules', sessionId, flag, bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`vss: option '${flag} <user[:kind]>' argument '${bad}' is invalid. ${why}\n`);
    }
    const notJson = await run(['recording', 'rules', sessionId, '--set', 'exclude bob']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toBe(
      `vss: option '--set <json>' argument 'exclude bob' is invalid. expected a JSON array of rules, such as '[{"type":"exclude","kind":"chat"}]'\n`,
    );
    for (const mix of [
      ['--clear', '--exclude', 'bob'],
      ['--set', '[]', '--exclude-all'],
      ['--clear', '--set', '[]'],
    ]) {
      const r = await run(['recording', 'rules', sessionId, ...mix]);
      expect(r.code, mix.join(' ')).toBe(2);
      expect(r.stderr).toBe(
        'vss: give the rules one way: --include/--exclude/--exclude-all, --clear, or --set\n',
      );
    }
    // A kind the server does not know, given as JSON: its 400 names the field.
    const r = await run(['recording', 'rules', sessionId, '--set', '[{"type":"exclude","kind":"video"}]']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^vss: BAD_REQUEST \(HTTP 400\): body\.rules\[0\]\.kind .+\n$/);
    // Nothing changed.
    expect((await rulesOf(sessionId)).rules).toEqual([{ type: 'exclude', user_id: 'bob' }]);
  });
});

describe('vss recording pause and resume', () => {
  it('pauses and resumes, participants are told; pausing twice or resuming twice fails clearly', async () => {
    const sessionId = (await vssJson(server, ['sessions', 'create'])).id;
    const t = await vssJson(server, ['sessions', 'token', sessionId, '--user', 'alice']);
    const alice = await openSocket(server.baseUrl.replace(/^http/, 'ws'), {
      session: sessionId,
      user_id: 'alice',
      access_token: t.access_token,
    });
    await alice.waitFor((m) => m.type === 'control' && m.event === 'welcome');

    expect(await run(['recording', 'pause', sessionId])).toEqual({
      code: 0,
      stdout: `paused the recording of ${sessionId}\n`,
      stderr: '',
    });
    expect((await alice.waitForCount(isRecordingControl, 1))[0]!.data).toEqual({
      state: 'paused',
      rules: [],
      hosts: [],
    });
    const shown = await run(['recording', 'rules', sessionId]);
    expect(shown.stdout).toMatch(
      /^paused since \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\n\(no rules: everything is recorded\)\n$/,
    );

    const again = await run(['recording', 'pause', sessionId]);
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: 'vss: CONFLICT (HTTP 409): the recording is already paused\n',
    });

    const resumed = await vssJson(server, ['recording', 'resume', sessionId]);
    expect(resumed).toEqual({ session_id: sessionId, state: 'recording', paused_at: null, rules: [] });
    expect((await alice.waitForCount(isRecordingControl, 2))[1]!.data).toEqual({
      state: 'recording',
      rules: [],
      hosts: [],
    });
    expect(await run(['recording', 'resume', sessionId])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'vss: CONFLICT (HTTP 409): the recording is not paused\n',
    });

    const timeline = (await api(server, 'GET', `/v1/sessions/${sessionId}/timeline`)).data;
    expect(timeline.filter((e: any) => e.type.startsWith('recording.')).map((e: any) => e.type)).toEqual([
      'recording.paused',
      'recording.resumed',
    ]);
    await leave(alice);
  });

  it('refuses a missing argument and an unknown session', async () => {
    for (const verb of ['rules', 'pause', 'resume']) {
      const missing = await run(['recording', verb]);
      expect(missing.code, verb).toBe(2);
      expect(missing.stderr).toBe("vss: missing required argument 'sessionId'\n");
      const unknown = await run(['recording', verb, UNKNOWN]);
      expect(unknown.code, verb).toBe(1);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toMatch(/^vss: NOT_FOUND \(HTTP 404\): .+\n$/);
    }
  });
});
