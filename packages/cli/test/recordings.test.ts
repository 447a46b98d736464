import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/app.js';
import { jpeg } from '../../server/test/support/live.js';
import { recordSession, type Planned } from '../../server/test/support/media.js';
import { useCliServer, vss, vssJson } from './support.js';

// Sessions end as soon as their last participant leaves, so that a recording is complete at once.
const server = useCliServer({ SESSION_DEPARTURE_TIMEOUT_S: '0' });
const run = (args: string[], input?: string) =>
  vss(args, { env: server.env, ...(input !== undefined ? { input } : {}) });

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const NOT_FOUND = /^vss: NOT_FOUND \(HTTP 404\): .+\n$/;
/** Minutes between alice's and bob's media: more than two windows of the playback API apart. */
const BOB_AT = 700_000;

interface DumpLine {
  seq: number;
  timestamp_ms: number;
  stream_id: string;
  body_base64: string;
}

let sessionId = '';
let startMs = 0;
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vss-cli-rec-'));
  sessionId = (await vssJson(server, ['sessions', 'create', '--name', 'recorded'])).id;
  const plan: Planned[] = [
    ...Array.from({ length: 20 }, (_, k) => ({
      user: 'alice',
      atMs: k * 100,
      stream: 'media/alice/cam',
      payload: jpeg(k, 200),
    })),
    {
      user: 'alice',
      atMs: 50,
      stream: 'director',
      director: { type: 'director.focus', data: { user_id: 'bob' } },
    },
    ...Array.from({ length: 10 }, (_, k) => ({
      user: 'bob',
      atMs: BOB_AT + k * 100,
      stream: 'media/bob/cam',
      payload: jpeg(100 + k, 200),
    })),
  ];
  ({ startMs } = await recordSession(server.app, server.key, sessionId, plan));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function lines(stdout: string): DumpLine[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DumpLine);
}

function countBy(events: Array<{ stream_id: string }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.stream_id] = (out[e.stream_id] ?? 0) + 1;
  return out;
}

describe('vss manifest, timeline and playback timeline', () => {
  it('manifest: one row per track, times from the start of the recording; --json as the API answers', async () => {
    const r = await run(['manifest', sessionId]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [first, head, ...rows] = r.stdout.trimEnd().split('\n');
    expect(first).toMatch(new RegExp(`^${sessionId}  \\d{4}-\\d\\d-\\d\\d .+ to .+ \\(11m40s\\)$`));
    expect(head!.split(/\s+/)).toEqual(['USER', 'KIND', 'STREAM', 'FROM', 'TO']);
    expect(rows.map((l) => l.split(/\s+/))).toEqual([
      ['alice', 'cam', 'media/alice/cam', '0.0s', '1.9s'],
      ['bob', 'cam', 'media/bob/cam', '11m40s', '11m40s'],
    ]);

    const api = await call(server.app, 'GET', `/v1/sessions/${sessionId}/manifest`, { key: server.key });
    expect(await vssJson(server, ['manifest', sessionId])).toEqual(api.body.data);
  });

  it('timeline: the events stream as a table, and as the API answers with --json', async () => {
    const api = (await call(server.app, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: server.key }))
      .body.data as Array<{ seq: number; type: string; actor: string }>;
    expect(await vssJson(server, ['timeline', sessionId])).toEqual(api);

    const r = await run(['timeline', sessionId]);
    expect(r.code).toBe(0);
    const [head, ...rows] = r.stdout.trimEnd().split('\n');
    expect(head!.split(/\s+/)).toEqual(['SEQ', 'TIME', 'TYPE', 'ACTOR', 'DATA']);
    expect(rows).toHaveLength(api.length);
    const joined = api.find((e) => e.type === 'participant.joined' && e.actor === 'alice')!;
    expect(rows.find((l) => l.startsWith(`${joined.seq} `))).toMatch(
      /^\d+\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z\s+participant\.joined\s+alice\s+/,
    );
  });

  it('playback timeline: bounds, streams and count, for people and as JSON', async () => {
    const api = (
      await call(server.app, 'GET', `/v1/sessions/${sessionId}/playback/timeline`, { key: server.key })
    ).body.data;
    expect(await vssJson(server, ['playback', 'timeline', sessionId])).toEqual(api);
    expect(api.min_ts).toBe(startMs);

    const r = await run(['playback', 'timeline', sessionId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^participants\s+2$/m);
    expect(r.stdout).toMatch(/^streams\s+.*media\/alice\/cam.*media\/bob\/cam/m);
    expect(r.stdout).toContain(
      `from          ${startMs} (${new Date(startMs).toISOString().replace('T', ' ')})`,
    );
  });

  it('answers an unknown session with the API error, a wrong key with UNAUTHORIZED, no argument with usage', async () => {
    for (const args of [
      ['manifest', UNKNOWN],
      ['timeline', UNKNOWN],
      ['playback', 'timeline', UNKNOWN],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(NOT_FOUND);
    }
    const wrong = await vss(['manifest', sessionId], {
      env: { ...server.env, VSS_API_KEY: 'sk_live_wrong' },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^vss: UNAUTHORIZED \(HTTP 401\): .+\n$/);
    for (const args of [['manifest'], ['timeline'], ['playback', 'timeline']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe("vss: missing required argument 'sessionId'\n");
    }
  });
});

describe('vss playback dump', () => {
  it('writes every event of every stream once, as NDJSON, across windows of time', async () => {
    const r = await run(['playback', 'dump', sessionId]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    const timeline = (
      await call(server.app, 'GET', `/v1/sessions/${sessionId}/timeline`, { key: server.key })
    ).body.data as Array<{ seq: number }>;
    expect(countBy(events)).toEqual({
      'media/alice/cam': 20,
      'media/bob/cam': 10,
      director: 1,
      chat: 2,
      events: timeline.length,
    });
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
    // The timeline's events are in the dump at their own times: compare them as a set.
    expect(
      events
        .filter((e) => e.stream_id === 'events')
        .map((e) => e.seq)
        .sort((a, b) => a - b),
    ).toEqual(timeline.map((e) => e.seq));
    const alice = events.filter((e) => e.stream_id === 'media/alice/cam');
    alice.forEach((e, k) => {
      expect(e.timestamp_ms).toBe(startMs + k * 100);
      expect(Buffer.from(e.body_base64, 'base64')).toEqual(jpeg(k, 200));
    });
    // Windows of time in order: no line belongs to an earlier window than the line before it.
    const windowOf = (e: DumpLine) => Math.floor(e.timestamp_ms / 300_000);
    expect(events.every((e, i) => i === 0 || windowOf(e) >= windowOf(events[i - 1]!))).toBe(true);
    expect(windowOf(events.at(-1)!) - windowOf(events[0]!)).toBeGreaterThanOrEqual(2);
  });

  it('--from and --to keep the events of that time only; --out writes a file', async () => {
    const late = lines(
      (await run(['playback', 'dump', sessionId, '--from', String(startMs + BOB_AT)])).stdout,
    );
    // Bob's frames, and the timeline's note that his camera was published, at its first frame.
    expect(countBy(late)).toEqual({ 'media/bob/cam': 10, events: 1 });
    const published = late.find((e) => e.stream_id === 'events')!;
    expect(JSON.parse(Buffer.from(published.body_base64, 'base64').toString('utf8'))).toMatchObject({
      type: 'track.published',
      actor: 'bob',
    });

    const out = join(dir, 'early.ndjson');
    const early = await run(['playback', 'dump', sessionId, '--to', String(startMs + 1000), '--out', out]);
    expect(early.code).toBe(0);
    expect(early.stdout).toBe('');
    expect(early.stderr).toBe(`wrote 12 events to ${out}\n`);
    const kept = lines(readFileSync(out, 'utf8'));
    expect(countBy(kept)).toEqual({ 'media/alice/cam': 10, director: 1, events: 1 });
    expect(Math.max(...kept.map((e) => e.timestamp_ms))).toBe(startMs + 900);

    const between = lines(
      (
        await run([
          'playback',
          'dump',
          sessionId,
          '--from',
          String(startMs + 500),
          '--to',
          String(startMs + 700),
        ])
      ).stdout,
    );
    expect(between.map((e) => e.timestamp_ms)).toEqual([startMs + 500, startMs + 600]);
  });

  it('--split writes one file per stream: media as framed payloads, the others as decoded JSON lines', async () => {
    const split = join(dir, 'split');
    const r = await run(['playback', 'dump', sessionId, '--split', split]);
    expect(r.code).toBe(0);
    expect(readdirSync(split).sort()).toEqual([
      'alice-cam.bin',
      'bob-cam.bin',
      'chat.ndjson',
      'director.ndjson',
      'events.ndjson',
    ]);
    expect(r.stdout).toMatch(
      new RegExp(`^media/alice/cam\\s+${join(split, 'alice-cam.bin')}\\s+20\\s+4400$`, 'm'),
    );

    const bin = readFileSync(join(split, 'alice-cam.bin'));
    const records: Array<{ ts: number; payload: Buffer }> = [];
    for (let o = 0; o < bin.length;) {
      const length = bin.readUInt32BE(o + 16);
      records.push({ ts: Number(bin.readBigUInt64BE(o)), payload: bin.subarray(o + 20, o + 20 + length) });
      o += 20 + length;
    }
    expect(records).toEqual(
      Array.from({ length: 20 }, (_, k) => ({ ts: startMs + k * 100, payload: jpeg(k, 200) })),
    );

    const director = readFileSync(join(split, 'director.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(director).toEqual([
      {
        seq: expect.any(Number),
        timestamp_ms: startMs + 50,
        body: expect.objectContaining({ type: 'director.focus', actor: 'alice', data: { user_id: 'bob' } }),
      },
    ]);
    const chat = readFileSync(join(split, 'chat.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(chat.map((c) => c.body.data.text).sort()).toEqual(['bye from alice', 'bye from bob']);

    const json = await vssJson(server, ['playback', 'dump', sessionId, '--split', join(dir, 'again')]);
    expect(json).toContainEqual({
      stream_id: 'media/bob/cam',
      file: join(dir, 'again', 'bob-cam.bin'),
      events: 10,
      bytes: 2200,
    });
  });

  it('refuses contradictory or malformed options before reading, and unknown sessions with NOT_FOUND', async () => {
    const both = await run([
      'playback',
      'dump',
      sessionId,
      '--out',
      join(dir, 'x'),
      '--split',
      join(dir, 'y'),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('vss: --split and --out: choose one\n');
    const backwards = await run(['playback', 'dump', sessionId, '--from', '2000', '--to', '1000']);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toBe('vss: --to (1000) must be after --from (2000)\n');
    const notNumber = await run(['playback', 'dump', sessionId, '--from', 'yesterday']);
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toMatch(/^vss: option '--from <ms>' argument 'yesterday' is invalid\./);
    const nowhere = await run(['playback', 'dump', sessionId, '--out', join(dir, 'none', 'x.ndjson')]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toBe(
      `vss: ENOENT: no such file or directory, open '${join(dir, 'none', 'x.ndjson')}'\n`,
    );
    const unknown = await run(['playback', 'dump', UNKNOWN]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(NOT_FOUND);
  });
});

describe('vss replay-links', () => {
  it('creates a link that plays the recording without a key, until it is revoked', async () => {
    const r = await run(['replay-links', 'create', sessionId]);
    expect(r.code).toBe(0);
    const link = r.stdout.trim();
    expect(link).toMatch(
      new RegExp(`^${server.baseUrl}/v1/public/sessions/${sessionId}/replay\\?token=\\S+$`),
    );
    expect(r.stderr).toMatch(/^expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\n$/);
    const played = await fetch(link, { headers: { accept: 'application/json' } });
    expect(played.status).toBe(200);
    expect(((await played.json()) as { data: { events: unknown[] } }).data.events.length).toBeGreaterThan(0);

    const before = Date.now();
    const two = await vssJson(server, ['replay-links', 'create', sessionId, '--expires-in', '2h']);
    expect(Object.keys(two).sort()).toEqual(['expires_at', 'link', 'token']);
    expect(Date.parse(two.expires_at) - before).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(Date.parse(two.expires_at) - before).toBeLessThan(2 * 3600_000 + 60_000);
    // Seconds are rounded up to the minutes a link counts in.
    const short = await vssJson(server, ['replay-links', 'create', sessionId, '--expires-in', '90']);
    expect(Date.parse(short.expires_at) - before).toBeGreaterThan(60_000);
    expect(Date.parse(short.expires_at) - before).toBeLessThan(3 * 60_000);

    const revoked = await run(['replay-links', 'revoke', sessionId]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked 3 replay links of ${sessionId}\n`);
    expect((await fetch(link, { headers: { accept: 'application/json' } })).status).toBe(401);
    expect(await vssJson(server, ['replay-links', 'revoke', sessionId])).toEqual({
      session_id: sessionId,
      revoked: 0,
    });
  });

  it('refuses an expiry out of range or unreadable with usage, and an unknown session with NOT_FOUND', async () => {
    for (const bad of ['0', '31d', 'soon', '-5m']) {
      const r = await run(['replay-links', 'create', sessionId, '--expires-in', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(`got "${bad}"`);
    }
    const unknown = await run(['replay-links', 'create', UNKNOWN]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(NOT_FOUND);
    const missing = await run(['replay-links', 'revoke']);
    expect(missing.code).toBe(2);
  });
});

describe('vss redact', () => {
  let redactId = '';
  beforeAll(async () => {
    redactId = (await vssJson(server, ['sessions', 'create', '--name', 'to redact'])).id;
    const frames = (user: string): Planned[] =>
      Array.from({ length: 5 }, (_, k) => ({
        user,
        atMs: k * 100,
        stream: `media/${user}/cam`,
        payload: jpeg(k),
      }));
    await recordSession(server.app, server.key, redactId, [...frames('carol'), ...frames('dave')]);
  });
  const manifestUsers = async () =>
    (
      await call(server.app, 'GET', `/v1/sessions/${redactId}/manifest`, { key: server.key })
    ).body.data.participants.map((p: { user_id: string }) => p.user_id);

  it('without --yes and without a terminal refuses in one line and deletes nothing', async () => {
    const r = await run(['redact', redactId, 'dave']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `vss: Delete every recorded media stream of dave in session ${redactId} for good: confirm with --yes (no terminal to ask on)\n`,
    );
    expect(await manifestUsers()).toEqual(['carol', 'dave']);
  });

  it("with --yes deletes the participant's media; the others stay", async () => {
    const r = await run(['redact', redactId, 'dave', '--yes']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`redacted dave from ${redactId}: 1 media stream deleted\n`);
    expect(await manifestUsers()).toEqual(['carol']);
    const dump = lines((await run(['playback', 'dump', redactId])).stdout);
    expect(dump.some((e) => e.stream_id.startsWith('media/dave/'))).toBe(false);
    expect(countBy(dump)['media/carol/cam']).toBe(5);
  });

  it('answers someone who published nothing and an unknown session with NOT_FOUND, a missing user with usage', async () => {
    const nobody = await run(['redact', redactId, 'nobody', '--yes']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(NOT_FOUND);
    const unknown = await run(['redact', UNKNOWN, 'carol', '--yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(NOT_FOUND);
    const missing = await run(['redact', redactId]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("vss: missing required argument 'userId'\n");
    expect(await manifestUsers()).toEqual(['carol']);
  });
});
