import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveClient } from '@vss/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ENGINE, PG_URL, REDIS_URL } from './support/app.js';
import { solidJpeg } from './support/media.js';
import {
  dropPgSchema,
  freePort,
  httpJson,
  httpTenant,
  pgSchemaUrl,
  playback,
  runServer,
  waitForHttp,
  type Proc,
} from './support/process.js';
import { startS3, type LocalS3 } from './support/s3.js';
import { eventually } from './support/wait.js';
import { filesHaving } from './support/files.js';

const SECRET = 'multi-node-secret-multi-node-secret-multi';

describe.skipIf(ENGINE !== 'postgres' || !REDIS_URL)(
  'two server processes sharing only PostgreSQL, Redis and a bucket, one killed mid-session',
  () => {
    const schema = `nodes_${Math.random().toString(36).slice(2, 10)}`;
    const dirs: string[] = [];
    const procs: Proc[] = [];
    let s3: LocalS3;
    let dbUrl = '';
    const start = async (): Promise<{ proc: Proc; base: string }> => {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'vss-node-'));
      dirs.push(dir);
      const proc = runServer({
        DATA_DIR: dir,
        PORT: String(port),
        DATABASE_URL: dbUrl,
        REDIS_URL,
        REDIS_KEY_PREFIX: `${schema}:`,
        SESSION_DEPARTURE_TIMEOUT_S: '1',
        LOG_LEVEL: 'warn',
        SECRET_KEY: SECRET,
        ...s3.env,
      });
      procs.push(proc);
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}/health`);
      return { proc, base };
    };
    beforeAll(async () => {
      s3 = await startS3();
      dbUrl = await pgSchemaUrl(PG_URL, schema);
    }, 60_000);
    afterAll(async () => {
      for (const p of procs)
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await dropPgSchema(PG_URL, schema);
      await s3?.stop();
    });

    it('loses no acknowledged frame, ends the session once, and plays, exports and redacts it from the survivor', async () => {
      // One after the other: the first migrates the schema.
      const a = await start();
      const b = await start();
      const { key } = await httpTenant(a.base);
      const auth = { authorization: `Bearer ${key}` };
      const session = (await httpJson(a.base, 'POST', '/v1/sessions', { name: 'two nodes' }, auth)).data;
      const tokenAt = (base: string) => async (userId: string) =>
        (await httpJson(base, 'POST', `/v1/sessions/${session.id}/connection`, { user_id: userId }, auth))
          .data.access_token as string;
      const connect = async (base: string, userId: string) => {
        const c = new LiveClient({
          url: base.replace('http', 'ws'),
          session: session.id,
          userId,
          token: () => tokenAt(base)(userId),
          WebSocket: WebSocket as never,
          reconnect: false,
        });
        await c.connect();
        return c;
      };

      // Real JPEG frames (the export decodes them), each user's colour, each frame its own bytes
      // (a marker after the image's end) so that every acknowledged frame can be found again.
      const red = await solidJpeg('red');
      const blue = await solidJpeg('blue');
      const frame = (base: Buffer, user: string, i: number) =>
        Buffer.concat([base, Buffer.from(`frame ${i} of ${user};`)]);
      const t0 = Date.now();
      const acked = new Map<number, { user: string; body: Buffer }>();
      const publishFrames = async (c: LiveClient, user: string, from: number, n: number, jpeg: Buffer) => {
        const sent: Promise<void>[] = [];
        for (let i = from; i < from + n; i++) {
          const body = frame(jpeg, user, i);
          sent.push(
            c
              .publish(`media/${user}/cam`, body, { ack: true, timestampMs: t0 + i * 66 })
              .then((seq) => void acked.set(seq, { user, body }))
              .catch(() => {}),
          );
          // Pacing, not a proof: frames spread out a little, so that the kill falls among them.
          if (i % 10 === 9) await new Promise((r) => setTimeout(r, 20));
        }
        return Promise.all(sent);
      };

      let alice = await connect(a.base, 'alice');
      const bob = await connect(b.base, 'bob');
      await Promise.all([publishFrames(alice, 'alice', 0, 60, red), publishFrames(bob, 'bob', 0, 60, blue)]);
      // Alice keeps publishing while her node is killed outright.
      const inFlight = publishFrames(alice, 'alice', 60, 60, red);
      await eventually(
        () => [...acked.values()].filter((f) => f.user === 'alice').length >= 80,
        10_000,
        'acks',
      );
      a.proc.child.kill('SIGKILL');
      await a.proc.exited;
      await inFlight;
      const aliceBefore = [...acked.values()].filter((f) => f.user === 'alice').length;
      expect(aliceBefore).toBeGreaterThanOrEqual(80);

      // Her client reconnects to the survivor and goes on; bob never noticed.
      alice = await connect(b.base, 'alice');
      await Promise.all([
        publishFrames(alice, 'alice', 120, 30, red),
        publishFrames(bob, 'bob', 60, 90, blue),
      ]);
      await alice.close();
      await bob.close();

      // The session ends, once, decided by the survivor (the dead node's presence lapses).
      const db = new pg.Client({ connectionString: dbUrl });
      await db.connect();
      try {
        await eventually(
          async () =>
            (await db.query('select ended_at from sessions where id = $1', [session.id])).rows[0].ended_at !==
            null,
          // The dead node's presence rows lapse 30 s after its last heartbeat (every 10 s).
          60_000,
          'the session to end',
        );
        // Sealed: the rows keep no media, the bucket holds the segments.
        await eventually(
          async () =>
            (
              await db.query(
                'select count(*)::int as n from stream_events where session_id = $1 and body is not null',
                [session.id],
              )
            ).rows[0].n === 0,
          30_000,
          'the recording to be sealed',
        );
      } finally {
        await db.end();
      }
      expect((await s3.list(`segments/${session.id}/`)).length).toBeGreaterThan(0);

      // Every acknowledged frame, byte-identical, through the survivor's playback; then again with
      // its local copies of the segments gone (read from the bucket by range).
      for (const round of ['with local copies', 'from the bucket']) {
        if (round === 'from the bucket') rmSync(join(dirs[1]!, 'segments'), { recursive: true, force: true });
        const events = await playback(b.base, key, session.id, t0 - 60_000);
        const timeline = [...events.values()]
          .filter((e) => e.stream === 'events')
          .map((e) => (JSON.parse(e.body.toString()) as { type: string }).type);
        expect(
          timeline.filter((t) => t === 'session.ended'),
          round,
        ).toHaveLength(1);
        expect(
          timeline.filter((t) => t === 'session.started'),
          round,
        ).toHaveLength(1);
        for (const [seq, f] of acked) {
          const got = events.get(seq);
          expect(got?.stream, `${round}: seq ${seq}`).toBe(`media/${f.user}/cam`);
          expect(got!.body.equals(f.body), `${round}: seq ${seq} is byte-identical`).toBe(true);
        }
      }

      // An export rendered and downloaded on the survivor.
      const job = (await httpJson(b.base, 'GET', `/v1/sessions/${session.id}/export`, undefined, auth)).data;
      let status = '';
      await eventually(
        async () => {
          status = (await httpJson(b.base, 'GET', `/v1/exports/${job.job_id}`, undefined, auth)).data.status;
          return status === 'completed' || status === 'failed';
        },
        120_000,
        'the export',
      );
      expect(status).toBe('completed');
      const mp4 = await fetch(`${b.base}/v1/exports/${job.job_id}/download`, { headers: auth });
      expect(mp4.status).toBe(200);
      const bytes = Buffer.from(await mp4.arrayBuffer());
      expect(bytes.subarray(4, 8).toString()).toBe('ftyp');

      // Redacting alice leaves no object and no byte of hers in the bucket or on the survivor's disk.
      const marker = Buffer.from('frame 7 of alice;');
      expect(filesHaving(s3.dir, marker)).not.toEqual([]);
      const red2 = await fetch(`${b.base}/v1/sessions/${session.id}/participants/alice`, {
        method: 'DELETE',
        headers: auth,
      });
      expect(red2.status).toBe(200);
      expect(filesHaving(s3.dir, marker)).toEqual([]);
      expect(filesHaving(dirs[1]!, marker)).toEqual([]);
      const after = await playback(b.base, key, session.id, t0 - 60_000);
      expect([...after.values()].filter((e) => e.stream === 'media/alice/cam')).toEqual([]);
      expect([...after.values()].filter((e) => e.stream === 'media/bob/cam')).toHaveLength(150);
    }, 240_000);
  },
);
