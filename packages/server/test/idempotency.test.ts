import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, startApp, tenant, type Tenant, type TestApp } from './support/app.js';

describe('Idempotency-Key', () => {
  let t: TestApp;
  let a: Tenant;
  /** Every log line the server wrote, parsed. */
  const logged: Array<{ level: number; msg?: string; err?: unknown }> = [];
  beforeAll(async () => {
    t = await startApp({
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void logged.push(JSON.parse(line)) },
    });
    a = await tenant(t);
  });
  afterAll(() => t.close());

  const sessionsOf = async (key: string) =>
    (await call(t, 'GET', '/v1/sessions?limit=200', { key })).body.data as Array<{ id: string }>;

  it('replays the first answer for a retry with the same key and body, creating once', async () => {
    const headers = { 'idempotency-key': 'create-standup-1' };
    const first = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body: { name: 'Standup' } });
    const again = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body: { name: 'Standup' } });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.raw).toBe(first.raw);
    expect((await sessionsOf(a.key)).filter((s) => s.id === first.body.data.id)).toHaveLength(1);
    expect((await sessionsOf(a.key)).length).toBe(1);
  });

  it('answers a retry from the stored answer without running the create again, and logs nothing above info', async () => {
    let creates = 0;
    const stop = t.runtime.bus.onTransactional('session.created', async () => void (creates += 1));
    try {
      const headers = { 'idempotency-key': 'no-second-insert' };
      const before = logged.length;
      const first = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body: { name: 'Once' } });
      const again = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body: { name: 'Once' } });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.raw).toBe(first.raw);
      // The create (its insert and its session.created event) ran for the first request only.
      expect(creates).toBe(1);
      expect(logged.slice(before).filter((l) => l.level > 30)).toEqual([]);
    } finally {
      stop();
    }
  });

  it('answers 409 to a duplicate sent while the first request is still running', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((ok) => (entered = ok));
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    // Holds the first create inside its transaction until the duplicate has been answered.
    const hold = async () => {
      entered();
      await held;
    };
    const stop = t.runtime.bus.onTransactional('session.created', hold);
    const headers = { 'idempotency-key': 'still-running' };
    const body = { name: 'Slow' };
    try {
      const first = call(t, 'POST', '/v1/sessions', { key: a.key, headers, body });
      await inside;
      const duplicate = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body });
      expect(expectError(duplicate, 409, 'CONFLICT')).toMatch(/still in progress/);
      release();
      expect((await first).status).toBe(201);
    } finally {
      release();
      stop();
    }
    const retry = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 409 for the same key with another body', async () => {
    const headers = { 'idempotency-key': 'k-body' };
    expect(
      (await call(t, 'POST', '/v1/projects', { key: a.key, headers, body: { name: 'One' } })).status,
    ).toBe(201);
    expect(
      expectError(
        await call(t, 'POST', '/v1/projects', { key: a.key, headers, body: { name: 'Two' } }),
        409,
        'CONFLICT',
      ),
    ).toMatch(/different request body/);
  });

  it('scopes keys by credential and by path', async () => {
    const b = await tenant(t);
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = await call(t, 'POST', '/v1/sessions', { key: a.key, headers, body: { name: 'x' } });
    const theirs = await call(t, 'POST', '/v1/sessions', { key: b.key, headers, body: { name: 'x' } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    const otherPath = await call(t, 'POST', `/v1/projects/${a.projectId}/sessions`, {
      key: a.key,
      headers,
      body: { name: 'x' },
    });
    expect(otherPath.status).toBe(201);
    expect(otherPath.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps no failed answer: the client may correct the request and retry with the same key', async () => {
    const headers = { 'idempotency-key': 'fix-and-retry' };
    expectError(
      await call(t, 'POST', '/v1/projects', { key: a.key, headers, body: { name: '' } }),
      400,
      'BAD_REQUEST',
    );
    const fixed = await call(t, 'POST', '/v1/projects', { key: a.key, headers, body: { name: 'Fixed' } });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('creates exactly once when the same key is sent concurrently', async () => {
    const b = await tenant(t);
    const headers = { 'idempotency-key': 'race' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(t, 'POST', '/v1/sessions', { key: b.key, headers, body: { name: 'race' } }),
      ),
    );
    for (const r of answers) expect([201, 409]).toContain(r.status);
    const created = answers.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
    expect((await sessionsOf(b.key)).length).toBe(1);
  });

  it('covers every creating POST: keys, restricted keys, invitations, projects', async () => {
    for (const [url, body] of [
      [`/v1/projects/${a.projectId}/api-keys`, { label: 'idem' }],
      ['/v1/restricted-keys', {}],
      [`/v1/projects/${a.projectId}/invitations`, { email: 'idem@example.com', role: 'member' }],
      ['/v1/projects', { name: 'idem' }],
    ] as const) {
      const headers = { 'idempotency-key': `every-${url}` };
      const first = await call(t, 'POST', url, { key: a.key, headers, body });
      const again = await call(t, 'POST', url, { key: a.key, headers, body });
      expect(first.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
    }
  });

  it('replays a new key secret, but keeps neither the secret nor the Idempotency-Key readable in the database', async () => {
    const headers = { 'idempotency-key': 'key-with-secret-7f3a' };
    const first = await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, {
      key: a.key,
      headers,
      body: {},
    });
    const again = await call(t, 'POST', `/v1/projects/${a.projectId}/api-keys`, {
      key: a.key,
      headers,
      body: {},
    });
    expect(again.body.data.secret).toBe(first.body.data.secret);
    const rows = JSON.stringify(
      await t.runtime.database.db.selectFrom('idempotency_keys').selectAll().execute(),
    );
    expect(rows).not.toContain(first.body.data.secret);
    expect(rows).not.toContain(first.body.data.secret.slice(8, 30));
    expect(rows).not.toContain('key-with-secret-7f3a');
  });

  it('refuses an empty or over-long key', async () => {
    expect(
      expectError(
        await call(t, 'POST', '/v1/sessions', {
          key: a.key,
          headers: { 'idempotency-key': 'x'.repeat(256) },
          body: {},
        }),
        400,
        'BAD_REQUEST',
      ),
    ).toMatch(/Idempotency-Key/);
    expectError(
      await call(t, 'POST', '/v1/sessions', { key: a.key, headers: { 'idempotency-key': '' }, body: {} }),
      400,
      'BAD_REQUEST',
    );
  });

  it('forgets an answer after 24 hours', async () => {
    const headers = { 'idempotency-key': 'old' };
    const first = await call(t, 'POST', '/v1/projects', { key: a.key, headers, body: { name: 'Old' } });
    await t.runtime.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: Date.now() - 25 * 3600 * 1000 })
      .execute(); // every stored answer of this app ages past the retention period
    const later = await call(t, 'POST', '/v1/projects', { key: a.key, headers, body: { name: 'Old' } });
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
});
