import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/app.js';
import { jpeg } from '../../server/test/support/live.js';
import { recordSession, type Planned } from '../../server/test/support/media.js';
import { useCliServer, vss, VSS_BIN, vssJson } from './support.js';

// Sessions end as soon as their last participant leaves, so that a recording is complete at once.
// bob publishes more than ten minutes into the recording at once, on its media clock: this
// server takes timestamps up to an hour from its own (LIVE_CLOCK_SKEW_S).
const server = useCliServer({ SESSION_DEPARTURE_TIMEOUT_S: '0', LIVE_CLOCK_SKEW_S: '3600' });
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
      // a focus names someone who has joined: bob joins minutes later
      director: { type: 'director.focus', data: { user_id: 'alice' } },
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

/**
 * A proxy in front of the server that passes the first `answered` playback reads and answers the
 * ones after with a server error: a dump cut off midway. `reads` counts the playback reads since
 * the last `reset`.
 */
async function cuttingProxy(
  answered: number,
): Promise<{ url: string; reads: () => number; reset: () => void; close: () => Promise<void> }> {
  let reads = 0;
  const proxy = createServer((req, res) => {
    if (/\/playback\?/.test(req.url ?? '') && ++reads > answered) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: null, error: { code: 'INTERNAL', message: 'cut off' } }));
      return;
    }
    const upstream = request(
      new URL(req.url!, server.baseUrl),
      { method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    reads: () => reads,
    reset: () => (reads = 0),
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

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

  it('playback timeline of a session with nothing recorded says so, not the time 0', async () => {
    const empty = (await vssJson(server, ['sessions', 'create', '--name', 'nothing yet'])).id;
    const r = await run(['playback', 'timeline', empty]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('1970');
    expect(r.stdout).toMatch(/^from\s+nothing recorded$/m);
    expect(r.stdout).toMatch(/^to\s+-$/m);
    expect(r.stdout).toMatch(/^duration\s+-$/m);
    expect(await vssJson(server, ['playback', 'timeline', empty])).toMatchObject({
      stream_ids: [],
      min_ts: 0,
    });
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
    // In the order the server took them (seq), across windows of time more than two apart.
    expect(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq)).toBe(true);
    const windowOf = (e: DumpLine) => Math.floor(e.timestamp_ms / 300_000);
    const windows = events.map(windowOf);
    expect(Math.max(...windows) - Math.min(...windows)).toBeGreaterThanOrEqual(2);
  });

  it('ends quietly with 0 when its reader stops early (| head)', async () => {
    const child = spawn(process.execPath, [VSS_BIN, 'playback', 'dump', sessionId], {
      env: { PATH: process.env.PATH ?? '', ...server.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Read one chunk, then close the pipe as `head -1` does.
    await once(child.stdout, 'data');
    child.stdout.destroy();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
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
    expect(existsSync(`${out}.part`)).toBe(false);
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
        body: expect.objectContaining({ type: 'director.focus', actor: 'alice', data: { user_id: 'alice' } }),
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
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toBe(`vss: --out: no directory ${join(dir, 'none')}\n`);
    const aDirectory = await run(['playback', 'dump', sessionId, '--out', dir]);
    expect(aDirectory.code).toBe(2);
    expect(aDirectory.stderr).toBe(`vss: --out: ${dir} is a directory\n`);
    const aFile = join(dir, 'a-file');
    writeFileSync(aFile, 'kept\n');
    const splitFile = await run(['playback', 'dump', sessionId, '--split', aFile]);
    expect(splitFile.code).toBe(2);
    expect(splitFile.stderr).toBe(`vss: --split: ${aFile} is not a directory\n`);
    expect(readFileSync(aFile, 'utf8')).toBe('kept\n');
    const unknown = await run(['playback', 'dump', UNKNOWN]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(NOT_FOUND);
  });
});

describe('vss playback dump that fails', () => {
  it('an unknown or malformed session leaves an existing --out file as it was, and creates none', async () => {
    const existing = join(dir, 'existing.ndjson');
    for (const id of [UNKNOWN, 'not-a-session-id']) {
      writeFileSync(existing, 'an earlier dump\n');
      const r = await run(['playback', 'dump', id, '--out', existing]);
      expect(r.code, id).toBe(1);
      expect(r.stderr, id).toMatch(/^vss: [A-Z_]+ \(HTTP 4\d\d\): .+\n$/);
      expect(readFileSync(existing, 'utf8'), id).toBe('an earlier dump\n');
    }
    const fresh = join(dir, 'fresh.ndjson');
    const r = await run(['playback', 'dump', UNKNOWN, '--out', fresh]);
    expect(r.stderr).toMatch(NOT_FOUND);
    expect(readdirSync(dir).filter((f) => f.startsWith('fresh'))).toEqual([]);
  });

  it('an unknown session creates no --split directory', async () => {
    const split = join(dir, 'never', 'split');
    const r = await run(['playback', 'dump', UNKNOWN, '--split', split]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(NOT_FOUND);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('a dump cut off midway exits 1 and leaves no partial file that looks complete', async () => {
    // This recording comes in one answer (a run of seqs: the session's own events, stamped by the
    // server's clock, close it after bob's media), so the dump is cut at that answer.
    const proxy = await cuttingProxy(0);
    try {
      const env = { ...server.env, VSS_BASE_URL: proxy.url };
      const existing = join(dir, 'cut.ndjson');
      writeFileSync(existing, 'an earlier dump\n');
      const r = await vss(['playback', 'dump', sessionId, '--out', existing], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('vss: INTERNAL (HTTP 500): cut off\n');
      expect(proxy.reads()).toBe(1);
      expect(readFileSync(existing, 'utf8')).toBe('an earlier dump\n');
      expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);

      const split = join(dir, 'cut-split');
      proxy.reset();
      const s = await vss(['playback', 'dump', sessionId, '--split', split], { env });
      expect(s.code).toBe(1);
      expect(proxy.reads()).toBe(1);
      expect(existsSync(split)).toBe(false);
      // A directory that was there stays, without the files the failed dump began.
      mkdirSync(join(dir, 'kept-split'));
      writeFileSync(join(dir, 'kept-split', 'notes.txt'), 'mine\n');
      proxy.reset();
      const k = await vss(['playback', 'dump', sessionId, '--split', join(dir, 'kept-split')], { env });
      expect(k.code).toBe(1);
      expect(proxy.reads()).toBe(1);
      expect(readdirSync(join(dir, 'kept-split'))).toEqual(['notes.txt']);
    } finally {
      await proxy.close();
    }
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
    expect(Object.keys(two).sort()).toEqual(['expires_at', 'id', 'link', 'token']);
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
    // Links count whole minutes: less than one is refused, not rounded up to one.
    for (const bad of ['0', '30', '59s', '0.5m', '31d', 'soon', '-5m']) {
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
