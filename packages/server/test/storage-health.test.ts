import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE, call, createSession, expectError, startApp, tenant, type TestApp } from './support/app.js';
import { eventually, join as joinLive, jpeg, publish } from './support/live.js';

describe('a data directory removed or replaced under a running server', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close().catch(() => {});
    t = undefined;
  });

  /** Health, a write and a live publish, once the damage is done. */
  async function expectRefusals(
    app: TestApp,
    key: string,
    reason: RegExp,
    socket?: Awaited<ReturnType<typeof joinLive>>,
  ) {
    const health = await eventually(
      async () => {
        const res = await call(app, 'GET', '/health');
        return res.status === 503 ? res : undefined;
      },
      5000,
      'health to turn 503',
    );
    expect(health.raw).toMatch(reason);
    expect(String(health.headers['content-type'])).toMatch(/^text\/plain/);
    const write = await call(app, 'POST', '/v1/sessions', { key, body: { name: 'lost?' } });
    expect(expectError(write, 500, 'SERVER_ERROR')).toMatch(/storage/);
    if (socket) {
      socket.send(publish('media/alice/cam', jpeg(1), { id: 'after-damage' }));
      const answer = await socket.waitFor(
        (m) =>
          m.type === 'control' && (m.event === 'ack' || m.event === 'error') && m.data?.id === 'after-damage',
      );
      expect(answer.event).toBe('error');
    }
  }

  it('is noticed: health answers 503 with the reason, writes are refused with 500, live publishes are not acknowledged', async () => {
    t = await startApp();
    const a = await tenant(t);
    const s = await createSession(t, a.key);
    const alice = await joinLive(t, a.key, s.id, 'alice');
    alice.send(publish('media/alice/cam', jpeg(0), { id: 'before' }));
    expect(
      (await alice.waitFor((m) => m.event === 'ack' && m.data?.id === 'before')).data.seq,
    ).toBeGreaterThan(0);
    expect((await call(t, 'GET', '/health')).raw).toBe('ok');

    rmSync(t.dataDir, { recursive: true, force: true });
    await expectRefusals(t, a.key, /storage unavailable: .*(removed|replaced)/, alice);
    // Reads that need no write still answer.
    expect((await call(t, 'GET', '/v1/sessions', { key: a.key })).status).toBe(200);
  });

  it('notices the kept root secret removed: without it the next start would not know any API key', async () => {
    t = await startApp();
    const a = await tenant(t);
    rmSync(join(t.dataDir, 'secret.key'));
    await expectRefusals(t, a.key, /storage unavailable: DATA_DIR\/secret\.key was removed/);
  });

  it.skipIf(ENGINE !== 'sqlite')(
    'notices a database file replaced by another, and a restart on intact storage works',
    async () => {
      t = await startApp();
      const a = await tenant(t);
      const file = join(t.dataDir, 'vss.sqlite');
      copyFileSync(file, `${file}.copy`);
      renameSync(`${file}.copy`, file);
      await expectRefusals(t, a.key, /storage unavailable: .*vss\.sqlite.*replaced/);

      // The same folder, opened again as it now is: everything works.
      const dataDir = t.dataDir;
      await t.close();
      t = await startApp({ dataDir });
      expect((await call(t, 'GET', '/health')).raw).toBe('ok');
      // (The copy was taken without its WAL: it holds what a tenant made after the restart.)
      const b = await tenant(t);
      const after = await call(t, 'POST', '/v1/sessions', { key: b.key, body: { name: 'after restart' } });
      expect(after.status, after.raw).toBe(201);
      rmSync(dataDir, { recursive: true, force: true });
    },
  );
});
