import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveClient, type LiveMessage } from '@vss/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { sqliteStreamStore } from '../src/streams/sqlite.js';
import { ENGINE, PG_URL, REDIS_URL } from './support/app.js';
import { jpeg } from './support/live.js';
import {
  dropPgSchema,
  freePort,
  httpJson,
  httpTenant,
  pgSchemaUrl,
  runServer,
  waitForHttp,
  type Proc,
} from './support/process.js';
import { eventually } from './support/wait.js';

/** A tenant (through the one tenant bootstrap), a session and connection tokens over real HTTP. */
async function bootstrap(base: string) {
  const { key } = await httpTenant(base);
  const session = (
    await httpJson(base, 'POST', '/v1/sessions', { name: 'cluster' }, { authorization: `Bearer ${key}` })
  ).data;
  const tokenFor = async (userId: string, b = base) =>
    (
      (await (
        await fetch(`${b}/v1/sessions/${session.id}/connection`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ user_id: userId }),
        })
      ).json()) as { data: { access_token: string } }
    ).data.access_token;
  return { key, session, tokenFor };
}

function client(base: string, session: string, userId: string, token: () => Promise<string>) {
  const c = new LiveClient({
    url: base.replace('http', 'ws'),
    session,
    userId,
    token,
    WebSocket: WebSocket as never,
    reconnect: false,
  });
  const messages: LiveMessage[] = [];
  const controls: Array<{ event: string; user_id: string }> = [];
  c.on('message', (m) => messages.push(m));
  c.on('control', (m) => controls.push(m));
  return { c, messages, controls };
}

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)(
  'two server processes sharing PostgreSQL and Redis',
  () => {
    const schema = `cluster_${Math.random().toString(36).slice(2, 10)}`;
    const procs: Proc[] = [];
    const dirs: string[] = [];
    let bases: string[] = [];
    let dbUrl = '';
    beforeAll(async () => {
      dbUrl = await pgSchemaUrl(PG_URL, schema);
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        const dir = mkdtempSync(join(tmpdir(), 'vss-node-'));
        dirs.push(dir);
        const p = runServer({
          DATA_DIR: dir,
          PORT: String(port),
          DATABASE_URL: dbUrl,
          REDIS_URL,
          REDIS_KEY_PREFIX: `${schema}:`,
          SESSION_DEPARTURE_TIMEOUT_S: '1',
          LOG_LEVEL: 'warn',
          SECRET_KEY: 'cluster-secret-cluster-secret-cluster-secret',
        });
        procs.push(p);
        bases.push(`http://127.0.0.1:${port}`);
        // One after the other: the first migrates the schema.
        await waitForHttp(`${bases[i]}/health`);
      }
    }, 60_000);
    afterAll(async () => {
      for (const p of procs) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.exited));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await dropPgSchema(PG_URL, schema);
      bases = [];
    });

    it('fans messages out across processes, decides the lifecycle once, and keeps seq unique', async () => {
      const { session, tokenFor } = await bootstrap(bases[0]!);
      const alice = client(bases[0]!, session.id, 'alice', () => tokenFor('alice', bases[0]));
      const bob = client(bases[1]!, session.id, 'bob', () => tokenFor('bob', bases[1]));
      await alice.c.connect();
      const welcome = await bob.c.connect();
      expect((welcome.data.participants as string[]).sort()).toEqual(['alice', 'bob']);
      await eventually(
        () => alice.controls.find((m) => m.event === 'join' && m.user_id === 'bob'),
        10_000,
        'join across processes',
      );

      const seqs: number[] = [];
      for (let i = 0; i < 20; i++) {
        seqs.push(await alice.c.publish('media/alice/cam', jpeg(i, 2000), { ack: true }));
        seqs.push(await bob.c.publish('media/bob/cam', jpeg(100 + i, 2000), { ack: true }));
      }
      await alice.c.publishChat('from process one', { ack: true });
      // A focus on a participant connected to the other process is taken; one on a stranger is not.
      await alice.c.publishDirector({ type: 'director.focus', data: { user_id: 'bob' } }, { ack: true });
      await expect(
        alice.c.publishDirector({ type: 'director.focus', data: { user_id: 'mallory' } }, { ack: true }),
      ).rejects.toThrow(/must be the user_id of a participant of this session/);
      await eventually(
        () => bob.messages.filter((m) => m.streamType === 'media/alice/cam').length === 20,
        10_000,
        'alice frames at bob',
      );
      await eventually(
        () => alice.messages.filter((m) => m.streamType === 'media/bob/cam').length === 20,
        10_000,
        'bob frames at alice',
      );
      await eventually(() => bob.messages.find((m) => m.streamType === 'chat'), 10_000, 'chat at bob');
      const got = bob.messages.filter((m) => m.streamType === 'media/alice/cam');
      got.forEach((m, i) => expect(Buffer.from(m.payload).equals(jpeg(i, 2000))).toBe(true));
      expect(new Set(seqs).size).toBe(seqs.length);

      await alice.c.close();
      await bob.c.close();
      const db = new pg.Client({ connectionString: dbUrl });
      await db.connect();
      try {
        // The session's end is set, then its `session.ended` event written: the timeline's last word.
        const events = () =>
          db.query(
            "select seq, convert_from(body, 'UTF8') as body from stream_events where session_id = $1 and stream_id = 'events' order by seq",
            [session.id],
          );
        const rows = await eventually(
          async () => {
            const { rows } = await events();
            return rows.some((r) => JSON.parse(r.body).type === 'session.ended') ? rows : null;
          },
          15_000,
          'the session to end',
          100,
        );
        const ended = await db.query('select ended_at from sessions where id = $1', [session.id]);
        expect(ended.rows[0].ended_at).not.toBeNull();
        const types = rows.map((r) => JSON.parse(r.body).type);
        expect(types.filter((t) => t === 'session.started')).toHaveLength(1);
        expect(types.filter((t) => t === 'session.ended')).toHaveLength(1);
        expect(types.filter((t) => t === 'participant.joined')).toHaveLength(2);
        const all = await db.query(
          'select count(*)::int as n, count(distinct seq)::int as d, max(seq)::int as m from stream_events where session_id = $1',
          [session.id],
        );
        expect(all.rows[0].n).toBe(all.rows[0].d);
        expect(all.rows[0].m).toBe(all.rows[0].n);
      } finally {
        await db.end();
      }
    }, 60_000);

    it('relays reduced layers and passes key-frame requests across processes, to the publisher alone', async () => {
      const { session, tokenFor } = await bootstrap(bases[0]!);
      const alice = client(bases[0]!, session.id, 'alice', () => tokenFor('alice', bases[0]));
      const bob = client(bases[1]!, session.id, 'bob', () => tokenFor('bob', bases[1]));
      const carol = client(bases[0]!, session.id, 'carol', () => tokenFor('carol', bases[0]));
      await alice.c.connect();
      await carol.c.connect();
      await bob.c.connect();
      await eventually(() => alice.controls.find((m) => m.event === 'join' && m.user_id === 'bob'), 10_000);
      // Layer 0 is recorded (acked with a seq); layer 1 is relayed (acked with -1: no seq).
      expect(await alice.c.publish('media/alice/cam', jpeg(1, 500), { ack: true })).toBeGreaterThan(0);
      expect(await alice.c.publish('media/alice/cam', jpeg(2, 500), { ack: true, layer: 1 })).toBe(-1);
      // Bob, on the other process, gets the best layer only.
      await eventually(() => bob.messages.some((m) => m.streamType === 'media/alice/cam'), 10_000);
      // His request crosses to alice's process, and reaches alice alone.
      await bob.c.requestKeyFrame('alice', 'cam');
      await eventually(
        () => alice.controls.find((m) => m.event === 'keyframe'),
        10_000,
        'the request at alice',
      );
      expect(alice.controls.find((m) => m.event === 'keyframe')).toMatchObject({
        user_id: 'alice',
        data: { track: 'cam', layer: 0 },
      });
      expect(carol.controls.filter((m) => m.event === 'keyframe')).toEqual([]);
      expect(bob.controls.filter((m) => m.event === 'keyframe')).toEqual([]);
      const got = bob.messages.filter((m) => m.streamType === 'media/alice/cam');
      expect(got.map((m) => Buffer.from(m.payload).readUInt32BE(4))).toEqual([1]);
      for (const x of [alice, bob, carol]) await x.c.close();
    }, 60_000);
  },
);

describe('a server process killed with SIGKILL', () => {
  it('loses no message it acknowledged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vss-kill-'));
    const schema = `kill_${Math.random().toString(36).slice(2, 10)}`;
    const dbUrl = ENGINE === 'postgres' ? await pgSchemaUrl(PG_URL, schema) : '';
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = runServer({
      DATA_DIR: dir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...(dbUrl ? { DATABASE_URL: dbUrl } : {}),
    });
    try {
      await waitForHttp(`${base}/health`);
      const { session, tokenFor } = await bootstrap(base);
      const alice = client(base, session.id, 'alice', () => tokenFor('alice'));
      await alice.c.connect();
      const acked = new Map<number, Buffer>();
      const inflight: Promise<unknown>[] = [];
      let killed = false;
      for (let i = 0; i < 5000 && !killed; i++) {
        const payload = jpeg(i, 4000);
        inflight.push(
          alice.c.publish('media/alice/cam', payload, { ack: true }).then(
            (seq) => void acked.set(seq, payload),
            () => {},
          ),
        );
        if (i % 50 === 49) await new Promise((r) => setImmediate(r));
        if (acked.size >= 300 && !killed) {
          killed = true;
          proc.child.kill('SIGKILL');
        }
        // Pacing, not a proof: at most 200 frames ahead of the acks, or 200 ms, so as not to flood.
        if (i % 200 === 199)
          await Promise.race([Promise.all(inflight.slice(-200)), new Promise((r) => setTimeout(r, 200))]);
      }
      await proc.exited;
      await Promise.allSettled(inflight);
      expect(killed).toBe(true);
      expect(acked.size).toBeGreaterThanOrEqual(300);

      const stored = new Map<number, Buffer>();
      if (ENGINE === 'postgres') {
        const db = new pg.Client({ connectionString: dbUrl });
        await db.connect();
        const { rows } = await db.query(
          "select seq, body from stream_events where session_id = $1 and stream_id = 'media/alice/cam'",
          [session.id],
        );
        for (const r of rows) stored.set(Number(r.seq), r.body);
        await db.end();
      } else {
        const store = sqliteStreamStore(dir);
        for await (const e of store.read(session.id, {})) stored.set(e.seq, e.body);
        await store.close();
      }
      for (const [seq, payload] of acked) {
        expect(stored.get(seq)?.equals(payload), `acked seq ${seq} is stored intact`).toBe(true);
      }
    } finally {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      if (dbUrl) await dropPgSchema(PG_URL, schema);
    }
  }, 60_000);
});
